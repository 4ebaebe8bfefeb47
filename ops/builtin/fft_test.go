package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the radix-4 transforms against the radix-2 ones they replaced
// (fft_ref_test.go), in float64, at every power-of-two length to 4096,
// and benchmarks of the two.

// fftDiff returns the largest |a−b| over bins (each bin's complex
// difference), relative to the largest |b|, and the largest |a−b|/|b|
// over the bins with |b| at least 1e-3 of the largest.
func fftDiff(ar, ai, br, bi []float64) (norm, elem float64) {
	var big float64
	for i := range br {
		big = max(big, math.Hypot(br[i], bi[i]))
	}
	if big == 0 {
		big = 1
	}
	for i := range br {
		d := math.Hypot(ar[i]-br[i], ai[i]-bi[i])
		norm = max(norm, d/big)
		if m := math.Hypot(br[i], bi[i]); m >= 1e-3*big {
			elem = max(elem, d/m)
		}
	}
	return norm, elem
}

func TestFFTMatchesRadix2(t *testing.T) {
	r := lcg(21)
	for n := 1; n <= 4096; n *= 2 {
		f, err := newFFT(n)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := newRefFFT(n)
		var worstN, worstE float64
		for trial := 0; trial < 8; trial++ {
			re, im := make([]float64, n), make([]float64, n)
			for i := range re {
				re[i], im[i] = float64(r.float(-1, 1)), float64(r.float(-1, 1))
				if trial == 7 {
					// Wide dynamic range: the magnitudes of audio frames.
					re[i] *= math.Exp2(float64(r.intn(-30, 30)))
					im[i] *= math.Exp2(float64(r.intn(-30, 30)))
				}
			}
			wr, wi := append([]float64(nil), re...), append([]float64(nil), im...)
			f.transform(re, im)
			g.transform(wr, wi)
			nd, ed := fftDiff(re, im, wr, wi)
			worstN, worstE = max(worstN, nd), max(worstE, ed)
		}
		t.Logf("complex n=%4d: max |new−old|/max|old| %.3g, max per-bin rel %.3g", n, worstN, worstE)
		// Both are within a few ulps·log₂n of the exact transform.
		if lim := 2e-16 * float64(4+bitsLen(n)); worstN > lim {
			t.Errorf("complex n=%d: relative difference %g exceeds %g", n, worstN, lim)
		}
	}
}

func TestRealFFTMatchesRadix2(t *testing.T) {
	r := lcg(23)
	for n := 2; n <= 4096; n *= 2 {
		f, err := newRealFFT(n)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := newRefRealFFT(n)
		var worstN, worstE float64
		for trial := 0; trial < 8; trial++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(r.float(-1, 1))
				if trial == 7 {
					x[i] *= math.Exp2(float64(r.intn(-30, 30)))
				}
			}
			zr, zi := make([]float64, n/2), make([]float64, n/2)
			got, want := make([]float64, n+2), make([]float64, n+2)
			f.transform(x, zr, zi, got)
			g.transform(x, zr, zi, want)
			gr, gi, wr, wi := make([]float64, n/2+1), make([]float64, n/2+1), make([]float64, n/2+1), make([]float64, n/2+1)
			for k := range gr {
				gr[k], gi[k], wr[k], wi[k] = got[2*k], got[2*k+1], want[2*k], want[2*k+1]
			}
			nd, ed := fftDiff(gr, gi, wr, wi)
			worstN, worstE = max(worstN, nd), max(worstE, ed)
			if got[1] != 0 || got[n+1] != 0 {
				t.Fatalf("n=%d: imaginary parts of bins 0 and n/2 are %g and %g, want 0", n, got[1], got[n+1])
			}
		}
		t.Logf("real n=%4d: max |new−old|/max|old| %.3g, max per-bin rel %.3g", n, worstN, worstE)
		if lim := 2e-16 * float64(4+bitsLen(n)); worstN > lim {
			t.Errorf("real n=%d: relative difference %g exceeds %g", n, worstN, lim)
		}
	}
}

// TestRealFFTImpulses checks exact cases: a unit impulse at sample j has
// the transform e^(−2πi·jk/n), and a constant row only a DC bin.
func TestRealFFTImpulses(t *testing.T) {
	for _, n := range []int{2, 4, 8, 64, 512, 2048} {
		f, _ := newRealFFT(n)
		x, zr, zi, out := make([]float64, n), make([]float64, n/2), make([]float64, n/2), make([]float64, n+2)
		for j := 0; j < n; j += max(1, n/8) + 1 {
			clear(x)
			x[j] = 1
			f.transform(x, zr, zi, out)
			for k := 0; k <= n/2; k++ {
				s, c := math.Sincos(-2 * math.Pi * float64(j*k%n) / float64(n))
				if d := math.Hypot(out[2*k]-c, out[2*k+1]-s); d > 1e-15*float64(bitsLen(n)+1) {
					t.Fatalf("n=%d impulse at %d bin %d: (%g, %g), want (%g, %g)", n, j, k, out[2*k], out[2*k+1], c, s)
				}
			}
		}
		for j := range x {
			x[j] = 3
		}
		f.transform(x, zr, zi, out)
		for k := 0; k <= n/2; k++ {
			want := 0.0
			if k == 0 {
				want = 3 * float64(n)
			}
			if out[2*k] != want || out[2*k+1] != 0 {
				t.Fatalf("n=%d constant row bin %d: (%g, %g), want (%g, 0)", n, k, out[2*k], out[2*k+1], want)
			}
		}
	}
}

func BenchmarkRealFFT512(b *testing.B) {
	const n = 512
	r := lcg(3)
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(r.float(-1, 1))
	}
	zr, zi, out := make([]float64, n/2), make([]float64, n/2), make([]float64, n+2)
	f, _ := newRealFFT(n)
	g, _ := newRefRealFFT(n)
	b.Run("radix2", func(b *testing.B) {
		for b.Loop() {
			g.transform(x, zr, zi, out)
		}
	})
	b.Run("radix4", func(b *testing.B) {
		for b.Loop() {
			f.transform(x, zr, zi, out)
		}
	})
}

// BenchmarkRfft2dYAMNet is YAMNet's RFFT2D node: 96 frames of 512 samples,
// fft_length [1, 512], on one thread. "radix2" is the node's former row
// loop (rows converted to float64, the radix-2 real transform, the result
// rounded to float32), "node" the kernel's Eval.
func BenchmarkRfft2dYAMNet(b *testing.B) {
	const frames, w = 96, 512
	r := lcg(4)
	x := make([]float32, frames*w)
	for i := range x {
		x[i] = r.float(-1, 1)
	}
	n := rfftNode(tensorOf(ops.Float32, []int{frames, 1, w}, x), 1, w)
	k := NewRfft2d()
	if err := prepare(k, n); err != nil {
		b.Fatal(err)
	}
	b.Run("radix2", func(b *testing.B) {
		g, _ := newRefRealFFT(w)
		re, zr, zi, row := make([]float64, w), make([]float64, w/2), make([]float64, w/2), make([]float64, w+2)
		y := ops.View[float32](n.Outputs[0].Data)
		for b.Loop() {
			for s := 0; s < frames; s++ {
				for j := 0; j < w; j++ {
					re[j] = 0
					if j < w {
						re[j] = float64(x[s*w+j])
					}
				}
				g.transform(re, zr, zi, row)
				for i, v := range row {
					y[s*(w+2)+i] = float32(v)
				}
			}
		}
	})
	b.Run("node", func(b *testing.B) {
		for b.Loop() {
			if err := k.Eval(n); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRfft2dMatchesRadix2 runs RFFT2D at YAMNet's shape (96 rows of 512,
// fft_length [1, 512]) and at a two-dimensional one, and compares the
// float32 output with the radix-2 reference rounded once: an element may
// differ by the rounding of float64 results a few ulps apart, never more
// than one float32 ulp (or, for bins near zero, 1e-12 of the largest).
func TestRfft2dMatchesRadix2(t *testing.T) {
	r := lcg(31)
	for _, c := range []struct{ slices, h, w int }{{96, 1, 512}, {3, 8, 64}} {
		x := make([]float32, c.slices*c.h*c.w)
		for i := range x {
			x[i] = r.float(-1, 1)
		}
		n := rfftNode(tensorOf(ops.Float32, []int{c.slices, c.h, c.w}, x), int32(c.h), int32(c.w))
		run(t, NewRfft2d(), n)
		got := ops.View[complex64](n.Outputs[0].Data)
		rows, _ := newRefRealFFT(c.w)
		cols, _ := newRefFFT(c.h)
		ow := c.w/2 + 1
		want := make([]complex128, c.h*ow)
		xr, zr, zi, row := make([]float64, c.w), make([]float64, c.w/2), make([]float64, c.w/2), make([]float64, c.w+2)
		re, im := make([]float64, c.h), make([]float64, c.h)
		diffs, zeroed := 0, 0
		for s := 0; s < c.slices; s++ {
			for y := 0; y < c.h; y++ {
				for j := range xr {
					xr[j] = float64(x[(s*c.h+y)*c.w+j])
				}
				rows.transform(xr, zr, zi, row)
				for k := 0; k < ow; k++ {
					want[y*ow+k] = complex(row[2*k], row[2*k+1])
				}
			}
			for k := 0; k < ow; k++ {
				for y := 0; y < c.h; y++ {
					re[y], im[y] = real(want[y*ow+k]), imag(want[y*ow+k])
				}
				cols.transform(re, im)
				for y := 0; y < c.h; y++ {
					want[y*ow+k] = complex(re[y], im[y])
				}
			}
			var big float64
			for _, v := range want {
				big = max(big, math.Abs(real(v)), math.Abs(imag(v)))
			}
			for i, v := range want {
				g := got[s*len(want)+i]
				for _, p := range [2][2]float64{{float64(real(g)), real(v)}, {float64(imag(g)), imag(v)}} {
					w32 := float32(p[1])
					if float32(p[0]) == w32 {
						continue
					}
					if p[0] == 0 && math.Abs(p[1]) < 1e-12*big {
						// An imaginary part that is 0 by symmetry (row
						// bin n/2): exact here, rounding residue there.
						zeroed++
						continue
					}
					diffs++
					ulp := float64(math.Nextafter32(float32(math.Abs(float64(w32))), float32(math.Inf(1)))) - math.Abs(float64(w32))
					if d := math.Abs(p[0] - float64(w32)); d > ulp && d > 1e-12*big {
						t.Fatalf("%d×%d×%d: slice %d element %d: %v, radix-2 %v", c.slices, c.h, c.w, s, i, g, v)
					}
				}
			}
		}
		t.Logf("%d×%d×%d: of %d float32 values, %d differ from the radix-2 transform's by an ulp, %d are 0 where it left rounding residue", c.slices, c.h, c.w, 2*len(got), diffs, zeroed)
	}
}
