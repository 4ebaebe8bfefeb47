package builtin

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tflrun/tflrun/arch"
)

// This file holds the discrete Fourier transform shared by RFFT2D and the
// AudioSpectrogram custom operator. TensorFlow Lite computes both with
// Ooura's fft2d package in float64 (rdft2d and rdft), whatever the
// tensors' type, and converts the result once at the end; so does this,
// with its own radix-4 transform: in float64 the two agree to a few units
// in the last place of a float64, far below what survives the conversion
// to float32. The transforms are unnormalised with TensorFlow's sign:
//
//	X[k] = Σ_j x[j]·e^(−2πi·jk/n).
//
// Tables are made at Prepare (newFFT); the transforms allocate nothing.

// maxFFTLength bounds a transform's length. TFLite's fft2d takes any
// power of two that fits an int; tflrun bounds it, since the tables
// (about 20 bytes per point) are made before the interpreter knows whether the
// outputs fit its memory limit. Audio and image transforms stay far below.
const maxFFTLength = 1 << 20

// fft is a complex transform of one power-of-two length n with its
// tables: the bit-reversal permutation and, for each radix-4 pass, its
// twiddles in the order the pass reads them.
//
// The transform is decimation in time on bit-reversed input: a first pass
// without multiplications (radix 2 when log₂ n is odd, else radix 4 with
// quarter 1), then radix-4 passes of quarter h = 2 or 4, ×4 …, n/4. A
// pass combines, in each block of 4h values, four transforms of length h
// (those of the samples ≡ 0, 2, 1, 3 mod 4 within the block's
// decimation, in that order) into one of length 4h:
//
//	u0 = x0[k]  u1 = W²ᵏ·x1[k]  u2 = Wᵏ·x2[k]  u3 = W³ᵏ·x3[k],  W = e^(−2πi/4h)
//	y0 = (u0+u1) + (u2+u3)      y2 = (u0+u1) − (u2+u3)
//	y1 = (u0−u1) − i(u2−u3)     y3 = (u0−u1) + i(u2−u3)
//
// which is two radix-2 passes with three complex multiplications instead
// of four. arch.FFTRadix4F64 runs those passes (with AVX2 on amd64).
type fft struct {
	n      int
	rev    []int32
	first4 bool      // the first pass is radix 4 (log₂ n even and ≥ 2)
	passes []fftPass // the radix-4 passes after the first
	tw     []float64 // all passes' twiddles
}

// fftPass is one radix-4 pass: quarter h, its twiddles Wᵏ, W²ᵏ, W³ᵏ for
// k < h in arch.FFTRadix4F64's layout.
type fftPass struct {
	h  int
	tw []float64
}

// isPowerOfTwo reports whether n is 1, 2, 4, …
func isPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// twiddle returns e^(−2πi·j/n), from its own angle (not by recurrence, so
// the error does not grow along a table).
func twiddle(j, n int) (c, s float64) {
	s, c = math.Sincos(-2 * math.Pi * float64(j) / float64(n))
	return c, s
}

// newFFT makes the tables of the length-n transform; n must be a power of
// two of at most maxFFTLength.
func newFFT(n int) (*fft, error) {
	if !isPowerOfTwo(n) || n > maxFFTLength {
		return nil, fmt.Errorf("FFT length %d is not a power of two in [1, %d]", n, maxFFTLength)
	}
	log2 := bits.TrailingZeros(uint(n))
	f := &fft{n: n, rev: make([]int32, n), first4: log2 >= 2 && log2%2 == 0}
	shift := uint(bits.UintSize - log2)
	for i := range f.rev {
		if n > 1 {
			f.rev[i] = int32(bits.Reverse(uint(i)) >> shift)
		}
	}
	h := 2 // the quarter of the first radix-4 pass after the first pass
	if f.first4 {
		h = 4
	}
	total := 0
	for q := h; 4*q <= n; q *= 4 {
		total += q
	}
	f.tw = make([]float64, 6*total)
	off := 0
	for ; 4*h <= n; h *= 4 {
		p := fftPass{h: h, tw: f.tw[off : off+6*h]}
		g := arch.FFTTwiddleGroup(h)
		for k := 0; k < h; k++ {
			t := p.tw[6*(k/g)*g+k%g:]
			for j := 0; j < 3; j++ {
				// W^((j+1)k): real parts at t[2jg], imaginary at t[(2j+1)g].
				t[2*j*g], t[(2*j+1)*g] = twiddle((j+1)*k, 4*h)
			}
		}
		f.passes = append(f.passes, p)
		off += 6 * h
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
	if f.first4 {
		firstRadix4(re, im)
	} else if n >= 2 {
		firstRadix2(re, im)
	}
	f.passesAfterFirst(re, im)
}

// passesAfterFirst runs the radix-4 passes after the first on (re, im),
// of length n.
func (f *fft) passesAfterFirst(re, im []float64) {
	re, im = re[:f.n], im[:f.n]
	for _, p := range f.passes {
		arch.FFTRadix4F64(re, im, p.h, p.tw)
	}
}

// firstRadix2 is the radix-2 pass of length-2 blocks: twiddle 1.
func firstRadix2(re, im []float64) {
	im = im[:len(re)]
	for j := 0; j+1 < len(re); j += 2 {
		ar, ai, br, bi := re[j], im[j], re[j+1], im[j+1]
		re[j], im[j] = ar+br, ai+bi
		re[j+1], im[j+1] = ar-br, ai-bi
	}
}

// firstRadix4 is the radix-4 pass of quarter 1: every twiddle is 1.
func firstRadix4(re, im []float64) {
	im = im[:len(re)]
	for j := 0; j+3 < len(re); j += 4 {
		x0r, x0i := re[j], im[j]
		x1r, x1i := re[j+1], im[j+1]
		x2r, x2i := re[j+2], im[j+2]
		x3r, x3i := re[j+3], im[j+3]
		ar, ai := x0r+x1r, x0i+x1i
		br, bi := x0r-x1r, x0i-x1i
		cr, ci := x2r+x3r, x2i+x3i
		dr, di := x2r-x3r, x2i-x3i
		re[j], im[j] = ar+cr, ai+ci
		re[j+2], im[j+2] = ar-cr, ai-ci
		re[j+1], im[j+1] = br+di, bi-dr
		re[j+3], im[j+3] = br-di, bi+dr
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
// zero imaginary parts. Bins k and m−k share their terms: with
// Wₖ = e^(−2πi·k/n) = (c, s), W_(m−k) = (−c, s), and S, D the sums and
// differences of Z[k] and Z[m−k],
//
//	P = c·Si + s·Dr   Q = s·Si − c·Dr
//	X[k] = ((Sr + P) + i(Di + Q))/2   X[m−k] = ((Sr − P) + i(Q − Di))/2.
type realFFT struct {
	n        int
	half     *fft
	cos, sin []float64 // e^(−2πi·k/n), k < n/4
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
	f := &realFFT{n: n, half: half, cos: make([]float64, n/4), sin: make([]float64, n/4)}
	for k := range f.cos {
		f.cos[k], f.sin[k] = twiddle(k, n)
	}
	return f, nil
}

// transform writes the n/2+1 non-redundant bins of x[:n]'s DFT to out,
// interleaved (re, im). zr and zi are scratch of n/2 values each; none of
// the slices may overlap.
func (f *realFFT) transform(x, zr, zi, out []float64) {
	loadRealFFT(f, x, zr, zi)
	f.half.passesAfterFirst(zr, zi)
	splitRealFFT(f, zr, zi, out)
}

// loadRealFFT is the transform's first step: x[:n] as n/2 complex values
// (zr, zi) in bit-reversed order, through the first pass.
func loadRealFFT[T float32 | float64](f *realFFT, x []T, zr, zi []float64) {
	m := f.n / 2
	x, zr, zi = x[:2*m], zr[:m], zi[:m]
	h := f.half
	switch {
	case m == 1:
		zr[0], zi[0] = float64(x[0]), float64(x[1])
	case h.first4:
		// z[j+1], z[j+2], z[j+3] are samples rev[j] + m/2, + m/4, + 3m/4:
		// one table entry per block.
		q := m / 4
		xa, xb, xc, xd := x[:2*q], x[2*q:4*q], x[4*q:6*q], x[6*q:8*q]
		for j := 0; j+3 < m; j += 4 {
			p := 2 * int(h.rev[j])
			x0r, x0i := float64(xa[p]), float64(xa[p+1])
			x1r, x1i := float64(xc[p]), float64(xc[p+1])
			x2r, x2i := float64(xb[p]), float64(xb[p+1])
			x3r, x3i := float64(xd[p]), float64(xd[p+1])
			ar, ai := x0r+x1r, x0i+x1i
			br, bi := x0r-x1r, x0i-x1i
			cr, ci := x2r+x3r, x2i+x3i
			dr, di := x2r-x3r, x2i-x3i
			zr[j], zi[j] = ar+cr, ai+ci
			zr[j+2], zi[j+2] = ar-cr, ai-ci
			zr[j+1], zi[j+1] = br+di, bi-dr
			zr[j+3], zi[j+3] = br-di, bi+dr
		}
	default:
		// Radix 2 first: z[j+1] is sample rev[j] + m/2.
		xa, xb := x[:m], x[m:2*m]
		for j := 0; j+1 < m; j += 2 {
			p := 2 * int(h.rev[j])
			ar, ai := float64(xa[p]), float64(xa[p+1])
			br, bi := float64(xb[p]), float64(xb[p+1])
			zr[j], zi[j] = ar+br, ai+bi
			zr[j+1], zi[j+1] = ar-br, ai-bi
		}
	}
}

// splitRealFFT is the transform's last step: the bins from the half
// transform (zr, zi), written to out as (re, im) pairs.
func splitRealFFT[T float32 | float64](f *realFFT, zr, zi []float64, out []T) {
	m := f.n / 2
	zr, zi, out = zr[:m], zi[:m], out[:2*(m+1)]
	// Bins 0 and m (Z[0] alone) and, for m ≥ 2, m/2 (Z[m/2] alone, W =
	// −i) are exact.
	out[0], out[1] = T(zr[0]+zi[0]), 0
	out[2*m], out[2*m+1] = T(zr[0]-zi[0]), 0
	if m < 2 {
		return
	}
	q := m / 2
	out[2*q], out[2*q+1] = T(zr[q]), T(-zi[q])
	cos, sin := f.cos[:q], f.sin[:q]
	zra, zia := zr[:q], zi[:q]        // Z[k], k < q
	zrb, zib := zr[q:m], zi[q:m]      // Z[m−k] is zrb[q−k]
	lo, hi := out[:2*q], out[2*q:2*m] // bins k and m−k (hi[2(q−k)])
	for k := 1; k < q; k++ {
		j := q - k
		a, b := zra[k], zrb[j]
		ai, bi := zia[k], zib[j]
		sr, dr := a+b, a-b
		si, di := ai+bi, ai-bi
		c, s := cos[k], sin[k]
		p := float64(c*si) + float64(s*dr)
		qq := float64(s*si) - float64(c*dr)
		lo[2*k], lo[2*k+1] = T(0.5*(sr+p)), T(0.5*(di+qq))
		hi[2*j], hi[2*j+1] = T(0.5*(sr-p)), T(0.5*(qq-di))
	}
}
