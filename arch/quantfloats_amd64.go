//go:build !purego

package arch

// The amd64 MinMaxF32 and ScaleRoundInt8 kernels
// (quantfloats_avx512_amd64.s), with the signatures and contracts of
// minMaxF32Generic (len(x) ≥ 1) and scaleRoundInt8Generic.

//go:noescape
func minMaxF32AVX512(x []float32) (lo, hi float32, nan bool)

//go:noescape
func scaleRoundInt8AVX512(dst []int8, x []float32, inv, zp float32, lo, hi int32)

var (
	_ = minMaxF32Impls.add("avx512", AVX512, nil, minMaxF32AVX512)
	_ = scaleRoundInt8Impls.add("avx512", AVX512, nil, scaleRoundInt8AVX512)
)

// dequantRowsF32AVX512Asm is DequantRowsF32 for m, n ≥ 1 with bias
// either a pointer to n values or nil.
//
//go:noescape
func dequantRowsF32AVX512Asm(dst *float32, acc *int32, m, n int, corr *int32, scale, bias *float32)

func dequantRowsF32AVX512(dst []float32, acc []int32, m, n int, corr []int32, scale, bias []float32) {
	var b *float32
	if bias != nil {
		b = &bias[0]
	}
	dequantRowsF32AVX512Asm(&dst[0], &acc[0], m, n, &corr[0], &scale[0], b)
}

var _ = dequantRowsF32Impls.add("avx512", AVX512, nil, dequantRowsF32AVX512)

// mulAccOffsetInt8AVX512 is MulAccOffsetInt8 for any length
// (quantfloats_avx512_amd64.s).
//
//go:noescape
func mulAccOffsetInt8AVX512(acc []int32, w, x []int8, zp int32)

var _ = mulAccOffsetInt8Impls.add("avx512", AVX512, nil, mulAccOffsetInt8AVX512)
