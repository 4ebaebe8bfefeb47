// Generator of glibc_sincosf.txt (gcc 12.2 -O2 -fno-builtin, glibc 2.36, x86-64):
//   gcc -O2 -fno-builtin -o scgen glibc_sincosf.c -lm && ./scgen > glibc_sincosf.txt
// Prints x, sinf(x), cosf(x) of glibc as float bit patterns.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
static uint32_t B(float f){uint32_t i;memcpy(&i,&f,4);return i;}
int main(){ srand(9);
  float sp[]={0.0f,-0.0f,0x1p-12f,0x1p-13f,0.78539816f,-0.78539816f,0.7853982f,1.5707964f,3.1415927f,-3.1415927f,6.2831855f,100.0f,119.99999f,-119.99999f,1e-30f};
  for(int i=0;i<(int)(sizeof(sp)/sizeof(sp[0]));i++) printf("%08x %08x %08x\n",B(sp[i]),B(sinf(sp[i])),B(cosf(sp[i])));
  for(int i=0;i<4000;i++){ float x=(rand()/(float)RAND_MAX)*240-120; if(i%5==0) x=(rand()/(float)RAND_MAX)*8-4; if(i%11==0) x*=1e-3f;
    printf("%08x %08x %08x\n",B(x),B(sinf(x)),B(cosf(x))); } }
