//go:build !purego

package arch

// The amd64 MinMaxF32, ScaleRoundInt8, DequantRowsF32 and
// MulAccOffsetInt8 kernels (quantfloats_avx2_amd64.s,
// quantfloats_avx512_amd64.s), with the signatures and contracts of
// minMaxF32Generic (len(x) ≥ 1) and the other portable twins.

// The AVX2 twins (quantfloats_avx2_amd64.s) for x86 without AVX-512.
// minMaxF32AVX2Asm and scaleRoundInt8AVX2Asm need len(x) ≥ 8 (shorter x
// goes to the portable code); mulAccOffsetInt8AVX2Asm takes the first
// len(acc) rounded down to 8 channels, the portable code the rest.

//go:noescape
func minMaxF32AVX2Asm(x []float32) (lo, hi float32, nan bool)

func minMaxF32AVX2(x []float32) (lo, hi float32, nan bool) {
	if len(x) < 8 {
		return minMaxF32Generic(x)
	}
	return minMaxF32AVX2Asm(x)
}

//go:noescape
func scaleRoundInt8AVX2Asm(dst []int8, x []float32, inv, zp float32, lo, hi int32)

func scaleRoundInt8AVX2(dst []int8, x []float32, inv, zp float32, lo, hi int32) {
	if len(x) < 8 {
		scaleRoundInt8Generic(dst, x, inv, zp, lo, hi)
		return
	}
	scaleRoundInt8AVX2Asm(dst[:len(x)], x, inv, zp, lo, hi)
}

// dequantRowsF32AVX2Asm is DequantRowsF32 for m, n ≥ 1 with bias either
// a pointer to n values or nil and mask &tailMask32[8-n%8].
//
//go:noescape
func dequantRowsF32AVX2Asm(dst *float32, acc *int32, m, n int, corr *int32, scale, bias *float32, mask *int32)

func dequantRowsF32AVX2(dst []float32, acc []int32, m, n int, corr []int32, scale, bias []float32) {
	var b *float32
	if bias != nil {
		b = &bias[0]
	}
	dequantRowsF32AVX2Asm(&dst[0], &acc[0], m, n, &corr[0], &scale[0], b, &tailMask32[8-n%8])
}

//go:noescape
func mulAccOffsetInt8AVX2Asm(acc []int32, w, x []int8, zp int32)

func mulAccOffsetInt8AVX2(acc []int32, w, x []int8, zp int32) {
	n := len(acc)
	w, x = w[:n], x[:n]
	full := n &^ 7
	if full > 0 {
		mulAccOffsetInt8AVX2Asm(acc[:full], w[:full], x[:full], zp)
	}
	if full < n {
		mulAccOffsetInt8Generic(acc[full:], w[full:], x[full:], zp)
	}
}

var (
	_ = minMaxF32Impls.add("avx2", AVX2, nil, minMaxF32AVX2)
	_ = scaleRoundInt8Impls.add("avx2", AVX2, nil, scaleRoundInt8AVX2)
	_ = dequantRowsF32Impls.add("avx2", AVX2, nil, dequantRowsF32AVX2)
	_ = mulAccOffsetInt8Impls.add("avx2", AVX2, nil, mulAccOffsetInt8AVX2)
)

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
