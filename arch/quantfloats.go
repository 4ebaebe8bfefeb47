package arch

// Dynamic quantisation of float activations: the two loops of TFLite's
// tensor_utils::SymmetricQuantizeFloats and AsymmetricQuantizeFloats
// (portable_tensor_utils.cc, which x86 builds run), through which the
// hybrid kernels (float activations, int8 weights) quantise each input:
// the range of the values, then each value scaled and rounded. Portable
// code in quantfloats_generic.go, the AVX2 and AVX-512 twins in
// quantfloats_avx2_amd64.s and quantfloats_avx512_amd64.s, the NEON ones
// in quantfloats_neon_arm64.s.

var (
	minMaxF32           func(x []float32) (lo, hi float32, nan bool)
	minMaxF32Impls      = newImpls("MinMaxF32", &minMaxF32, minMaxF32Generic)
	scaleRoundInt8      func(dst []int8, x []float32, inv, zp float32, lo, hi int32)
	scaleRoundInt8Impls = newImpls("ScaleRoundInt8", &scaleRoundInt8, scaleRoundInt8Generic)
)

// MinMaxF32 returns the smallest and the largest element of x and
// whether x holds a NaN (then lo and hi are unspecified: TFLite's
// std::minmax_element gives a result that depends on where the NaN is,
// which the caller computes itself). For an empty x it returns 0, 0,
// false. Which of -0 and +0 is returned for a zero is unspecified.
func MinMaxF32(x []float32) (lo, hi float32, nan bool) {
	if len(x) == 0 {
		return 0, 0, false
	}
	return minMaxF32(x)
}

// ScaleRoundInt8 sets, for i < len(x),
//
//	dst[i] = roundClamp(zp + x[i]·inv)
//
// with the product and the sum each rounded to float32 (no fused
// multiply-add) and roundClamp TFLite's int8 conversion of the hybrid
// kernels, clamp(static_cast<int32_t>(std::round(y)), lo, hi) on x86: y
// rounded half away from zero; NaN and y ≥ 2^31 give lo (x86's
// conversion gives INT32_MIN for them); y ≤ lo gives lo, y ≥ hi gives
// hi. zp = 0 is the symmetric case (adding +0 changes no rounding). dst
// must be at least as long as x and -128 ≤ lo ≤ hi ≤ 127 (it panics
// otherwise). Every implementation gives the same bytes for every input.
func ScaleRoundInt8(dst []int8, x []float32, inv, zp float32, lo, hi int32) {
	_ = dst[:len(x)]
	if lo < -128 || hi > 127 || lo > hi {
		panic("arch.ScaleRoundInt8: clamp range outside [-128, 127]")
	}
	scaleRoundInt8(dst, x, inv, zp, lo, hi)
}

var (
	dequantRowsF32      func(dst []float32, acc []int32, m, n int, corr []int32, scale, bias []float32)
	dequantRowsF32Impls = newImpls("DequantRowsF32", &dequantRowsF32, dequantRowsF32Generic)
)

// DequantRowsF32 is the output step of the hybrid kernels: for the m
// rows of n int32 sums in acc (row i at acc[i·n:]) it sets
//
//	dst[i·n+c] = float32(acc[i·n+c] − corr[c]) · scale[c] + bias[c]
//
// with the conversion, the product and the sum each rounded to float32
// (no fused multiply-add), as TFLite's HybridConvPerChannel and hybrid
// FULLY_CONNECTED form them; with a nil bias the sum is left out (not
// +0, which would turn −0 into +0). corr is the zero-point correction
// (zeros for symmetric inputs). dst and acc must hold m·n values and
// corr, scale and bias (unless nil) n (it panics otherwise). Every
// implementation gives the same bits.
func DequantRowsF32(dst []float32, acc []int32, m, n int, corr []int32, scale, bias []float32) {
	if m <= 0 || n <= 0 {
		return
	}
	_, _ = dst[m*n-1], acc[m*n-1]
	_, _ = corr[n-1], scale[n-1]
	if bias != nil {
		_ = bias[n-1]
	}
	dequantRowsF32(dst, acc, m, n, corr, scale, bias)
}

var (
	mulAccOffsetInt8      func(acc []int32, w, x []int8, zp int32)
	mulAccOffsetInt8Impls = newImpls("MulAccOffsetInt8", &mulAccOffsetInt8, mulAccOffsetInt8Generic)
)

// MulAccOffsetInt8 adds w[i]·(x[i] − zp) to acc[i] for i < len(acc): one
// filter tap of the hybrid DEPTHWISE_CONV_2D (TFLite's
// DepthwiseConvHybridPerChannel with depth multiplier 1), exact in int32
// (wrapping as Go's int32 arithmetic). w and x must be at least as long
// as acc and zp within [-128, 127] (it panics otherwise), which keeps
// every product within ±32640. Every implementation gives the same
// sums.
func MulAccOffsetInt8(acc []int32, w, x []int8, zp int32) {
	n := len(acc)
	_, _ = w[:n], x[:n]
	if zp < -128 || zp > 127 {
		panic("arch.MulAccOffsetInt8: zero point outside [-128, 127]")
	}
	mulAccOffsetInt8(acc, w, x, zp)
}
