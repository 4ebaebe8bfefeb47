//go:build !purego

// AVX2 + FMA3 float32 kernels. Hand-written Go assembly; see doc.go for
// the conventions. Register use is listed at each function.

#include "textflag.h"

// ·tailMask32 (float32_amd64.go) supplies the VMASKMOVPS masks.

// func matVecMulAccAVX2(dst, m []float32, rows, cols int, x []float32)
//
// dst[r] += Σ_c m[r*cols+c]·x[c], rows ≥ 1, cols ≥ 1.
// Rows are taken four at a time so that each load of x feeds four FMAs;
// each row has two accumulators (columns 16k..16k+7 and 16k+8..16k+15) to
// hide the FMA latency. Columns: 16 per step, then one step of 8, then a
// masked step for the last cols%8 (VMASKMOVPS neither reads nor faults
// beyond the mask). Leftover rows (rows%4) go one at a time.
//
// DI dst, SI row 0, BX/CX/R13 rows 1-3, DX x, R8 rows left, R9 cols,
// R10 row stride in bytes, R11 end of the 16-column steps (bytes), R12 end
// of the 8-column steps (bytes), AX column offset (bytes).
// Y0-Y7 accumulators, Y8/Y9 x, Y10-Y13 masked loads, Y14 masked x tail,
// Y15 tail mask.
TEXT ·matVecMulAccAVX2(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ m_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ cols+56(FP), R9
	MOVQ x_base+64(FP), DX

	LEAQ (R9*4), R10
	MOVQ R9, R11
	SHRQ $4, R11
	SHLQ $6, R11
	MOVQ R9, R12
	SHRQ $3, R12
	SHLQ $5, R12

	// Tail mask and the masked tail of x (zero lanes past the end).
	MOVQ R9, AX
	ANDQ $7, AX
	MOVQ $8, CX
	SUBQ AX, CX
	LEAQ ·tailMask32(SB), BX
	VMOVDQU (BX)(CX*4), Y15
	VMASKMOVPS (DX)(R12*1), Y15, Y14

rows4:
	CMPQ R8, $4
	JLT  rows1
	LEAQ (SI)(R10*1), BX
	LEAQ (BX)(R10*1), CX
	LEAQ (CX)(R10*1), R13
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX
	CMPQ AX, R11
	JGE  blk8_4

loop16_4:
	VMOVUPS     (DX)(AX*1), Y8
	VMOVUPS     32(DX)(AX*1), Y9
	VFMADD231PS (SI)(AX*1), Y8, Y0
	VFMADD231PS 32(SI)(AX*1), Y9, Y4
	VFMADD231PS (BX)(AX*1), Y8, Y1
	VFMADD231PS 32(BX)(AX*1), Y9, Y5
	VFMADD231PS (CX)(AX*1), Y8, Y2
	VFMADD231PS 32(CX)(AX*1), Y9, Y6
	VFMADD231PS (R13)(AX*1), Y8, Y3
	VFMADD231PS 32(R13)(AX*1), Y9, Y7
	ADDQ $64, AX
	CMPQ AX, R11
	JLT  loop16_4

blk8_4:
	CMPQ AX, R12
	JGE  tail_4
	VMOVUPS     (DX)(AX*1), Y8
	VFMADD231PS (SI)(AX*1), Y8, Y0
	VFMADD231PS (BX)(AX*1), Y8, Y1
	VFMADD231PS (CX)(AX*1), Y8, Y2
	VFMADD231PS (R13)(AX*1), Y8, Y3
	ADDQ $32, AX

tail_4:
	TESTQ $7, R9
	JZ    reduce_4
	VMASKMOVPS  (SI)(AX*1), Y15, Y10
	VMASKMOVPS  (BX)(AX*1), Y15, Y11
	VMASKMOVPS  (CX)(AX*1), Y15, Y12
	VMASKMOVPS  (R13)(AX*1), Y15, Y13
	VFMADD231PS Y10, Y14, Y4
	VFMADD231PS Y11, Y14, Y5
	VFMADD231PS Y12, Y14, Y6
	VFMADD231PS Y13, Y14, Y7

reduce_4:
	// Four 8-lane accumulators to four sums: pairwise horizontal adds
	// leave [r0 r1 r2 r3] partial sums in each 128-bit half.
	VADDPS       Y4, Y0, Y0
	VADDPS       Y5, Y1, Y1
	VADDPS       Y6, Y2, Y2
	VADDPS       Y7, Y3, Y3
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VADDPS       (DI), X0, X0
	VMOVUPS      X0, (DI)
	ADDQ         $16, DI
	LEAQ         (R13)(R10*1), SI
	SUBQ         $4, R8
	JMP          rows4

rows1:
	TESTQ R8, R8
	JZ    done

row1:
	VXORPS Y0, Y0, Y0
	VXORPS Y4, Y4, Y4
	XORQ   AX, AX
	CMPQ   AX, R11
	JGE    blk8_1

loop16_1:
	VMOVUPS     (DX)(AX*1), Y8
	VMOVUPS     32(DX)(AX*1), Y9
	VFMADD231PS (SI)(AX*1), Y8, Y0
	VFMADD231PS 32(SI)(AX*1), Y9, Y4
	ADDQ        $64, AX
	CMPQ        AX, R11
	JLT         loop16_1

blk8_1:
	CMPQ        AX, R12
	JGE         tail_1
	VMOVUPS     (DX)(AX*1), Y8
	VFMADD231PS (SI)(AX*1), Y8, Y0
	ADDQ        $32, AX

tail_1:
	TESTQ       $7, R9
	JZ          reduce_1
	VMASKMOVPS  (SI)(AX*1), Y15, Y10
	VFMADD231PS Y10, Y14, Y4

reduce_1:
	VADDPS       Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VADDSS       (DI), X0, X0
	VMOVSS       X0, (DI)
	ADDQ         $4, DI
	ADDQ         R10, SI
	DECQ         R8
	JNZ          row1

done:
	VZEROUPPER
	RET

// Elementwise kernels: n = len(a) (≥ 0), 32 floats per step, then 8,
// then a masked step for the last n%8. DI dst, SI a, DX b, CX n, AX offset
// (bytes; the caller loads DI, SI, DX, CX), R8 end of the 32-float steps, R9 end of the 8-float steps,
// Y15 tail mask.
#define ELEMENTWISE_SETUP \
	MOVQ CX, R8             \
	SHRQ $5, R8             \
	SHLQ $7, R8             \
	MOVQ CX, R9             \
	SHRQ $3, R9             \
	SHLQ $5, R9             \
	XORQ AX, AX

// OP8(off) computes 8 results at byte offset AX+off into Y0-Y3 scratch.
#define ADD_STEP(off, Ya) \
	VMOVUPS off(SI)(AX*1), Ya     \
	VADDPS  off(DX)(AX*1), Ya, Ya \
	VMOVUPS Ya, off(DI)(AX*1)

#define MUL_STEP(off, Ya) \
	VMOVUPS off(SI)(AX*1), Ya     \
	VMULPS  off(DX)(AX*1), Ya, Ya \
	VMOVUPS Ya, off(DI)(AX*1)

#define MULACC_STEP(off, Ya) \
	VMOVUPS off(SI)(AX*1), Ya     \
	VMULPS  off(DX)(AX*1), Ya, Ya \
	VADDPS  off(DI)(AX*1), Ya, Ya \
	VMOVUPS Ya, off(DI)(AX*1)

// The masked tail: Y15 mask, Y12/Y13 operands.
#define TAIL_SETUP \
	MOVQ       CX, BX                \
	ANDQ       $7, BX                \
	JZ         done                  \
	MOVQ       $8, R10               \
	SUBQ       BX, R10               \
	LEAQ       ·tailMask32(SB), BX  \
	VMOVDQU    (BX)(R10*4), Y15      \
	VMASKMOVPS (SI)(AX*1), Y15, Y12  \
	VMASKMOVPS (DX)(AX*1), Y15, Y13

#define ELEMENTWISE(STEP, TAILOP) \
	ELEMENTWISE_SETUP         \
	CMPQ AX, R8               \
	JGE  blk8                 \
loop32:                       \
	STEP(0, Y0)               \
	STEP(32, Y1)              \
	STEP(64, Y2)              \
	STEP(96, Y3)              \
	ADDQ $128, AX             \
	CMPQ AX, R8               \
	JLT  loop32               \
blk8:                         \
	CMPQ AX, R9               \
	JGE  tail                 \
	STEP(0, Y0)               \
	ADDQ $32, AX              \
	JMP  blk8                 \
tail:                         \
	TAIL_SETUP                \
	TAILOP                    \
	VMASKMOVPS Y12, Y15, (DI)(AX*1) \
done:                         \
	VZEROUPPER                \
	RET

#define ADD_TAIL VADDPS Y13, Y12, Y12
#define MUL_TAIL VMULPS Y13, Y12, Y12
#define MULACC_TAIL \
	VMULPS     Y13, Y12, Y12        \
	VMASKMOVPS (DI)(AX*1), Y15, Y13 \
	VADDPS     Y13, Y12, Y12

// func vecAddAVX2(dst, a, b []float32)
TEXT ·vecAddAVX2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ a_len+32(FP), CX
	MOVQ b_base+48(FP), DX
	ELEMENTWISE(ADD_STEP, ADD_TAIL)

// func vecMulAVX2(dst, a, b []float32)
TEXT ·vecMulAVX2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ a_len+32(FP), CX
	MOVQ b_base+48(FP), DX
	ELEMENTWISE(MUL_STEP, MUL_TAIL)

// func vecMulAccAVX2(dst, a, b []float32)
TEXT ·vecMulAccAVX2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ a_len+32(FP), CX
	MOVQ b_base+48(FP), DX
	ELEMENTWISE(MULACC_STEP, MULACC_TAIL)
