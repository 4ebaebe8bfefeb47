package arch

// Float elementwise subtraction: the inner loop of float SUB.

var (
	vecSub      func(dst, a, b []float32)
	vecSubImpls = newImpls("VecSub", &vecSub, vecSubGeneric)
)

// VecSub sets dst[i] = a[i] − b[i] for i < len(dst), each difference
// rounded to float32 once, as TFLite's float SUB computes it
// (reference_ops::SubWithActivation before the clamp). Every
// implementation gives the bits of Go's float32 subtraction on the same
// CPU, NaN operands included (x86 SUBPS and NEON FSUB propagate NaNs as
// the scalar instructions do). a and b must be at least as long as dst;
// dst may be a or b itself but must not overlap them otherwise. It panics
// if a or b is shorter than dst.
func VecSub(dst, a, b []float32) {
	_, _ = a[:len(dst)], b[:len(dst)]
	vecSub(dst, a, b)
}
