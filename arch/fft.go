package arch

import "fmt"

// One radix-4 pass of a float64 complex FFT: the butterflies of the
// decimation-in-time transform that RFFT2D and AudioSpectrogram run
// (ops/builtin/fft_common.go). Portable code in fft_generic.go, the AVX2
// twin in fft_avx2_amd64.s.

var (
	fftRadix4F64      func(re, im []float64, h int, tw []float64)
	fftRadix4F64Impls = newImpls("FFTRadix4F64", &fftRadix4F64, fftRadix4F64Generic)
)

// FFTTwiddleGroup is how many bins FFTRadix4F64's twiddle table groups
// for a pass of quarter h: min(h, 4).
func FFTTwiddleGroup(h int) int { return min(h, 4) }

// FFTRadix4F64 runs one radix-4 pass of quarter h (a power of two) over
// the complex values (re, im): in each block of 4h values, for k < h,
// with x_j = (re, im)[s + j·h + k] and twiddles W1, W2, W3 of bin k,
//
//	u0 = x0  u1 = W2·x1  u2 = W1·x2  u3 = W3·x3
//	x0 ← (u0+u1) + (u2+u3)   x2 ← (u0+u1) − (u2+u3)
//	x1 ← (u0−u1) − i(u2−u3)  x3 ← (u0−u1) + i(u2−u3)
//
// where W·x = (Wr·xr − Wi·xi, Wr·xi + Wi·xr) with each product and sum
// rounded to float64 on its own (no fused multiply-add), so every
// implementation gives the same bits (except which payload a NaN result
// carries when two NaNs meet). len(re) must be a multiple of 4h and
// len(im) at least len(re). tw holds 6h values: for each group of
// g = FFTTwiddleGroup(h) bins from k = k0, the g real parts of W1, then
// the g imaginary parts of W1, then those of W2 and of W3.
func FFTRadix4F64(re, im []float64, h int, tw []float64) {
	n := len(re)
	if h < 1 || h&(h-1) != 0 || n%(4*h) != 0 || len(im) < n || len(tw) < 6*h {
		panic(fmt.Sprintf("arch: FFTRadix4F64 of %d values, quarter %d, %d twiddles", n, h, len(tw)))
	}
	if n == 0 {
		return
	}
	if h < 4 {
		fftRadix4F64Generic(re, im[:n], h, tw[:6*h])
		return
	}
	fftRadix4F64(re, im[:n], h, tw[:6*h])
}
