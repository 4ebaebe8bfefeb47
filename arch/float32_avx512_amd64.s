//go:build !purego

// AVX-512 (F, BW, VL, DQ) float32 kernels: the AVX2 kernels' structure
// with 16-lane ZMM registers and opmask tails (a masked load neither reads
// nor faults on the masked-off lanes).

#include "textflag.h"

// func matVecMulAccAVX512(dst, m []float32, rows, cols int, x []float32)
//
// As matVecMulAccAVX2: four rows at a time, two accumulators per row,
// columns 32 per step, then one step of 16, then a masked step for the
// last cols%16 (K1).
//
// DI dst, SI row 0, BX/CX/R13 rows 1-3, DX x, R8 rows left, R9 cols, R10
// row stride (bytes), R11 end of the 32-column steps, R12 end of the
// 16-column steps, AX column offset (bytes). Z0-Z7 accumulators, Z8/Z9 x,
// Z14 masked x tail, K1 tail mask.
TEXT ·matVecMulAccAVX512(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ m_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ cols+56(FP), R9
	MOVQ x_base+64(FP), DX

	LEAQ (R9*4), R10
	MOVQ R9, R11
	SHRQ $5, R11
	SHLQ $7, R11
	MOVQ R9, R12
	SHRQ $4, R12
	SHLQ $6, R12

	// K1 = (1 << (cols%16)) - 1 and the masked tail of x.
	MOVQ    R9, CX
	ANDQ    $15, CX
	MOVL    $1, AX
	SHLL    CX, AX
	DECL    AX
	KMOVW   AX, K1
	VMOVUPS.Z (DX)(R12*1), K1, Z14

rows4:
	CMPQ R8, $4
	JLT  rows1
	LEAQ (SI)(R10*1), BX
	LEAQ (BX)(R10*1), CX
	LEAQ (CX)(R10*1), R13
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	XORQ   AX, AX
	CMPQ   AX, R11
	JGE    blk16_4

loop32_4:
	VMOVUPS     (DX)(AX*1), Z8
	VMOVUPS     64(DX)(AX*1), Z9
	VFMADD231PS (SI)(AX*1), Z8, Z0
	VFMADD231PS 64(SI)(AX*1), Z9, Z4
	VFMADD231PS (BX)(AX*1), Z8, Z1
	VFMADD231PS 64(BX)(AX*1), Z9, Z5
	VFMADD231PS (CX)(AX*1), Z8, Z2
	VFMADD231PS 64(CX)(AX*1), Z9, Z6
	VFMADD231PS (R13)(AX*1), Z8, Z3
	VFMADD231PS 64(R13)(AX*1), Z9, Z7
	ADDQ        $128, AX
	CMPQ        AX, R11
	JLT         loop32_4

blk16_4:
	CMPQ        AX, R12
	JGE         tail_4
	VMOVUPS     (DX)(AX*1), Z8
	VFMADD231PS (SI)(AX*1), Z8, Z0
	VFMADD231PS (BX)(AX*1), Z8, Z1
	VFMADD231PS (CX)(AX*1), Z8, Z2
	VFMADD231PS (R13)(AX*1), Z8, Z3
	ADDQ        $64, AX

tail_4:
	TESTQ       $15, R9
	JZ          reduce_4
	VFMADD231PS (SI)(AX*1), Z14, K1, Z4
	VFMADD231PS (BX)(AX*1), Z14, K1, Z5
	VFMADD231PS (CX)(AX*1), Z14, K1, Z6
	VFMADD231PS (R13)(AX*1), Z14, K1, Z7

reduce_4:
	VADDPS        Z4, Z0, Z0
	VADDPS        Z5, Z1, Z1
	VADDPS        Z6, Z2, Z2
	VADDPS        Z7, Z3, Z3
	VEXTRACTF64X4 $1, Z0, Y8
	VEXTRACTF64X4 $1, Z1, Y9
	VEXTRACTF64X4 $1, Z2, Y10
	VEXTRACTF64X4 $1, Z3, Y11
	VADDPS        Y8, Y0, Y0
	VADDPS        Y9, Y1, Y1
	VADDPS        Y10, Y2, Y2
	VADDPS        Y11, Y3, Y3
	VHADDPS       Y1, Y0, Y0
	VHADDPS       Y3, Y2, Y2
	VHADDPS       Y2, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VADDPS        (DI), X0, X0
	VMOVUPS       X0, (DI)
	ADDQ          $16, DI
	LEAQ          (R13)(R10*1), SI
	SUBQ          $4, R8
	JMP           rows4

rows1:
	TESTQ R8, R8
	JZ    done

row1:
	VPXORD Z0, Z0, Z0
	VPXORD Z4, Z4, Z4
	XORQ   AX, AX
	CMPQ   AX, R11
	JGE    blk16_1

loop32_1:
	VMOVUPS     (DX)(AX*1), Z8
	VMOVUPS     64(DX)(AX*1), Z9
	VFMADD231PS (SI)(AX*1), Z8, Z0
	VFMADD231PS 64(SI)(AX*1), Z9, Z4
	ADDQ        $128, AX
	CMPQ        AX, R11
	JLT         loop32_1

blk16_1:
	CMPQ        AX, R12
	JGE         tail_1
	VMOVUPS     (DX)(AX*1), Z8
	VFMADD231PS (SI)(AX*1), Z8, Z0
	ADDQ        $64, AX

tail_1:
	TESTQ       $15, R9
	JZ          reduce_1
	VFMADD231PS (SI)(AX*1), Z14, K1, Z4

reduce_1:
	VADDPS        Z4, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VHADDPS       X0, X0, X0
	VHADDPS       X0, X0, X0
	VADDSS        (DI), X0, X0
	VMOVSS        X0, (DI)
	ADDQ          $4, DI
	ADDQ          R10, SI
	DECQ          R8
	JNZ           row1

done:
	VZEROUPPER
	RET

// Elementwise kernels: n = len(a), 64 floats per step, then 16, then a
// masked step (K1) for the last n%16. DI dst, SI a, DX b, CX n, AX offset
// (bytes; the caller loads DI, SI, DX, CX), R8 end of the 64-float steps, R9 end of the 16-float steps.
#define ELEMENTWISE_SETUP \
	MOVQ CX, R8             \
	SHRQ $6, R8             \
	SHLQ $8, R8             \
	MOVQ CX, R9             \
	SHRQ $4, R9             \
	SHLQ $6, R9             \
	XORQ AX, AX

#define ADD_STEP(off, Za) \
	VMOVUPS off(SI)(AX*1), Za     \
	VADDPS  off(DX)(AX*1), Za, Za \
	VMOVUPS Za, off(DI)(AX*1)

#define MUL_STEP(off, Za) \
	VMOVUPS off(SI)(AX*1), Za     \
	VMULPS  off(DX)(AX*1), Za, Za \
	VMOVUPS Za, off(DI)(AX*1)

#define MULACC_STEP(off, Za) \
	VMOVUPS off(SI)(AX*1), Za     \
	VMULPS  off(DX)(AX*1), Za, Za \
	VADDPS  off(DI)(AX*1), Za, Za \
	VMOVUPS Za, off(DI)(AX*1)

#define TAIL_SETUP \
	MOVQ      CX, BX                  \
	ANDQ      $15, BX                 \
	JZ        done                    \
	MOVQ      BX, CX                  \
	MOVL      $1, R10                 \
	SHLL      CX, R10                 \
	DECL      R10                     \
	KMOVW     R10, K1                 \
	VMOVUPS.Z (SI)(AX*1), K1, Z12     \
	VMOVUPS.Z (DX)(AX*1), K1, Z13

#define ELEMENTWISE(STEP, TAILOP) \
	ELEMENTWISE_SETUP         \
	CMPQ AX, R8               \
	JGE  blk16                \
loop64:                       \
	STEP(0, Z0)               \
	STEP(64, Z1)              \
	STEP(128, Z2)             \
	STEP(192, Z3)             \
	ADDQ $256, AX             \
	CMPQ AX, R8               \
	JLT  loop64               \
blk16:                        \
	CMPQ AX, R9               \
	JGE  tail                 \
	STEP(0, Z0)               \
	ADDQ $64, AX              \
	JMP  blk16                \
tail:                         \
	TAIL_SETUP                \
	TAILOP                    \
	VMOVUPS Z12, K1, (DI)(AX*1) \
done:                         \
	VZEROUPPER                \
	RET

#define ADD_TAIL VADDPS Z13, Z12, Z12
#define MUL_TAIL VMULPS Z13, Z12, Z12
#define MULACC_TAIL \
	VMULPS    Z13, Z12, Z12        \
	VMOVUPS.Z (DI)(AX*1), K1, Z13  \
	VADDPS    Z13, Z12, Z12

// func vecAddAVX512(dst, a, b []float32)
TEXT ·vecAddAVX512(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ a_len+32(FP), CX
	MOVQ b_base+48(FP), DX
	ELEMENTWISE(ADD_STEP, ADD_TAIL)

// func vecMulAVX512(dst, a, b []float32)
TEXT ·vecMulAVX512(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ a_len+32(FP), CX
	MOVQ b_base+48(FP), DX
	ELEMENTWISE(MUL_STEP, MUL_TAIL)

// func vecMulAccAVX512(dst, a, b []float32)
TEXT ·vecMulAccAVX512(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ a_len+32(FP), CX
	MOVQ b_base+48(FP), DX
	ELEMENTWISE(MULACC_STEP, MULACC_TAIL)
