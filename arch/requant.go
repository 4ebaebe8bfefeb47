package arch

// Per-tensor requantisation of int32 accumulators (TFLite's
// MultiplyByQuantizedMultiplier on vectors): the output stages of the
// integer FULLY_CONNECTED and LSTM gates. Portable code and the scalar
// reference functions in requant_generic.go, assembly twins in
// requant_{avx2,avx512}_amd64.s and requant_neon_arm64.s.

var (
	requantAccInt16 func(dst []int16, acc []int32, multiplier int32, shift int)
	requantInt8     func(dst []int8, acc []int32, multiplier int32, shift int, zeroPoint, lo, hi int32)

	requantAccInt16Impls = newImpls("RequantizeAccInt16", &requantAccInt16, requantAccInt16Generic)
	requantInt8Impls     = newImpls("RequantizeInt8", &requantInt8, requantInt8Generic)
)

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
