package arch

// Float elementwise operations against one scalar: the inner loops of
// float ADD, SUB and MUL when one input is a single value broadcast over
// the other (a bias, a scale, GELU's and RMSNorm's constants). Portable
// code in vecscalar_generic.go, the AVX2 and AVX-512 twins in
// vecscalar_avx2_amd64.s and vecscalar_avx512_amd64.s, the NEON one in
// vecscalar_neon_arm64.s.

// The operations of VecScalarF32.
const (
	ScalarAdd  = iota // a[i] + y
	ScalarMul         // a[i] · y
	ScalarSub         // a[i] − y
	ScalarRSub        // y − a[i]
)

var (
	vecScalarF32      func(dst, a []float32, y float32, op int)
	vecScalarF32Impls = newImpls("VecScalarF32", &vecScalarF32, vecScalarF32Generic)
)

// VecScalarF32 sets dst[i] = a[i] op y for i < len(dst), op one of
// ScalarAdd, ScalarMul, ScalarSub (a[i] − y) and ScalarRSub (y − a[i]),
// each result rounded to float32 once as TFLite's float ADD, MUL and SUB
// compute them before the activation's clamp. Every implementation gives
// the bits of Go's float32 arithmetic (-0 and NaN operands included,
// except which NaN payload survives when both are NaN). a must be at
// least as long as dst, and dst may be a but must not overlap it
// otherwise; it panics on an unknown op or a short a.
func VecScalarF32(dst, a []float32, y float32, op int) {
	_ = a[:len(dst)]
	if op < ScalarAdd || op > ScalarRSub {
		panic("arch.VecScalarF32: unknown operation")
	}
	if len(dst) < smallVec {
		vecScalarF32Generic(dst, a, y, op)
		return
	}
	vecScalarF32(dst, a, y, op)
}
