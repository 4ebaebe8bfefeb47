package builtin

import (
	"fmt"
	"math"
	"math/bits"
)

// The transforms fft_common.go had before its radix-4 rewrite: a plain
// iterative radix-2 complex FFT and the real transform on top of it. The
// tests keep them as the reference the new code is measured against (its
// float64 differences from them) and as the baseline of the benchmarks.

// refFFT is a radix-2 complex transform of one power-of-two length n with its
// tables: the twiddles e^(−2πi·k/n) for k < n/2 and the bit-reversal
// permutation.
type refFFT struct {
	n        int
	cos, sin []float64
	rev      []int32
}

// newRefFFT makes the tables of the length-n transform; n must be a power of
// two of at most maxFFTLength.
func newRefFFT(n int) (*refFFT, error) {
	if !isPowerOfTwo(n) || n > maxFFTLength {
		return nil, fmt.Errorf("FFT length %d is not a power of two in [1, %d]", n, maxFFTLength)
	}
	f := &refFFT{n: n, cos: make([]float64, n/2), sin: make([]float64, n/2), rev: make([]int32, n)}
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
func (f *refFFT) transform(re, im []float64) {
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

// refRealFFT is the forward DFT of n real values (n a power of two ≥ 2)
// through a complex transform of half the length: the even samples as
// real parts and the odd ones as imaginary parts, then one pass that
// separates the two half transforms and combines them,
//
//	E[k] = (Z[k] + conj Z[m−k])/2   O[k] = (Z[k] − conj Z[m−k])/(2i)
//	X[k] = E[k] + e^(−2πi·k/n)·O[k],  k = 0 … m = n/2,
//
// which halves the work of transforming real rows as complex ones with
// zero imaginary parts.
type refRealFFT struct {
	n        int
	half     *refFFT
	cos, sin []float64 // e^(−2πi·k/n), k = 0 … n/2
}

// newRefRealFFT makes the tables of the length-n real transform.
func newRefRealFFT(n int) (*refRealFFT, error) {
	if n < 2 || !isPowerOfTwo(n) || n > maxFFTLength {
		return nil, fmt.Errorf("FFT length %d is not a power of two in [2, %d]", n, maxFFTLength)
	}
	half, err := newRefFFT(n / 2)
	if err != nil {
		return nil, err
	}
	f := &refRealFFT{n: n, half: half, cos: make([]float64, n/2+1), sin: make([]float64, n/2+1)}
	for k := range f.cos {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.cos[k], f.sin[k] = c, s
	}
	return f, nil
}

// transform writes the n/2+1 non-redundant bins of x[:n]'s DFT to out,
// interleaved (re, im). zr and zi are scratch of n/2 values each; none of
// the slices may overlap.
func (f *refRealFFT) transform(x, zr, zi, out []float64) {
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
