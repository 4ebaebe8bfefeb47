//go:build !purego

// AVX2 int8 kernels.
//
// Exactness: VPMADDUBSW (u8×s8 pairs summed into saturating int16) cannot
// be used as is, because a pair of (-128..127)×(0..255) products reaches
// ±65280. These kernels sign-extend both operands to int16 (VPMOVSXBW) and
// use VPMADDWD, whose pair sums of int16 products are exact in int32
// (the extreme is -128·-128·2 = 32768); VPADDD then wraps like Go's int32
// addition, so results are bit-identical to the portable code for every
// input.

#include "textflag.h"

// tailMask16<>: sixteen zero words then sixteen all-ones words. The 32
// bytes at byte offset 2*t keep the last t of 16 int16 lanes and clear
// the first 16-t.
DATA tailMask16<>+0(SB)/8, $0
DATA tailMask16<>+8(SB)/8, $0
DATA tailMask16<>+16(SB)/8, $0
DATA tailMask16<>+24(SB)/8, $0
DATA tailMask16<>+32(SB)/8, $0xffffffffffffffff
DATA tailMask16<>+40(SB)/8, $0xffffffffffffffff
DATA tailMask16<>+48(SB)/8, $0xffffffffffffffff
DATA tailMask16<>+56(SB)/8, $0xffffffffffffffff
GLOBL tailMask16<>(SB), RODATA|NOPTR, $64

// tailMask8<>: thirty-two zero bytes then thirty-two 0xff bytes, the same
// idea for 32 byte lanes.
DATA tailMask8<>+0(SB)/8, $0
DATA tailMask8<>+8(SB)/8, $0
DATA tailMask8<>+16(SB)/8, $0
DATA tailMask8<>+24(SB)/8, $0
DATA tailMask8<>+32(SB)/8, $0xffffffffffffffff
DATA tailMask8<>+40(SB)/8, $0xffffffffffffffff
DATA tailMask8<>+48(SB)/8, $0xffffffffffffffff
DATA tailMask8<>+56(SB)/8, $0xffffffffffffffff
GLOBL tailMask8<>(SB), RODATA|NOPTR, $64

// func matVecMulAccInt8AVX2Asm(dst []int32, m []int8, rows, cols int, x []int8)
//
// dst[r] += Σ_c m[r*cols+c]·x[c] (int32, wrapping), rows ≥ 1, cols ≥ 16.
// Four rows at a time, two accumulators per row; columns 32 per step, then
// one step of 16. The last cols%16 columns are done with an overlapping
// load of each row's final 16 bytes (so nothing past the row is read),
// multiplied by the final 16 bytes of x whose first 16-cols%16 lanes
// (already counted) are zeroed: Y14.
//
// DI dst, SI row 0, BX/CX/R13 rows 1-3, DX x, R8 rows left, R9 cols, R10
// row stride (= cols), R11 end of the 32-column steps, R12 end of the
// 16-column steps, R14 cols-16, AX column offset. Y0-Y7 accumulators,
// Y8/Y9 x as int16, Y10-Y13 rows as int16 and products, Y14 x tail.
TEXT ·matVecMulAccInt8AVX2Asm(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ m_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ cols+56(FP), R9
	MOVQ x_base+64(FP), DX

	MOVQ R9, R10
	MOVQ R9, R11
	ANDQ $-32, R11
	MOVQ R9, R12
	ANDQ $-16, R12
	LEAQ -16(R9), R14

	// Y14: x[cols-16:cols] as int16 with the lanes before the tail zeroed.
	MOVQ      R9, AX
	ANDQ      $15, AX
	LEAQ      tailMask16<>(SB), BX
	VPMOVSXBW (DX)(R14*1), Y14
	VPAND     (BX)(AX*2), Y14, Y14

rows4:
	CMPQ   R8, $4
	JLT    rows1
	LEAQ   (SI)(R10*1), BX
	LEAQ   (BX)(R10*1), CX
	LEAQ   (CX)(R10*1), R13
	VPXOR  Y0, Y0, Y0
	VPXOR  Y1, Y1, Y1
	VPXOR  Y2, Y2, Y2
	VPXOR  Y3, Y3, Y3
	VPXOR  Y4, Y4, Y4
	VPXOR  Y5, Y5, Y5
	VPXOR  Y6, Y6, Y6
	VPXOR  Y7, Y7, Y7
	XORQ   AX, AX
	CMPQ   AX, R11
	JGE    blk16_4

loop32_4:
	VPMOVSXBW (DX)(AX*1), Y8
	VPMOVSXBW 16(DX)(AX*1), Y9
	VPMOVSXBW (SI)(AX*1), Y10
	VPMOVSXBW 16(SI)(AX*1), Y11
	VPMOVSXBW (BX)(AX*1), Y12
	VPMOVSXBW 16(BX)(AX*1), Y13
	VPMADDWD  Y8, Y10, Y10
	VPMADDWD  Y9, Y11, Y11
	VPMADDWD  Y8, Y12, Y12
	VPMADDWD  Y9, Y13, Y13
	VPADDD    Y10, Y0, Y0
	VPADDD    Y11, Y4, Y4
	VPADDD    Y12, Y1, Y1
	VPADDD    Y13, Y5, Y5
	VPMOVSXBW (CX)(AX*1), Y10
	VPMOVSXBW 16(CX)(AX*1), Y11
	VPMOVSXBW (R13)(AX*1), Y12
	VPMOVSXBW 16(R13)(AX*1), Y13
	VPMADDWD  Y8, Y10, Y10
	VPMADDWD  Y9, Y11, Y11
	VPMADDWD  Y8, Y12, Y12
	VPMADDWD  Y9, Y13, Y13
	VPADDD    Y10, Y2, Y2
	VPADDD    Y11, Y6, Y6
	VPADDD    Y12, Y3, Y3
	VPADDD    Y13, Y7, Y7
	ADDQ      $32, AX
	CMPQ      AX, R11
	JLT       loop32_4

blk16_4:
	CMPQ      AX, R12
	JGE       tail_4
	VPMOVSXBW (DX)(AX*1), Y8
	VPMOVSXBW (SI)(AX*1), Y10
	VPMOVSXBW (BX)(AX*1), Y11
	VPMOVSXBW (CX)(AX*1), Y12
	VPMOVSXBW (R13)(AX*1), Y13
	VPMADDWD  Y8, Y10, Y10
	VPMADDWD  Y8, Y11, Y11
	VPMADDWD  Y8, Y12, Y12
	VPMADDWD  Y8, Y13, Y13
	VPADDD    Y10, Y0, Y0
	VPADDD    Y11, Y1, Y1
	VPADDD    Y12, Y2, Y2
	VPADDD    Y13, Y3, Y3

tail_4:
	TESTQ     $15, R9
	JZ        reduce_4
	VPMOVSXBW (SI)(R14*1), Y10
	VPMOVSXBW (BX)(R14*1), Y11
	VPMOVSXBW (CX)(R14*1), Y12
	VPMOVSXBW (R13)(R14*1), Y13
	VPMADDWD  Y14, Y10, Y10
	VPMADDWD  Y14, Y11, Y11
	VPMADDWD  Y14, Y12, Y12
	VPMADDWD  Y14, Y13, Y13
	VPADDD    Y10, Y4, Y4
	VPADDD    Y11, Y5, Y5
	VPADDD    Y12, Y6, Y6
	VPADDD    Y13, Y7, Y7

reduce_4:
	VPADDD       Y4, Y0, Y0
	VPADDD       Y5, Y1, Y1
	VPADDD       Y6, Y2, Y2
	VPADDD       Y7, Y3, Y3
	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPADDD       (DI), X0, X0
	VMOVDQU      X0, (DI)
	ADDQ         $16, DI
	LEAQ         (R13)(R10*1), SI
	SUBQ         $4, R8
	JMP          rows4

rows1:
	TESTQ R8, R8
	JZ    done

row1:
	VPXOR Y0, Y0, Y0
	VPXOR Y4, Y4, Y4
	XORQ  AX, AX
	CMPQ  AX, R11
	JGE   blk16_1

loop32_1:
	VPMOVSXBW (DX)(AX*1), Y8
	VPMOVSXBW 16(DX)(AX*1), Y9
	VPMOVSXBW (SI)(AX*1), Y10
	VPMOVSXBW 16(SI)(AX*1), Y11
	VPMADDWD  Y8, Y10, Y10
	VPMADDWD  Y9, Y11, Y11
	VPADDD    Y10, Y0, Y0
	VPADDD    Y11, Y4, Y4
	ADDQ      $32, AX
	CMPQ      AX, R11
	JLT       loop32_1

blk16_1:
	CMPQ      AX, R12
	JGE       tail_1
	VPMOVSXBW (DX)(AX*1), Y8
	VPMOVSXBW (SI)(AX*1), Y10
	VPMADDWD  Y8, Y10, Y10
	VPADDD    Y10, Y0, Y0

tail_1:
	TESTQ     $15, R9
	JZ        reduce_1
	VPMOVSXBW (SI)(R14*1), Y10
	VPMADDWD  Y14, Y10, Y10
	VPADDD    Y10, Y4, Y4

reduce_1:
	VPADDD       Y4, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPHADDD      X0, X0, X0
	VPHADDD      X0, X0, X0
	VMOVD        X0, AX
	ADDL         AX, (DI)
	ADDQ         $4, DI
	ADDQ         R10, SI
	DECQ         R8
	JNZ          row1

done:
	VZEROUPPER
	RET

// func rowSumsInt8AVX2Asm(dst []int32, m []int8, rows, cols int)
//
// dst[r] = Σ_c m[r*cols+c], rows ≥ 1, cols ≥ 32. Each byte is biased to
// unsigned (XOR 0x80 adds 128) and summed with VPSADBW against zero into
// 64-bit lanes; 128·cols is subtracted at the end. The last cols%32 bytes
// come from an overlapping load of the row's final 32 bytes with the
// already-counted lanes cleared (after the bias, so they add 0).
//
// DI dst, SI row, R8 rows left, R9 cols, R11 end of the 32-byte steps,
// R14 cols-32, AX offset, BX 128·cols. Y0 sums, Y13 mask, Y14 zero,
// Y15 0x80 bytes.
TEXT ·rowSumsInt8AVX2Asm(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ m_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ cols+56(FP), R9

	MOVQ R9, R11
	ANDQ $-32, R11
	LEAQ -32(R9), R14
	MOVQ R9, BX
	SHLQ $7, BX
	MOVQ R9, AX
	ANDQ $31, AX
	LEAQ tailMask8<>(SB), CX
	VMOVDQU (CX)(AX*1), Y13
	VPXOR Y14, Y14, Y14
	MOVL $0x80808080, AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15

row:
	VPXOR Y0, Y0, Y0
	XORQ  AX, AX

loop32:
	VPXOR   (SI)(AX*1), Y15, Y1
	VPSADBW Y14, Y1, Y1
	VPADDQ  Y1, Y0, Y0
	ADDQ    $32, AX
	CMPQ    AX, R11
	JLT     loop32

	TESTQ   $31, R9
	JZ      reduce
	VPXOR   (SI)(R14*1), Y15, Y1
	VPAND   Y13, Y1, Y1
	VPSADBW Y14, Y1, Y1
	VPADDQ  Y1, Y0, Y0

reduce:
	VEXTRACTI128 $1, Y0, X1
	VPADDQ       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDQ       X1, X0, X0
	VMOVQ        X0, AX
	SUBQ         BX, AX
	MOVL         AX, (DI)
	ADDQ         $4, DI
	ADDQ         R9, SI
	DECQ         R8
	JNZ          row

	VZEROUPPER
	RET
