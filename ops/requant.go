package ops

// multiplyByQuantizedMultiplierRuy rescales an int32 accumulator the way
// ruy's x86 kernels do (kernel_avx2_fma.cc, kernel_avx512.cc; ruy's
// apply_multiplier.cc states the same rule): x is shifted left by
// max(shift, 0) in wrapping int32 arithmetic, multiplied by the Q0.31
// multiplier in int64, and shifted right by 31 + max(-shift, 0) after
// adding half of that divisor — a single rounding, half upward. The result
// is truncated to int32 like the kernels' 64→32-bit narrowing.
//
// TFLite's builtin FULLY_CONNECTED hands int8 (and zero-point-free int16)
// matrix products to ruy on x86, so this — not the double-rounding
// MultiplyByQuantizedMultiplier of quant.go — is what those outputs use.
// The two differ by one step on rare ties.
func multiplyByQuantizedMultiplierRuy(x, multiplier int32, shift int) int32 {
	left, right := 0, 0
	if shift > 0 {
		left = shift
	} else {
		right = -shift
	}
	v := int64(x<<uint(left)) * int64(multiplier)
	total := uint(31 + right)
	v += int64(1) << (total - 1)
	return int32(v >> total)
}
