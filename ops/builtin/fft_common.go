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

// realFFT is the forward DFT of n real values (n a power of two ≥ 2)
// through a complex transform of half the length: the even samples as
// real parts and the odd ones as imaginary parts, then one pass that
// separates the two half transforms and combines them,
//
//	E[k] = (Z[k] + conj Z[m−k])/2   O[k] = (Z[k] − conj Z[m−k])/(2i)
//	X[k] = E[k] + e^(−2πi·k/n)·O[k],  k = 0 … m = n/2,
//
// which halves the work of transforming real rows as complex ones with
// zero imaginary parts.
type realFFT struct {
	n        int
	half     *fft
	cos, sin []float64 // e^(−2πi·k/n), k = 0 … n/2
}

// newRealFFT makes the tables of the length-n real transform.
func newRealFFT(n int) (*realFFT, error) {
	if n < 2 || !isPowerOfTwo(n) || n > maxFFTLength {
		return nil, fmt.Errorf("FFT length %d is not a power of two in [2, %d]", n, maxFFTLength)
	}
	half, err := newFFT(n / 2)
	if err != nil {
		return nil, err
	}
	f := &realFFT{n: n, half: half, cos: make([]float64, n/2+1), sin: make([]float64, n/2+1)}
	for k := range f.cos {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.cos[k], f.sin[k] = c, s
	}
	return f, nil
}

// transform writes the n/2+1 non-redundant bins of x[:n]'s DFT to out,
// interleaved (re, im). zr and zi are scratch of n/2 values each; none of
// the slices may overlap.
func (f *realFFT) transform(x, zr, zi, out []float64) {
	m := f.n / 2
	zr, zi, out = zr[:m], zi[:m], out[:2*(m+1)]
	for j := range m {
		zr[j], zi[j] = x[2*j], x[2*j+1]
	}
	f.half.transform(zr, zi)
	for k := 0; k <= m; k++ {
		a, b := k%m, (m-k)%m
		er, ei := 0.5*(zr[a]+zr[b]), 0.5*(zi[a]-zi[b])
		or, oi := 0.5*(zi[a]+zi[b]), 0.5*(zr[b]-zr[a])
		wr, wi := f.cos[k], f.sin[k]
		out[2*k] = er + (float64(wr*or) - float64(wi*oi))
		out[2*k+1] = ei + (float64(wr*oi) + float64(wi*or))
	}
}
