package arch

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of BilinearF32: the portable code is the four-term sum in
// TFLite's order (checked against a float64 evaluation rounded step by
// step), and every usable implementation gives its bits for lengths
// 0..257 at odd offsets, with the sources ending right before an
// inaccessible page and guard bands around dst, for weights of real
// resizes (products of fractions, 0 and 1 included) and values with NaN,
// ±Inf, ±0 and subnormals.

func bilinearRef(p00, p01, p10, p11 float32, w *[4]float32) float32 {
	r := func(x float64) float64 { return float64(float32(x)) }
	v := r(0 + r(float64(p00)*float64(w[0])))
	v = r(v + r(float64(p01)*float64(w[1])))
	v = r(v + r(float64(p10)*float64(w[2])))
	return float32(v + r(float64(p11)*float64(w[3])))
}

// bilinearSame fails unless got and want hold the same bits, or NaN
// both: where two NaNs meet in a sum, which payload survives depends on
// the operand order the Go compiler chose for the portable code.
func bilinearSame(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			t.Fatalf("%s n=%d element %d: got %v (%#x), want %v (%#x)", what, len(want), i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func TestTwinBilinearF32(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	fracs := []float32{0, 1, 0.5, 0.25, 0.1, 0.9999, 1e-3, 0.3333}
	for _, im := range implsOf(bilinearF32Impls) {
		var tails [4][]float32
		for j := range tails {
			tails[j] = tailF32(t, 257)
		}
		for n := 0; n <= 257; n++ {
			dy, dx := fracs[r.IntN(len(fracs))], fracs[r.IntN(len(fracs))]
			if n%3 == 0 {
				dy, dx = float32(r.Float64()), float32(r.Float64())
			}
			w := &[4]float32{float32((1 - dy) * (1 - dx)), float32((1 - dy) * dx), float32(dy * (1 - dx)), float32(dy * dx)}
			var p [4][]float32
			for j := range p {
				p[j] = genPRelu(r, n)
			}
			want := make([]float32, n)
			bilinearF32Generic(want, p[0], p[1], p[2], p[3], w)
			for i := range want {
				ref := bilinearRef(p[0][i], p[1][i], p[2][i], p[3][i], w)
				if math.Float32bits(ref) != math.Float32bits(want[i]) && !(ref != ref && want[i] != want[i]) {
					t.Fatalf("generic n=%d element %d: %v, reference %v", n, i, want[i], ref)
				}
			}
			off := n % 5
			buf, dst := guardedF32(n, off)
			im.fn(dst, p[0], p[1], p[2], p[3], w)
			checkGuardsF32(t, im.name, buf, guard+off, n)
			bilinearSame(t, im.name, dst, want)
			var q [4][]float32
			for j := range q {
				q[j] = tails[j][257-n:]
				copy(q[j], p[j])
			}
			d := make([]float32, n)
			im.fn(d, q[0], q[1], q[2], q[3], w)
			bilinearSame(t, im.name+" page end", d, want)
		}
	}
	forEachLevel(t, func(t *testing.T) {
		negz := float32(math.Copysign(0, -1))
		p := []float32{negz, 2, float32(math.NaN()), 1e-45, 7}
		w := &[4]float32{0.25, 0.25, 0.25, 0.25}
		got := make([]float32, 1)
		BilinearF32(got, p[0:], p[0:], p[0:], p[0:], w)
		if math.Float32bits(got[0]) != 0 {
			t.Fatalf("BilinearF32 of -0 corners = %v (%#x), want +0", got[0], math.Float32bits(got[0]))
		}
		got = make([]float32, 5)
		want := make([]float32, 5)
		BilinearF32(got, p, p, p, p, w)
		bilinearF32Generic(want, p, p, p, p, w)
		bilinearSame(t, "BilinearF32", got, want)
		BilinearF32(nil, nil, nil, nil, nil, w)
	})
}

// BenchmarkBilinearF32 times every usable implementation on one pixel of
// 21 channels (DeepLab's last resize) and of 256 (a feature pyramid's
// upsampling), as the kernel calls it (go test ./arch -run '^$' -bench
// BilinearF32).
func BenchmarkBilinearF32(b *testing.B) {
	w := &[4]float32{0.1, 0.2, 0.3, 0.4}
	for _, d := range []int{21, 256} {
		var p [4][]float32
		for j := range p {
			p[j] = make([]float32, d)
			for i := range p[j] {
				p[j][i] = float32(i*j) * 0.01
			}
		}
		dst := make([]float32, d)
		for _, im := range implsOf(bilinearF32Impls) {
			b.Run(fmt.Sprintf("%s/%d", im.name, d), func(b *testing.B) {
				for b.Loop() {
					im.fn(dst, p[0], p[1], p[2], p[3], w)
				}
			})
		}
	}
}

// Tests of BilinearU8: the portable code is TFLite's uint8 sum (checked
// against a float64 evaluation rounded step by step, then + 0.5, CVTTSS2SI
// and the low byte), and every usable implementation gives its bytes for
// lengths 0..257 at odd offsets, with the sources ending right before an
// inaccessible page and guard bands around dst, for the weights of real
// resizes (align_corners, half_pixel_centers, whose first taps
// extrapolate: a fraction below 0 and weights below 0 and above 1) and
// bytes crowded at 0 and 255 (sums outside 0..255, whose low byte is
// kept, included).

func bilinearU8Ref(p00, p01, p10, p11 byte, w *[4]float32) byte {
	r := func(x float64) float64 { return float64(float32(x)) }
	v := r(r(float64(p00)*float64(w[0])) + r(float64(p01)*float64(w[1])))
	v = r(v + r(float64(p10)*float64(w[2])))
	v = r(v + r(float64(p11)*float64(w[3])))
	return byte(int32(math.Trunc(r(v + 0.5))))
}

// resizeFracs returns the fractional source positions (input_y − y0 in
// TFLite's ComputeInterpolationValues) of every output coordinate of a
// resize from in to out pixels, with the scale and coordinate of each
// option combination, in float32 as there.
func resizeFracs(in, out int, alignCorners, halfPixel bool) []float32 {
	scale := float32(in) / float32(out)
	if alignCorners && out > 1 {
		scale = float32(in-1) / float32(out-1)
	}
	fr := make([]float32, out)
	for i := range fr {
		var v float32
		if halfPixel {
			v = float32((float32(i)+0.5)*scale) - 0.5
		} else {
			v = float32(i) * scale
		}
		lo := max(float32(math.Floor(float64(v))), 0)
		fr[i] = v - lo
	}
	return fr
}

// bilinearU8Weights is the weights of a pixel at fractions dy, dx as the
// uint8 kernel forms them.
func bilinearU8Weights(dy, dx float32) *[4]float32 {
	return &[4]float32{float32((1 - dy) * (1 - dx)), float32((1 - dy) * dx), float32(dy * (1 - dx)), float32(dy * dx)}
}

func genU8(r *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		switch r.IntN(4) {
		case 0:
			p[i] = 0
		case 1:
			p[i] = 255
		default:
			p[i] = byte(r.IntN(256))
		}
	}
	return p
}

func TestTwinBilinearU8(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	// Fractions of real resizes: 33 → 513 (DeepLab) in every option
	// combination (half-pixel centres start at −0.46…), 7 → 3 down, and
	// a few of the exact ones.
	var fracs []float32
	for _, c := range [][2]int{{33, 513}, {7, 3}, {5, 17}, {4, 9}} {
		fracs = append(fracs, resizeFracs(c[0], c[1], false, false)...)
		fracs = append(fracs, resizeFracs(c[0], c[1], true, false)...)
		fracs = append(fracs, resizeFracs(c[0], c[1], false, true)...)
	}
	fracs = append(fracs, 0, 1, 0.5, 0.25, -0.25, -0.4375)
	neg := 0
	for _, f := range fracs {
		if f < 0 {
			neg++
		}
	}
	if neg == 0 {
		t.Fatal("no negative fraction among the half-pixel resizes")
	}
	weights := func(n int) *[4]float32 {
		switch {
		case n%17 == 5:
			// Far outside a resize's weights, within the contract:
			// sums of thousands, whose low bytes are kept.
			return &[4]float32{float32(r.Float64()*4000 - 2000), float32(r.Float64()*4000 - 2000), float32(r.Float64() * 100), -7}
		case n%3 == 0:
			return bilinearU8Weights(float32(r.Float64()), float32(r.Float64()))
		}
		return bilinearU8Weights(fracs[r.IntN(len(fracs))], fracs[r.IntN(len(fracs))])
	}
	const guardU8 = 64
	for _, im := range implsOf(bilinearU8Impls) {
		var tails [4][]byte
		for j := range tails {
			tails[j] = tailBytes(t, 257)
		}
		for n := 0; n <= 257; n++ {
			w := weights(n)
			var p [4][]byte
			for j := range p {
				p[j] = genU8(r, n)
			}
			if n%11 == 0 {
				// Uniform corners: 0 or 255 everywhere.
				v := byte(255 * (n / 11 % 2))
				for j := range p {
					for i := range p[j] {
						p[j][i] = v
					}
				}
			}
			want := make([]byte, n)
			bilinearU8Generic(want, p[0], p[1], p[2], p[3], w)
			for i := range want {
				if ref := bilinearU8Ref(p[0][i], p[1][i], p[2][i], p[3][i], w); ref != want[i] {
					t.Fatalf("generic n=%d element %d (%d %d %d %d, w %v): %d, reference %d", n, i, p[0][i], p[1][i], p[2][i], p[3][i], *w, want[i], ref)
				}
			}
			off := n % 5
			buf := make([]byte, n+off+2*guardU8)
			for i := range buf {
				buf[i] = 0xa5
			}
			dst := buf[guardU8+off : guardU8+off+n : guardU8+off+n]
			im.fn(dst, p[0], p[1], p[2], p[3], w)
			for i, v := range buf {
				if (i < guardU8+off || i >= guardU8+off+n) && v != 0xa5 {
					t.Fatalf("%s n=%d: byte %d outside the destination written", im.name, n, i-guardU8-off)
				}
			}
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s n=%d w=%v:\n got %v\nwant %v", im.name, n, *w, dst, want)
			}
			var q [4][]byte
			for j := range q {
				q[j] = tails[j][257-n:]
				copy(q[j], p[j])
			}
			d := make([]byte, n)
			im.fn(d, q[0], q[1], q[2], q[3], w)
			if !bytes.Equal(d, want) {
				t.Fatalf("%s page end n=%d w=%v:\n got %v\nwant %v", im.name, n, *w, d, want)
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		// Half-pixel extrapolation at a corner (both fractions below 0,
		// so all four corners are the same pixel): the weights sum to 1
		// and 255 stays 255, 0 stays 0.
		fr := resizeFracs(33, 513, false, true)
		for _, v := range []byte{0, 1, 128, 254, 255} {
			p := bytes.Repeat([]byte{v}, 21)
			got := make([]byte, 21)
			BilinearU8(got, p, p, p, p, bilinearU8Weights(fr[0], fr[1]))
			for i, g := range got {
				if g != v {
					t.Fatalf("BilinearU8 of %d at fractions %v, %v: channel %d = %d", v, fr[0], fr[1], i, g)
				}
			}
		}
		BilinearU8(nil, nil, nil, nil, nil, &[4]float32{1, 0, 0, 0})
	})
}

// BenchmarkBilinearU8 times every usable implementation on one pixel of
// 1, 3, 4, 8, 16, 21 (DeepLab's last resize), 64 and 256 channels, as the
// kernel calls it (go test ./arch -run '^$' -bench BilinearU8).
func BenchmarkBilinearU8(b *testing.B) {
	w := bilinearU8Weights(0.3, 0.7)
	for _, d := range []int{1, 3, 4, 8, 16, 21, 64, 256} {
		var p [4][]byte
		for j := range p {
			p[j] = make([]byte, d)
			for i := range p[j] {
				p[j][i] = byte(i*j + 3*i)
			}
		}
		dst := make([]byte, d)
		for _, im := range implsOf(bilinearU8Impls) {
			b.Run(fmt.Sprintf("%s/%d", im.name, d), func(b *testing.B) {
				b.SetBytes(int64(d))
				for b.Loop() {
					im.fn(dst, p[0], p[1], p[2], p[3], w)
				}
			})
		}
	}
}

// resizeTaps returns the source columns and fractions of a resize from
// in to out pixels as TFLite's ComputeInterpolationValues forms them.
func resizeTaps(in, out int, alignCorners, halfPixel bool) (lo, hi []int, frac []float32) {
	frac = resizeFracs(in, out, alignCorners, halfPixel)
	scale := float32(in) / float32(out)
	if alignCorners && out > 1 {
		scale = float32(in-1) / float32(out-1)
	}
	for i := range frac {
		var v float32
		if halfPixel {
			v = float32((float32(i)+0.5)*scale) - 0.5
		} else {
			v = float32(i) * scale
		}
		lo = append(lo, max(int(math.Floor(float64(v))), 0))
		hi = append(hi, min(int(math.Ceil(float64(v))), in-1))
	}
	return lo, hi, frac
}

// TestTwinBilinearRowU8: the portable row is BilinearU8's reference at
// every column with the weights formed from fy and fx, and every usable
// implementation gives its bytes for real resizes (every option, up and
// down) of depths 1..70 and random taps, with the rows ending right before
// an inaccessible page and guard bands around dst.
func TestTwinBilinearRowU8(t *testing.T) {
	r := rand.New(rand.NewPCG(85, 86))
	const guardU8 = 64
	for _, im := range implsOf(bilinearRowU8Impls) {
		for trial := range 400 {
			d := trial%70 + 1
			inW, outW := r.IntN(12)+1, r.IntN(30)+1
			ac, hp := trial%3 == 1, trial%3 == 2
			lo, hi, fx := resizeTaps(inW, outW, ac, hp)
			if trial%10 == 9 {
				// Arbitrary taps and fractions (within the contract).
				for x := range fx {
					lo[x], hi[x], fx[x] = r.IntN(inW), r.IntN(inW), float32(r.Float64()*6-3)
				}
			}
			fys := resizeFracs(r.IntN(12)+1, r.IntN(30)+1, ac, hp)
			fy := fys[r.IntN(len(fys))]
			if trial%5 == 0 {
				fy = fys[0] // negative with half-pixel centres upsampling
			}
			tp, err := NewBilinearTaps(lo, hi, fx, d)
			if err != nil {
				t.Fatal(err)
			}
			row0, row1 := tailBytes(t, inW*d), tailBytes(t, inW*d)
			copy(row0, genU8(r, inW*d))
			copy(row1, genU8(r, inW*d))
			n := outW * d
			want := make([]byte, n)
			bilinearRowU8Generic(want, row0, row1, tp, fy)
			for x := range fx {
				w := &[4]float32{float32((1 - fy) * (1 - fx[x])), float32((1 - fy) * fx[x]), float32(fy * (1 - fx[x])), float32(fy * fx[x])}
				for c := range d {
					l, h := lo[x]*d+c, hi[x]*d+c
					if ref := bilinearU8Ref(row0[l], row0[h], row1[l], row1[h], w); want[x*d+c] != ref {
						t.Fatalf("generic trial %d column %d channel %d: %d, reference %d", trial, x, c, want[x*d+c], ref)
					}
				}
			}
			off := trial % 5
			buf := make([]byte, n+off+2*guardU8)
			for i := range buf {
				buf[i] = 0xa5
			}
			dst := buf[guardU8+off : guardU8+off+n : guardU8+off+n]
			im.fn(dst, row0, row1, tp, fy)
			for i, v := range buf {
				if (i < guardU8+off || i >= guardU8+off+n) && v != 0xa5 {
					t.Fatalf("%s trial %d (depth %d): byte %d outside the destination written", im.name, trial, d, i-guardU8-off)
				}
			}
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s trial %d (%d→%d depth %d, fy %v):\n got %v\nwant %v", im.name, trial, inW, outW, d, fy, dst, want)
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		tp, err := NewBilinearTaps(nil, nil, nil, 3)
		if err != nil || tp.Len() != 0 {
			t.Fatalf("empty taps: %v, %v", tp, err)
		}
		BilinearRowU8(nil, nil, nil, tp, 0.5)
	})
	for _, c := range []struct {
		lo, hi []int
		fx     []float32
		d      int
	}{
		{[]int{0}, []int{0, 1}, []float32{0}, 1},
		{[]int{0}, []int{0}, []float32{0}, 0},
		{[]int{-1}, []int{0}, []float32{0}, 4},
		{[]int{0}, []int{1 << 29}, []float32{0}, 4},
	} {
		if _, err := NewBilinearTaps(c.lo, c.hi, c.fx, c.d); err == nil {
			t.Errorf("NewBilinearTaps(%v, %v, %v, %d) succeeded", c.lo, c.hi, c.fx, c.d)
		}
	}
}

// BenchmarkBilinearRowU8 times every usable implementation on one output
// row of DeepLab's last resize (33 → 513 columns of 21 channels) and of a
// 64-channel one, against BilinearU8 called per column as the kernel did
// (go test ./arch -run '^$' -bench BilinearRowU8).
func BenchmarkBilinearRowU8(b *testing.B) {
	for _, d := range []int{8, 21, 64} {
		lo, hi, fx := resizeTaps(33, 513, false, false)
		tp, err := NewBilinearTaps(lo, hi, fx, d)
		if err != nil {
			b.Fatal(err)
		}
		row0, row1 := make([]byte, 33*d), make([]byte, 33*d)
		for i := range row0 {
			row0[i], row1[i] = byte(i*7), byte(i*13)
		}
		dst := make([]byte, 513*d)
		const fy = 0.3125
		for _, im := range implsOf(bilinearRowU8Impls) {
			b.Run(fmt.Sprintf("row/%s/%d", im.name, d), func(b *testing.B) {
				b.SetBytes(int64(len(dst)))
				for b.Loop() {
					im.fn(dst, row0, row1, tp, fy)
				}
			})
		}
		b.Run(fmt.Sprintf("percolumn/%s/%d", Current(), d), func(b *testing.B) {
			b.SetBytes(int64(len(dst)))
			var w [4]float32
			for b.Loop() {
				for x, f := range fx {
					w = [4]float32{float32((1 - fy) * (1 - f)), float32((1 - fy) * f), float32(fy * (1 - f)), float32(fy * f)}
					BilinearU8(dst[x*d:x*d+d], row0[lo[x]*d:], row0[hi[x]*d:], row1[lo[x]*d:], row1[hi[x]*d:], &w)
				}
			}
		})
	}
}

// TestTwinBilinearRowF32: the portable row is BilinearF32's reference at
// every column with the weights formed from fy and fx, and every usable
// implementation gives its bits for real resizes (every option, up and
// down) of depths 1..70 and random taps, values with NaN, ±Inf, ±0 and
// subnormals, the rows ending right before an inaccessible page and
// guard bands around dst.
func TestTwinBilinearRowF32(t *testing.T) {
	r := rand.New(rand.NewPCG(87, 88))
	for _, im := range implsOf(bilinearRowF32Impls) {
		for trial := range 400 {
			d := trial%70 + 1
			inW, outW := r.IntN(12)+1, r.IntN(30)+1
			ac, hp := trial%3 == 1, trial%3 == 2
			lo, hi, fx := resizeTaps(inW, outW, ac, hp)
			if trial%10 == 9 {
				for x := range fx {
					lo[x], hi[x], fx[x] = r.IntN(inW), r.IntN(inW), float32(r.Float64()*6-3)
				}
			}
			fys := resizeFracs(r.IntN(12)+1, r.IntN(30)+1, ac, hp)
			fy := fys[r.IntN(len(fys))]
			if trial%5 == 0 {
				fy = fys[0]
			}
			tp, err := NewBilinearTaps(lo, hi, fx, d)
			if err != nil {
				t.Fatal(err)
			}
			row0, row1 := tailF32(t, inW*d), tailF32(t, inW*d)
			copy(row0, genPRelu(r, inW*d))
			copy(row1, genPRelu(r, inW*d))
			n := outW * d
			want := make([]float32, n)
			bilinearRowF32Generic(want, row0, row1, tp, fy)
			for x := range fx {
				w := &[4]float32{float32((1 - fy) * (1 - fx[x])), float32((1 - fy) * fx[x]), float32(fy * (1 - fx[x])), float32(fy * fx[x])}
				for c := range d {
					l, h := lo[x]*d+c, hi[x]*d+c
					ref := bilinearRef(row0[l], row0[h], row1[l], row1[h], w)
					if got := want[x*d+c]; math.Float32bits(got) != math.Float32bits(ref) && !(got != got && ref != ref) {
						t.Fatalf("generic trial %d column %d channel %d: %v, reference %v", trial, x, c, got, ref)
					}
				}
			}
			off := trial % 5
			buf, dst := guardedF32(n, off)
			im.fn(dst, row0, row1, tp, fy)
			checkGuardsF32(t, im.name, buf, guard+off, n)
			bilinearSame(t, fmt.Sprintf("%s trial %d (%d→%d depth %d, fy %v)", im.name, trial, inW, outW, d, fy), dst, want)
		}
	}
	forEachLevel(t, func(t *testing.T) {
		tp, err := NewBilinearTaps([]int{0}, []int{1}, []float32{0.5}, 2)
		if err != nil {
			t.Fatal(err)
		}
		negz := float32(math.Copysign(0, -1))
		row := []float32{negz, negz, negz, negz}
		got := make([]float32, 2)
		BilinearRowF32(got, row, row, tp, 0.5)
		if math.Float32bits(got[0])|math.Float32bits(got[1]) != 0 {
			t.Fatalf("BilinearRowF32 of -0 corners = %v, want +0", got)
		}
		empty, _ := NewBilinearTaps(nil, nil, nil, 3)
		BilinearRowF32(nil, nil, nil, empty, 0.5)
		defer func() {
			if recover() == nil {
				t.Error("BilinearRowF32 with a row short of the taps did not panic")
			}
		}()
		BilinearRowF32(got, row[:3], row, tp, 0.5)
	})
}

// BenchmarkBilinearRowF32 times every usable implementation on one output
// row of a DeepLab-style resize (65 → 257 columns) of 21 and 64 channels
// and of 3 (an image), against BilinearF32 called per column as the
// kernel did (go test ./arch -run '^$' -bench BilinearRowF32).
func BenchmarkBilinearRowF32(b *testing.B) {
	for _, d := range []int{3, 21, 64} {
		lo, hi, fx := resizeTaps(65, 257, true, false)
		tp, err := NewBilinearTaps(lo, hi, fx, d)
		if err != nil {
			b.Fatal(err)
		}
		row0, row1 := make([]float32, 65*d), make([]float32, 65*d)
		for i := range row0 {
			row0[i], row1[i] = float32(i%7)*0.5, float32(i%13)*0.25
		}
		dst := make([]float32, 257*d)
		const fy = 0.3125
		for _, im := range implsOf(bilinearRowF32Impls) {
			b.Run(fmt.Sprintf("row/%s/%d", im.name, d), func(b *testing.B) {
				b.SetBytes(int64(4 * len(dst)))
				for b.Loop() {
					im.fn(dst, row0, row1, tp, fy)
				}
			})
		}
		b.Run(fmt.Sprintf("percolumn/%s/%d", Current(), d), func(b *testing.B) {
			b.SetBytes(int64(4 * len(dst)))
			var w [4]float32
			for b.Loop() {
				for x, f := range fx {
					w = [4]float32{float32((1 - fy) * (1 - f)), float32((1 - fy) * f), float32(fy * (1 - f)), float32(fy * f)}
					BilinearF32(dst[x*d:x*d+d], row0[lo[x]*d:], row0[hi[x]*d:], row1[lo[x]*d:], row1[hi[x]*d:], &w)
				}
			}
		})
	}
}
