// Generator of glibc_atanf.txt (gcc 12.2 -O2 -fno-builtin, glibc 2.36, x86-64):
//   gcc -O2 -fno-builtin -o atgen glibc_atanf.c -lm && ./atgen > glibc_atanf.txt
// Prints y, x, atan2f(y, x) and x, atanf(x) of glibc as float bit patterns.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
static uint32_t B(float f){uint32_t i;memcpy(&i,&f,4);return i;}
static float F(uint32_t i){float f;memcpy(&f,&i,4);return f;}
int main(){ srand(7);
  float sp[]={0.0f,-0.0f,1.0f,-1.0f,INFINITY,-INFINITY,NAN,1e-30f,-1e-30f,1e30f,3.0f,0.4375f,0.6875f,1.1875f,2.4375f,1e-10f,1e10f,-2.5f};
  int ns=sizeof(sp)/sizeof(sp[0]);
  for(int i=0;i<ns;i++) for(int j=0;j<ns;j++) printf("atan2 %08x %08x %08x\n",B(sp[i]),B(sp[j]),B(atan2f(sp[i],sp[j])));
  for(int i=0;i<3000;i++){ float y=(rand()/(float)RAND_MAX)*400-200, x=(rand()/(float)RAND_MAX)*400-200;
    if(i%4==1) y*=1e-4f; if(i%4==2) x*=1e-4f; if(i%7==0) y=F(rand()*2u+rand()%2);
    printf("atan2 %08x %08x %08x\n",B(y),B(x),B(atan2f(y,x))); }
  for(int i=0;i<2000;i++){ float x=F((uint32_t)rand()*2u+rand()%2); if(i%2) x=(rand()/(float)RAND_MAX)*6-3;
    printf("atan %08x %08x\n",B(x),B(atanf(x))); }
}
