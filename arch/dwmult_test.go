package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// DepthwiseMultF32 twins: every usable implementation against a scalar
// reference summing in the documented order (bias, then the taps by row
// and column, products rounded to float32), bit for bit (a NaN as any
// NaN: its sign and payload depend on the compiler's operand order, and
// the race detector's build orders them differently): float outputs
// with signed zeros, infinities, NaNs and subnormals among the inputs,
// and int32 outputs of integer inputs. Rectangles of 0-5 rows and 0-19
// columns (groups of eight pixels and every remainder), channel counts
// around the 8 lanes, multipliers of 1, ones where a block reads one
// input channel and others, 0-4 tap rows and columns, strides,
// dilations, outputs with gaps or laid out by column, inputs and weights
// ending right before an inaccessible page, guard values around the
// outputs.

type dwMultFunc = func(dst []uint32, x, w []float32, bias []uint32, g DepthwiseMultGeom, mode int, lo, hi float32)

func randomDwMultGeom(r *rand.Rand, c, m int) DepthwiseMultGeom {
	s, d := 1+r.IntN(2), 1+r.IntN(2)
	g := DepthwiseMultGeom{Rows: r.IntN(6), Cols: r.IntN(20), C: c, Mult: m, TapRows: r.IntN(5), TapCols: r.IntN(5)}
	inC := (c + m - 1) / m
	inW := g.Cols*s + 4*d + r.IntN(3)
	inRow := inW*inC + r.IntN(2)*3
	g.XColStep, g.XTapCol = s*inC, d*inC
	g.XRowStep, g.XTapRow = s*inRow, d*inRow
	g.WTapRow = 4*c + r.IntN(2)*c
	switch r.IntN(3) {
	case 0: // rows of pixels
		g.DstColStep = c + r.IntN(2)*r.IntN(4)
		g.DstRowStep = g.Cols*g.DstColStep + r.IntN(3)
	case 1: // by column: pixel (r, q) of a transposed image
		g.DstRowStep = c + r.IntN(2)
		g.DstColStep = g.Rows*g.DstRowStep + r.IntN(3)
	default:
		g.DstColStep = c
		g.DstRowStep = g.Cols * c
	}
	return g
}

func dwMultRef(x, w []float32, bias []uint32, g *DepthwiseMultGeom, mode int, lo, hi float32, rr, q, ch int) uint32 {
	var s float32
	var is int64
	if mode == 0 {
		s = math.Float32frombits(bias[ch])
	}
	for ty := 0; ty < g.TapRows; ty++ {
		for tx := 0; tx < g.TapCols; tx++ {
			xv := x[rr*g.XRowStep+q*g.XColStep+ty*g.XTapRow+tx*g.XTapCol+ch/g.Mult]
			wv := w[ty*g.WTapRow+tx*g.C+ch]
			s += float32(xv * wv)
			is += int64(xv) * int64(wv)
		}
	}
	if mode == 1 {
		return uint32(int32(is) + int32(bias[ch]))
	}
	if s < lo {
		s = lo
	}
	if s > hi {
		s = hi
	}
	return math.Float32bits(s)
}

// isNaN32 reports whether the bits b are a float32 NaN.
func isNaN32(b uint32) bool { return b&0x7f800000 == 0x7f800000 && b&0x007fffff != 0 }

func checkDwMult(t *testing.T, name string, f dwMultFunc, g DepthwiseMultGeom, r *rand.Rand, mode int, tail bool) {
	t.Helper()
	xn, wn, dn, err := g.span()
	if err != nil {
		t.Fatal(err)
	}
	var x, w []float32
	if tail {
		x, w = tailF32(t, xn), tailF32(t, wn)
	} else {
		x, w = make([]float32, xn), make([]float32, wn)
	}
	bias := make([]uint32, g.C)
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, -3e-39}
	for i := range x {
		if mode == 1 {
			x[i] = float32(r.IntN(511) - 255)
		} else if r.IntN(20) == 0 {
			x[i] = specials[r.IntN(len(specials))]
		} else {
			x[i] = float32(r.NormFloat64())
		}
	}
	for i := range w {
		if mode == 1 {
			w[i] = float32(r.IntN(511) - 255)
		} else if r.IntN(40) == 0 {
			w[i] = specials[r.IntN(len(specials))]
		} else {
			w[i] = float32(r.NormFloat64())
		}
	}
	for i := range bias {
		if mode == 1 {
			bias[i] = uint32(int32(r.IntN(2001) - 1000))
		} else {
			bias[i] = math.Float32bits(float32(r.NormFloat64()))
			if r.IntN(10) == 0 {
				bias[i] = math.Float32bits(specials[r.IntN(len(specials))])
			}
		}
	}
	lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
	switch r.IntN(3) {
	case 1:
		lo = 0
	case 2:
		lo, hi = -1, 1
	}
	const guard = 9
	const sentinel = 0xdeadbeef
	buf := make([]uint32, dn+2*guard)
	for i := range buf {
		buf[i] = sentinel
	}
	if dn > 0 {
		f(buf[guard:guard+dn:guard+dn], x, w, bias, g, mode, lo, hi)
	}
	what := fmt.Sprintf("%s mode=%d %+v", name, mode, g)
	written := make([]bool, dn)
	for rr := 0; rr < g.Rows; rr++ {
		for q := 0; q < g.Cols; q++ {
			for ch := 0; ch < g.C; ch++ {
				o := rr*g.DstRowStep + q*g.DstColStep + ch
				written[o] = true
				want := dwMultRef(x, w, bias, &g, mode, lo, hi, rr, q, ch)
				got := buf[guard+o]
				if mode == 0 && isNaN32(got) && isNaN32(want) {
					continue // which NaN (sign, payload) depends on operand order
				}
				if got != want {
					t.Fatalf("%s: pixel (%d,%d) ch %d: %#x (%v), want %#x (%v)", what, rr, q, ch, got, math.Float32frombits(got), want, math.Float32frombits(want))
				}
			}
		}
	}
	for i, v := range buf {
		o := i - guard
		if (o < 0 || o >= dn || !written[o]) && v != sentinel {
			t.Fatalf("%s: element %d outside the outputs written", what, o)
		}
	}
}

func TestTwinDepthwiseMult(t *testing.T) {
	type cm struct{ c, m int }
	var shapes []cm
	for _, c := range []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 24, 40} {
		shapes = append(shapes, cm{c, 1}, cm{c, c})
	}
	for _, in := range []int{1, 2, 3, 5} {
		for m := 2; m <= 9; m++ {
			shapes = append(shapes, cm{in * m, m})
		}
		shapes = append(shapes, cm{in * 16, 16})
	}
	for _, im := range implsOf(dwMultImpls) {
		t.Run(im.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(91, 92))
			i := 0
			for _, s := range shapes {
				for range 12 {
					checkDwMult(t, im.name, im.fn, randomDwMultGeom(r, s.c, s.m), r, i%2, i%3 == 0)
					i++
				}
			}
			// Every pixel count through the groups of eight, one row and
			// one column, magic_wand's 4x3 taps over 8 channels.
			for n := 1; n <= 26; n++ {
				for _, byCol := range []bool{false, true} {
					g := DepthwiseMultGeom{Rows: 1, Cols: n, C: 8, Mult: 8, TapRows: 4, TapCols: 3,
						XRowStep: 3, XColStep: 3, XTapRow: 3, XTapCol: 1, DstRowStep: 8 * n, DstColStep: 8, WTapRow: 24}
					if byCol {
						g.Rows, g.Cols = n, 1
						g.DstRowStep, g.DstColStep = 24, 8
					}
					checkDwMult(t, im.name, im.fn, g, r, n%2, true)
				}
			}
		})
	}
}

// TestDepthwiseMultPanics checks the argument checks.
func TestDepthwiseMultPanics(t *testing.T) {
	g := DepthwiseMultGeom{Rows: 2, Cols: 3, C: 8, Mult: 8, TapRows: 2, TapCols: 2, XRowStep: 4, XColStep: 1, XTapRow: 4, XTapCol: 1, DstRowStep: 24, DstColStep: 8, WTapRow: 16}
	x, w, d, b := make([]float32, 64), make([]float32, 32), make([]float32, 48), make([]float32, 8)
	DepthwiseMultF32(d, x, w, b, g, 0, 1) // fits
	for name, f := range map[string]func(){
		"short dst":  func() { DepthwiseMultF32(d[:47], x, w, b, g, 0, 1) },
		"short x":    func() { DepthwiseMultF32(d, x[:5], w, b, g, 0, 1) },
		"short w":    func() { DepthwiseMultF32(d, x, w[:31], b, g, 0, 1) },
		"short bias": func() { DepthwiseMultF32(d, x, w, b[:7], g, 0, 1) },
		"negative":   func() { h := g; h.XTapRow = -1; DepthwiseMultF32(d, x, w, b, h, 0, 1) },
		"mult 0":     func() { h := g; h.Mult = 0; DepthwiseMultF32Int32(make([]int32, 48), x, w, make([]int32, 8), h) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkDepthwiseMult runs a 32x32 image of 8 and 16 channels with
// one input channel and 3x3 taps (every pixel with all taps).
func BenchmarkDepthwiseMult(b *testing.B) {
	for _, c := range []int{8, 16} {
		b.Run(fmt.Sprintf("c%d", c), func(b *testing.B) {
			const h, wd = 32, 32
			g := DepthwiseMultGeom{Rows: h, Cols: wd, C: c, Mult: c, TapRows: 3, TapCols: 3,
				XRowStep: wd + 2, XColStep: 1, XTapRow: wd + 2, XTapCol: 1,
				DstRowStep: wd * c, DstColStep: c, WTapRow: 3 * c}
			x := make([]float32, (h+2)*(wd+2))
			w := make([]float32, 9*c)
			bias := make([]float32, c)
			dst := make([]float32, h*wd*c)
			for i := range x {
				x[i] = float32(i%7) - 3
			}
			for i := range w {
				w[i] = float32(i%5) - 2
			}
			b.SetBytes(int64(h * wd * c * 9)) // multiply-adds
			for i := 0; i < b.N; i++ {
				DepthwiseMultF32(dst, x, w, bias, g, 0, 6)
			}
		})
	}
}
