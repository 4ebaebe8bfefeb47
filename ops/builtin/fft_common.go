package builtin

import (
	"fmt"
	"math"
	"math/bits"
)

// This file holds the discrete Fourier transform shared by RFFT2D and the
// AudioSpectrogram custom operator. TensorFlow Lite computes both with
// Ooura's fft2d package in float64 (rdft2d and rdft), whatever the
// tensors' type, and converts the result once at the end; so does this,
// with its own radix-2 transform: in float64 the two agree to a few units
// in the last place of a float64, far below what survives the conversion
// to float32. The transforms are unnormalised with TensorFlow's sign:
//
//	X[k] = Σ_j x[j]·e^(−2πi·jk/n).
//
// Tables are made at Prepare (newFFT); the transforms allocate nothing.

// maxFFTLength bounds a transform's length. TFLite's fft2d takes any
// power of two that fits an int; tflrun bounds it, since the tables (12
// bytes per point) are made before the interpreter knows whether the
// outputs fit its memory limit. Audio and image transforms stay far below.
const maxFFTLength = 1 << 20

// fft is a radix-2 complex transform of one power-of-two length n with its
// tables: the twiddles e^(−2πi·k/n) for k < n/2 and the bit-reversal
// permutation.
type fft struct {
	n        int
	cos, sin []float64
	rev      []int32
}

// isPowerOfTwo reports whether n is 1, 2, 4, …
func isPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// newFFT makes the tables of the length-n transform; n must be a power of
// two of at most maxFFTLength.
func newFFT(n int) (*fft, error) {
	if !isPowerOfTwo(n) || n > maxFFTLength {
		return nil, fmt.Errorf("FFT length %d is not a power of two in [1, %d]", n, maxFFTLength)
	}
	f := &fft{n: n, cos: make([]float64, n/2), sin: make([]float64, n/2), rev: make([]int32, n)}
	for k := range f.cos {
		// Each twiddle from its own angle, not by recurrence, so the
		// error does not grow along the table.
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.cos[k], f.sin[k] = c, s
	}
	shift := uint(bits.UintSize - bits.TrailingZeros(uint(n)))
	for i := range f.rev {
		if n > 1 {
			f.rev[i] = int32(bits.Reverse(uint(i)) >> shift)
		}
	}
	return f, nil
}

// transform replaces (re, im), each of length n, by its forward DFT. The
// butterflies keep every product apart from its sum (explicit float64
// conversions forbid fused multiply-adds), so every platform computes the
// same bits.
func (f *fft) transform(re, im []float64) {
	n := f.n
	re, im = re[:n], im[:n]
	for i, r := range f.rev {
		if j := int(r); i < j {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		half, step := size/2, n/size
		for start := 0; start < n; start += size {
			for k := 0; k < half; k++ {
				wr, wi := f.cos[k*step], f.sin[k*step]
				a, b := start+k, start+k+half
				tr := float64(wr*re[b]) - float64(wi*im[b])
				ti := float64(wr*im[b]) + float64(wi*re[b])
				re[b], im[b] = re[a]-tr, im[a]-ti
				re[a], im[a] = re[a]+tr, im[a]+ti
			}
		}
	}
}
