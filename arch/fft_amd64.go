//go:build !purego

package arch

// The amd64 FFTRadix4F64 kernel (fft_avx2_amd64.s), with the signature
// and contract of fftRadix4F64Generic for quarters h that are multiples
// of 4 (FFTRadix4F64 sends smaller ones to the portable code) and
// len(re) > 0.

//go:noescape
func fftRadix4F64AVX2(re, im []float64, h int, tw []float64)

var _ = fftRadix4F64Impls.add("avx2", AVX2, nil, fftRadix4F64AVX2)
