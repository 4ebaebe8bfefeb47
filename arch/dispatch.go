package arch

import (
	"fmt"
	"os"
	"strings"
)

// The function variables the exported primitives call, and their
// registry entries. newImpls sets each variable to the portable version;
// init below re-sets them to the best implementation for the level in use.
// Per-architecture files (float32_amd64.go, …) add implementations.
var (
	matVecMulAcc     func(dst, m []float32, rows, cols int, x []float32)
	dot              func(a, b []float32) float32
	vecAdd           func(dst, a, b []float32)
	vecMul           func(dst, a, b []float32)
	vecMulAcc        func(dst, a, b []float32)
	sigmoid          func(dst, x []float32)
	tanh             func(dst, x []float32)
	matVecMulAccInt8 func(dst []int32, m []int8, rows, cols int, x []int8)
	dotInt8          func(a, b []int8) int32
	rowSumsInt8      func(dst []int32, m []int8, rows, cols int)
	requantAccInt16  func(dst []int16, acc []int32, multiplier int32, shift int)
	requantInt8      func(dst []int8, acc []int32, multiplier int32, shift int, zeroPoint, lo, hi int32)

	matVecMulAccImpls     = newImpls("MatVecMulAcc", &matVecMulAcc, matVecMulAccGeneric)
	dotImpls              = newImpls("Dot", &dot, dotGeneric)
	vecAddImpls           = newImpls("VecAdd", &vecAdd, vecAddGeneric)
	vecMulImpls           = newImpls("VecMul", &vecMul, vecMulGeneric)
	vecMulAccImpls        = newImpls("VecMulAcc", &vecMulAcc, vecMulAccGeneric)
	sigmoidImpls          = newImpls("Sigmoid", &sigmoid, sigmoidGeneric)
	tanhImpls             = newImpls("Tanh", &tanh, tanhGeneric)
	matVecMulAccInt8Impls = newImpls("MatVecMulAccInt8", &matVecMulAccInt8, matVecMulAccInt8Generic)
	dotInt8Impls          = newImpls("DotInt8", &dotInt8, dotInt8Generic)
	rowSumsInt8Impls      = newImpls("RowSumsInt8", &rowSumsInt8, rowSumsInt8Generic)
	requantAccInt16Impls  = newImpls("RequantizeAccInt16", &requantAccInt16, requantAccInt16Generic)
	requantInt8Impls      = newImpls("RequantizeInt8", &requantInt8, requantInt8Generic)
)

// init chooses the level: TFLRUN_ISA if set to a level this process can
// use, Best() otherwise. A bad TFLRUN_ISA does not stop the program; the
// problem is kept for ISAError.
func init() {
	lvl := Best()
	if s, ok := os.LookupEnv("TFLRUN_ISA"); ok && strings.TrimSpace(s) != "" {
		l, err := ParseLevel(s)
		if err == nil {
			err = checkLevel(l)
		}
		if err != nil {
			envError = fmt.Errorf("TFLRUN_ISA=%q ignored, using %s: %v", s, lvl, err)
		} else {
			lvl = l
		}
	}
	for _, p := range registry {
		p.selectFor(lvl)
	}
	current = lvl
}

// MatVecMulAcc adds the product of the row-major rows×cols matrix m and
// the vector x to dst: dst[r] += Σ_c m[r*cols+c]·x[c]. This is the float
// hot loop of FULLY_CONNECTED and of every recurrent gate (TFLite's
// MatrixBatchVectorMultiplyAccumulate for one batch). The order of the
// additions (and, with FMA, the rounding of the products) depends on the
// implementation: results agree to within a few float32 ulp of Σ|m·x|.
// NaN and Inf propagate as in the plain sum. It panics if a slice is
// shorter than the sizes say (a kernel bug, not bad input: kernels check
// shapes at Prepare).
func MatVecMulAcc(dst, m []float32, rows, cols int, x []float32) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_ = dst[rows-1]
	_ = m[rows*cols-1]
	_ = x[cols-1]
	matVecMulAcc(dst, m, rows, cols, x)
}

// MatBatchVecMulAcc applies MatVecMulAcc to batch vectors stored back to
// back: dst[b*rows+r] += Σ_c m[r*cols+c]·x[b*cols+c] for b < batch.
func MatBatchVecMulAcc(dst, m []float32, rows, cols int, x []float32, batch int) {
	if rows <= 0 || cols <= 0 || batch <= 0 {
		return
	}
	_ = dst[batch*rows-1]
	_ = m[rows*cols-1]
	_ = x[batch*cols-1]
	for b := 0; b < batch; b++ {
		matVecMulAcc(dst[b*rows:], m, rows, cols, x[b*cols:])
	}
}

// Dot returns Σ a[i]·b[i] over the len(a) elements of a; b must be at
// least as long. Summation order varies by implementation as for
// MatVecMulAcc (vectors under 16 elements always use the portable order).
func Dot(a, b []float32) float32 {
	_ = b[:len(a)]
	if len(a) < smallVec/2 {
		// A few terms: a direct call beats the kernels' set-up.
		return dotGeneric(a, b)
	}
	return dot(a, b)
}

// smallVec is the length below which VecAdd, VecMul and VecMulAcc run an
// inlined Go loop: for a few elements the call into assembly costs more
// than it saves (20 floats: ~11 ns in Go, 20-30 ns through a kernel on
// Zen 4). The results are the same either way.
const smallVec = 32

// VecAdd sets dst[i] = a[i] + b[i] for i < len(a); b and dst must be at
// least as long as a. dst may be a or b (in place) but must not overlap
// them otherwise. Results are identical at every level.
func VecAdd(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	if len(a) < smallVec {
		for i, v := range a {
			dst[i] = v + b[i]
		}
		return
	}
	vecAdd(dst, a, b)
}

// VecMul sets dst[i] = a[i] · b[i] for i < len(a), with the aliasing rules
// of VecAdd. Results are identical at every level.
func VecMul(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	if len(a) < smallVec {
		for i, v := range a {
			dst[i] = v * b[i]
		}
		return
	}
	vecMul(dst, a, b)
}

// VecMulAcc sets dst[i] += a[i] · b[i] for i < len(a), with the aliasing
// rules of VecAdd. The product is rounded to float32 before the add (no
// fused multiply-add, as in TFLite's x86 builds), so results are identical
// at every level and to Go's `dst[i] += float32(a[i] * b[i])`.
func VecMulAcc(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	if len(a) < smallVec {
		for i, v := range a {
			dst[i] += float32(v * b[i])
		}
		return
	}
	vecMulAcc(dst, a, b)
}

// Sigmoid sets dst[i] = 1/(1+e^(-x[i])) for i < len(x); dst must be at
// least as long as x and may be x itself (in place) but must not overlap
// it otherwise. It is the float logistic of the LSTM gates.
//
// Accuracy, measured over all 2^32 float32 bit patterns against float64
// math (TFLRUN_EXHAUSTIVE=1 go test ./arch -run TestSigmoidTanhAccuracy):
// the maximum absolute error is 8.93e-8, at x = 7.859211, for the portable,
// AVX2 and AVX-512 versions alike. Inputs below -88 (and -Inf) give
// 6.05e-39 instead of the exact, smaller value; +Inf gives 1, NaN NaN.
func Sigmoid(dst, x []float32) {
	_ = dst[:len(x)]
	sigmoid(dst, x)
}

// Tanh sets dst[i] = tanh(x[i]) for i < len(x), with the aliasing rules
// of Sigmoid. It is odd bit for bit (tanh(-0) = -0).
//
// Accuracy, measured over all 2^32 float32 bit patterns against float64
// math (as for Sigmoid): the maximum absolute error is 7.93e-8, at
// x = 0.62830955 (just above the switch from the odd polynomial to the
// exponential form), for the portable, AVX2 and AVX-512 versions alike.
// NaN gives NaN, ±Inf give ±1.
func Tanh(dst, x []float32) {
	_ = dst[:len(x)]
	tanh(dst, x)
}

// MatVecMulAccInt8 adds the int8 product m·x to dst with int32
// accumulation: dst[r] += Σ_c int32(m[r*cols+c])·int32(x[c]), wrapping
// modulo 2^32 like TFLite's int32 arithmetic. Every implementation gives
// bit-identical results for every input (including -128). Zero points are
// the caller's business (see RowSumsInt8).
func MatVecMulAccInt8(dst []int32, m []int8, rows, cols int, x []int8) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_ = dst[rows-1]
	_ = m[rows*cols-1]
	_ = x[cols-1]
	matVecMulAccInt8(dst, m, rows, cols, x)
}

// DotInt8 returns Σ int32(a[i])·int32(b[i]) over len(a) elements (b at
// least as long), wrapping like MatVecMulAccInt8.
func DotInt8(a, b []int8) int32 {
	_ = b[:len(a)]
	return dotInt8(a, b)
}

// RowSumsInt8 sets dst[r] to the sum of row r of the rows×cols matrix m,
// the term the zero-point correction Σ(w·(x-zp)) = Σw·x - zp·Σw needs.
func RowSumsInt8(dst []int32, m []int8, rows, cols int) {
	if rows <= 0 {
		return
	}
	_ = dst[rows-1]
	if cols <= 0 {
		clear(dst[:rows])
		return
	}
	_ = m[rows*cols-1]
	rowSumsInt8(dst, m, rows, cols)
}

// RequantizeAccInt16 sets dst[i] = sat16(dst[i] + MBQM(acc[i])) for
// i < len(acc), where MBQM(x) is TFLite's MultiplyByQuantizedMultiplier(x,
// multiplier, shift) with its default double rounding (saturating rounding
// doubling high multiply of x·2^max(shift,0) by multiplier, then a
// rounding right shift by max(-shift,0), ties away from zero), the sum is
// int32 (wrapping) and sat16 clamps to [-32768, 32767]. It is the output
// step of TFLite's integer MatrixBatchVectorMultiplyAccumulate with int16
// output (the int8x8_16 LSTM gates); clear dst first for a plain
// requantisation. dst must be at least as long as acc. Results are
// bit-identical at every level for every input.
func RequantizeAccInt16(dst []int16, acc []int32, multiplier int32, shift int) {
	_ = dst[:len(acc)]
	requantAccInt16(dst, acc, multiplier, shift)
}

// RequantizeInt8 sets dst[i] = int8(clamp(MBQM(acc[i]) + zeroPoint, lo,
// hi)) for i < len(acc), MBQM as in RequantizeAccInt16 (int32 add
// wrapping): the output stage of TFLite's int8 FULLY_CONNECTED with a
// per-tensor multiplier, lo and hi being the fused activation's range. lo
// and hi must lie in [-128, 127] with lo ≤ hi (it panics otherwise); dst
// must be at least as long as acc. Results are bit-identical at every
// level for every input.
func RequantizeInt8(dst []int8, acc []int32, multiplier int32, shift int, zeroPoint, lo, hi int32) {
	_ = dst[:len(acc)]
	if lo < -128 || hi > 127 || lo > hi {
		panic("arch.RequantizeInt8: clamp range outside [-128, 127]")
	}
	requantInt8(dst, acc, multiplier, shift, zeroPoint, lo, hi)
}
