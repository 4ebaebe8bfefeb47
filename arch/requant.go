package arch

// Per-tensor requantisation of int32 accumulators (TFLite's
// MultiplyByQuantizedMultiplier on vectors): the output stages of the
// integer FULLY_CONNECTED and LSTM gates. Portable code and the scalar
// reference functions in requant_generic.go, assembly twins in
// requant_{avx2,avx512}_amd64.s and requant_neon_arm64.s.

// Two tie rules for the final rounding right shift by e = max(-shift, 0)
// of a requantisation (after the saturating rounding doubling high
// multiply, which every path shares):
//
//   - away from zero: gemmlowp's RoundingDivideByPOT, TFLite's
//     MultiplyByQuantizedMultiplier (its reference kernels, its portable
//     tensor_utils, the uint8 GEMMs it runs through gemmlowp, depthwise
//     convolutions, elementwise kernels);
//   - upward (toward +∞): (h + 2^(e-1)) >> e, computed without overflow,
//     as ruy's x86 kernels (AVX2 and AVX-512, kernel_avx2_fma.cc and
//     kernel_avx512.cc) apply their multiplier. TFLite's x86 builds run
//     every int8 GEMM through ruy (cpu_backend_gemm_x86.h): int8 CONV_2D,
//     FULLY_CONNECTED and BATCH_MATMUL, and the 16x8 GEMMs. Note that
//     ruy's portable reference (apply_multiplier.cc) rounds once instead,
//     and that ruy's arm64 kernels truncate the high multiply: neither is
//     what TFLite computes on x86, whose outputs this package follows.
//
// The two differ only on negative values exactly halfway between two
// steps, by one step. The kernels carry the rule as a tie mask: -1 (all
// ones) for away from zero, 0 for upward; the rounding carry of a
// negative h is then taken from remainder + (h>>31 & tie) > threshold.

// tieAway and tieUp are the tie masks of the two rules.
const (
	tieAway int32 = -1
	tieUp   int32 = 0
)

var (
	requantAccInt16 func(dst []int16, acc []int32, multiplier int32, shift int)
	requantInt8     func(dst []int8, acc []int32, multiplier int32, shift int, zeroPoint, lo, hi, tie int32)

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
	requantInt8(dst, acc, multiplier, shift, zeroPoint, lo, hi, tieAway)
}

// RequantizeInt8Up is RequantizeInt8 with ruy's x86 rounding
// (MultiplyByQuantizedMultiplierUp: ties of the final shift upward): the
// output stage of TFLite's int8 FULLY_CONNECTED, CONV_2D and BATCH_MATMUL
// on x86, which run through ruy. Same preconditions; bit-identical at
// every level for every input.
func RequantizeInt8Up(dst []int8, acc []int32, multiplier int32, shift int, zeroPoint, lo, hi int32) {
	_ = dst[:len(acc)]
	if lo < -128 || hi > 127 || lo > hi {
		panic("arch.RequantizeInt8Up: clamp range outside [-128, 127]")
	}
	requantInt8(dst, acc, multiplier, shift, zeroPoint, lo, hi, tieUp)
}
