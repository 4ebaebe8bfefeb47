package arch

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Depthwise twins: every usable implementation of the depthwise kernel
// against float64 (float output) and int64 (int32 output) references over
// rectangles of 0-6 rows and 0-11 columns (the 4-pixel groups and the
// single pixels after them), channel counts around the 8/16 lanes, 0-3 tap
// rows and columns, strides and dilations, inputs ending right before an
// inaccessible page, and guard bands and gaps around the outputs.

type dwFunc = func(dst []byte, x, w []float32, bias []uint32, a dwArgs, lo, hi float32)

// randomDwGeom returns a rectangle with random strides, as a stride-s,
// dilation-d convolution over an input of inW pixels per row would use.
func randomDwGeom(r *rand.Rand, c int) DepthwiseGeom {
	s, d := 1+r.IntN(2), 1+r.IntN(2)
	g := DepthwiseGeom{Rows: r.IntN(7), Cols: r.IntN(12), C: c, TapRows: r.IntN(4), TapCols: r.IntN(4)}
	inW := g.Cols*s + 3*d + r.IntN(3)
	inRow := inW*c + r.IntN(2)*3 // rows may be padded
	g.XColStep, g.XTapCol = s*c, d*c
	g.XRowStep, g.XTapRow = s*inRow, d*inRow
	g.DstRowStep = g.Cols*c + r.IntN(3)
	g.WTapRow = 3*c + r.IntN(2)*c
	if r.IntN(8) == 0 { // pixels overlapping in the input (XColStep < C)
		g.XColStep = r.IntN(c + 1)
	}
	return g
}

// checkDw runs f on g and compares with the references. mode selects
// DepthwiseConvF32 (0), DepthwiseConvF32Int32 (1) or
// DepthwiseConvRequantize (2).
func checkDw(t *testing.T, name string, f dwFunc, g DepthwiseGeom, r *rand.Rand, mode, kind int, tail bool) {
	t.Helper()
	xn, wn, dn, err := g.span()
	if err != nil {
		t.Fatal(err)
	}
	var x, w []float32
	var bias []uint32
	if tail {
		x, w = tailF32(t, xn), tailF32(t, wn)
		bias = viewU32(tailI32(t, g.C))
	} else {
		x, w = make([]float32, xn+1)[1:], make([]float32, wn)
		bias = make([]uint32, g.C)
	}
	intOut := mode
	if intOut != 0 {
		for i := range x {
			x[i] = float32(r.IntN(511) - 255)
		}
		for i := range w {
			w[i] = float32(r.IntN(511) - 255)
		}
		for i := range bias {
			bias[i] = r.Uint32()
		}
	} else {
		genF32(r, x, f32Kind(kind))
		genF32(r, w, f32Kind(kind))
		b := make([]float32, g.C)
		genF32(r, b, f32Kind(kind))
		for i, v := range b {
			bias[i] = math.Float32bits(v)
		}
	}
	lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
	if kind == 1 && intOut == 0 {
		lo, hi = 0, 6
	}
	buf := make([]uint32, dn+2*guard)
	for i := range buf {
		buf[i] = sentinelF32
	}
	dst := buf[guard : guard+dn : guard+dn]
	var bytes []byte // mode 2's output
	var q *ChannelRequant
	var mult []int32
	var shift []int
	var zp, qlo, qhi int32
	if mode == 2 {
		bytes = make([]byte, dn+2*guard)
		for i := range bytes {
			bytes[i] = 0xa5
		}
		q, mult, shift = randomChannelRequant(t, r, g.C)
		zp, qlo, qhi = int32(r.IntN(256)-128), -128, 127
		if r.IntN(2) == 0 {
			zp, qlo, qhi = int32(r.IntN(256)), int32(r.IntN(20)), 255
		}
	}
	if dn > 0 {
		a := g.args(mode)
		if mode == 2 {
			a.qp, a.qStride, a.zp, a.lo, a.hi = &q.p[0], 4*q.stride, zp, qlo, qhi
			a.rqFlags = q.rqFlags(qlo, qhi)
			f(bytes[guard:guard+dn:guard+dn], x, w, bias, a, lo, hi)
		} else {
			f(viewBytes(viewF32(dst)), x, w, bias, a, lo, hi)
		}
	}
	what := fmt.Sprintf("%s int=%d %+v", name, intOut, g)
	written := make([]bool, dn)
	for rr := 0; rr < g.Rows; rr++ {
		for q0 := 0; q0 < g.Cols; q0++ {
			for ch := 0; ch < g.C; ch++ {
				o := rr*g.DstRowStep + q0*g.C + ch
				written[o] = true
				ref, abs := 0.0, 0.0
				var isum int64
				if intOut == 0 {
					ref = float64(math.Float32frombits(bias[ch]))
					abs = math.Abs(ref)
				}
				for ty := 0; ty < g.TapRows; ty++ {
					for tx := 0; tx < g.TapCols; tx++ {
						xv := x[rr*g.XRowStep+q0*g.XColStep+ty*g.XTapRow+tx*g.XTapCol+ch]
						wv := w[ty*g.WTapRow+tx*g.C+ch]
						p := float64(xv) * float64(wv)
						ref += p
						abs += math.Abs(p)
						isum += int64(xv) * int64(wv)
					}
				}
				if mode == 2 {
					want := byte(max(qlo, min(mbqmTie(int32(isum)+int32(bias[ch]), mult[ch], shift[ch], q.tie())+zp, qhi)))
					if got := bytes[guard+o]; got != want {
						t.Fatalf("%s: pixel (%d,%d) ch %d: %d, want %d", what, rr, q0, ch, got, want)
					}
					continue
				}
				if intOut != 0 {
					want := int32(isum) + int32(bias[ch])
					if got := int32(dst[o]); got != want {
						t.Fatalf("%s: pixel (%d,%d) ch %d: %d, want %d", what, rr, q0, ch, got, want)
					}
					continue
				}
				want := clamp64(ref, float64(lo), float64(hi))
				if math.IsNaN(ref) {
					want = ref
				}
				got := math.Float32frombits(dst[o])
				ok := sumOK(got, want, abs, g.TapRows*g.TapCols+1)
				if !ok && flushesSubnormals(name) {
					fRef, fAbs := dwRefFTZ(x, w, bias, g, rr, q0, ch)
					fWant := clamp64(fRef, float64(lo), float64(hi))
					if math.IsNaN(fRef) {
						fWant = fRef
					}
					ok = sumOKFTZ(got, fWant, fAbs, g.TapRows*g.TapCols+1)
				}
				if !ok {
					t.Fatalf("%s: pixel (%d,%d) ch %d: %v, want %v (Σ|terms| %v)", what, rr, q0, ch, got, want, abs)
				}
			}
		}
	}
	for i, v := range buf {
		o := i - guard
		if (o < 0 || o >= dn || !written[o]) && v != sentinelF32 {
			t.Fatalf("%s: element %d outside the outputs written", what, o)
		}
	}
	for i, v := range bytes {
		o := i - guard
		if (o < 0 || o >= dn || !written[o]) && v != 0xa5 {
			t.Fatalf("%s: byte %d outside the outputs written", what, o)
		}
	}
}

func TestTwinDepthwiseConv(t *testing.T) {
	chans := []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 64, 65}
	for _, im := range implsOf(dwConvImpls) {
		t.Run(im.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(81, 82))
			i := 0
			for _, c := range chans {
				for range 24 {
					g := randomDwGeom(r, c)
					checkDw(t, im.name, im.fn, g, r, i%3, i%int(numKinds), i%4 == 0)
					i++
				}
			}
			// Every column count through the 4-pixel groups, with 3×3 taps.
			for cols := 0; cols <= 13; cols++ {
				g := DepthwiseGeom{Rows: 2, Cols: cols, C: 8, TapRows: 3, TapCols: 3,
					XRowStep: (cols + 2) * 8, XColStep: 8, XTapRow: (cols + 2) * 8, XTapCol: 8,
					DstRowStep: cols * 8, WTapRow: 24}
				checkDw(t, im.name, im.fn, g, r, cols%3, 0, true)
			}
		})
	}
}

// TestTwinDepthwiseSpecials puts NaN and ±Inf into the input, weights or
// bias of the float kernel.
func TestTwinDepthwiseSpecials(t *testing.T) {
	for _, im := range implsOf(dwConvImpls) {
		r := rand.New(rand.NewPCG(83, 84))
		for _, sp := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
			for trial := range 3 {
				g := DepthwiseGeom{Rows: 1, Cols: 5, C: 17, TapRows: 3, TapCols: 3,
					XRowStep: 7 * 17, XColStep: 17, XTapRow: 7 * 17, XTapCol: 17, DstRowStep: 5 * 17, WTapRow: 3 * 17}
				xn, wn, dn, _ := g.span()
				x, w, b := make([]float32, xn), make([]float32, wn), make([]float32, 17)
				genF32(r, x, kindUniform)
				genF32(r, w, kindUniform)
				genF32(r, b, kindUniform)
				switch trial {
				case 0:
					x[r.IntN(xn)] = sp
				case 1:
					w[r.IntN(wn)] = sp
				case 2:
					b[r.IntN(17)] = sp
				}
				got, want := make([]float32, dn), make([]float32, dn)
				a := g.args(0)
				im.fn(viewBytes(got), x, w, viewU32(b), a, 0, 6)
				dwConvGeneric(viewBytes(want), x, w, viewU32(b), a, 0, 6)
				for i := range got {
					if got[i] != want[i] && !(got[i] != got[i] && want[i] != want[i]) {
						if math.IsNaN(float64(got[i])) != math.IsNaN(float64(want[i])) || math.Abs(float64(got[i]-want[i])) > 1e-5 {
							t.Fatalf("%s special %v trial %d [%d]: %v, want %v", im.name, sp, trial, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestDepthwiseGeomPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("negative geometry accepted")
		}
	}()
	DepthwiseConvF32(make([]float32, 8), make([]float32, 8), make([]float32, 8), make([]float32, 8),
		DepthwiseGeom{Rows: 1, Cols: 1, C: 8, TapRows: 1, TapCols: 1, XColStep: -1}, 0, 1)
}

func viewF32(s []uint32) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// FuzzDepthwise covers the depthwise kernel in its three modes on a
// fuzzer-chosen rectangle (rows 0-5, columns 0-10, channels 1-40, taps
// 0-3 × 0-3, strides and dilations 1-2).
func FuzzDepthwise(f *testing.F) {
	f.Add([]byte{3, 9, 17, 3, 3, 1, 1, 0, 1, 2, 3, 4, 5, 250, 251, 0x80})
	f.Add([]byte{1, 4, 8, 2, 3, 2, 2, 1, 0x7f, 0x80, 0xff, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &fuzzBytes{b: data}
		g := DepthwiseGeom{Rows: int(src.next() % 6), Cols: int(src.next() % 11), C: 1 + int(src.next()%40),
			TapRows: int(src.next() % 4), TapCols: int(src.next() % 4)}
		s, d := 1+int(src.next()%2), 1+int(src.next()%2)
		inRow := (g.Cols*s + 3*d + 1) * g.C
		g.XColStep, g.XTapCol, g.XRowStep, g.XTapRow = s*g.C, d*g.C, s*inRow, d*inRow
		g.DstRowStep, g.WTapRow = g.Cols*g.C, 3*g.C
		mode := int(src.next() % 3)
		xn, wn, dn, err := g.span()
		if err != nil {
			t.Fatal(err)
		}
		x, w, bias := make([]float32, xn), make([]float32, wn), make([]uint32, g.C)
		val := func() float32 {
			if mode != 0 {
				return float32(int(src.next()) - int(src.next()))
			}
			v := src.f32()
			if v != v || math.Abs(float64(v)) > 1e15 { // (no order-dependent overflow)
				v = float32(int8(src.next()))
			}
			return v
		}
		for i := range x {
			x[i] = val()
		}
		for i := range w {
			w[i] = val()
		}
		for i := range bias {
			if mode == 0 {
				bias[i] = math.Float32bits(val())
			} else {
				bias[i] = uint32(src.i32())
			}
		}
		a := g.args(mode)
		if mode == 2 {
			mult, shift := make([]int32, g.C), make([]int, g.C)
			for i := range mult {
				mult[i] = src.i32() | 1
				shift[i] = int(src.next()%63) - 31
			}
			q, err := newChannelRequant(mult, shift, []int32{tieAway, tieUp}[src.next()%2])
			if err != nil {
				t.Fatal(err)
			}
			a.qp, a.qStride, a.zp, a.lo, a.hi = &q.p[0], 4*q.stride, int32(int8(src.next())), -128, 127
			a.rqFlags = q.rqFlags(a.lo, a.hi)
		}
		size := dn
		if mode != 2 {
			size *= 4
		}
		want := make([]byte, size)
		if dn > 0 {
			dwConvGeneric(want, x, w, bias, a, float32(math.Inf(-1)), float32(math.Inf(1)))
		}
		for _, im := range implsOf(dwConvImpls) {
			got := make([]byte, size)
			if dn > 0 {
				im.fn(got, x, w, bias, a, float32(math.Inf(-1)), float32(math.Inf(1)))
			}
			for rr := 0; rr < g.Rows; rr++ {
				for q0 := 0; q0 < g.Cols; q0++ {
					for ch := 0; ch < g.C; ch++ {
						o := rr*g.DstRowStep + q0*g.C + ch
						switch mode {
						case 2:
							if got[o] != want[o] {
								t.Fatalf("depthwise %s mode 2 %+v [%d]: %d, want %d", im.name, g, o, got[o], want[o])
							}
						case 1:
							if gv, wv := binary.LittleEndian.Uint32(got[4*o:]), binary.LittleEndian.Uint32(want[4*o:]); gv != wv {
								t.Fatalf("depthwise %s mode 1 %+v [%d]: %d, want %d", im.name, g, o, int32(gv), int32(wv))
							}
						default:
							ref := float64(math.Float32frombits(bias[ch]))
							abs := math.Abs(ref)
							for ty := 0; ty < g.TapRows; ty++ {
								for tx := 0; tx < g.TapCols; tx++ {
									p := float64(x[rr*g.XRowStep+q0*g.XColStep+ty*g.XTapRow+tx*g.XTapCol+ch]) * float64(w[ty*g.WTapRow+tx*g.C+ch])
									ref += p
									abs += math.Abs(p)
								}
							}
							gf := math.Float32frombits(binary.LittleEndian.Uint32(got[4*o:]))
							ok := sumOK(gf, ref, abs, g.TapRows*g.TapCols+1)
							if !ok && flushesSubnormals(im.name) {
								fRef, fAbs := dwRefFTZ(x, w, bias, g, rr, q0, ch)
								ok = sumOKFTZ(gf, fRef, fAbs, g.TapRows*g.TapCols+1)
							}
							if !ok {
								t.Fatalf("depthwise %s mode 0 %+v [%d]: %v, want %v", im.name, g, o, gf, ref)
							}
						}
					}
				}
			}
		}
	})
}

// TestTwinDepthwiseWideRequant covers requantised (mode 2) rows wider
// than the AVX2 wrapper's accumulator tile of 4096 int32s, which it runs
// in runs of whole pixels, and a channel count above the tile (portable
// fallback).
func TestTwinDepthwiseWideRequant(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for _, sz := range []struct{ rows, cols, c, stride int }{{2, 70, 67, 1}, {1, 200, 24, 2}, {3, 13, 317, 1}, {1, 3, 4100, 1}, {2, 64, 64, 1}} {
		g := DepthwiseGeom{Rows: sz.rows, Cols: sz.cols, C: sz.c, TapRows: 3, TapCols: 3}
		inRow := (sz.cols*sz.stride + 3) * sz.c
		g.XColStep, g.XTapCol, g.XRowStep, g.XTapRow = sz.stride*sz.c, sz.c, sz.stride*inRow, inRow
		g.DstRowStep, g.WTapRow = sz.cols*sz.c+5, 3*sz.c
		xn, wn, dn, err := g.span()
		if err != nil {
			t.Fatal(err)
		}
		x, w, bias := make([]float32, xn), make([]float32, wn), make([]uint32, sz.c)
		for i := range x {
			x[i] = float32(r.IntN(256) - 128)
		}
		for i := range w {
			w[i] = float32(r.IntN(255) - 127)
		}
		for i := range bias {
			bias[i] = uint32(r.IntN(1<<16) - 1<<15)
		}
		mult, shift := make([]int32, sz.c), make([]int, sz.c)
		for i := range mult {
			mult[i], shift[i] = int32(1<<30+r.IntN(1<<30)), -r.IntN(12)-4
		}
		q, err := newChannelRequant(mult, shift, tieUp)
		if err != nil {
			t.Fatal(err)
		}
		a := g.args(2)
		a.qp, a.qStride, a.zp, a.lo, a.hi = &q.p[0], 4*q.stride, -3, -128, 127
		a.rqFlags = q.rqFlags(a.lo, a.hi)
		want := make([]byte, dn)
		dwConvGeneric(want, x, w, bias, a, 0, 0)
		for _, im := range implsOf(dwConvImpls) {
			got := make([]byte, dn)
			im.fn(got, x, w, bias, a, 0, 0)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s %+v [%d]: %d, want %d", im.name, sz, i, int8(got[i]), int8(want[i]))
				}
			}
		}
	}
}

// dwRefFTZ is the float64 value and absolute sum of output (rr, q0, ch)
// of a float rectangle (bias plus every tap's product) with subnormal
// inputs, weights and bias flushed to zero, the reference of the kernels
// that flush them (flushesSubnormals).
func dwRefFTZ(x, w []float32, bias []uint32, g DepthwiseGeom, rr, q0, ch int) (ref, abs float64) {
	ref = float64(ftzF32(math.Float32frombits(bias[ch])))
	abs = math.Abs(ref)
	for ty := 0; ty < g.TapRows; ty++ {
		for tx := 0; tx < g.TapCols; tx++ {
			xv := ftzF32(x[rr*g.XRowStep+q0*g.XColStep+ty*g.XTapRow+tx*g.XTapCol+ch])
			wv := ftzF32(w[ty*g.WTapRow+tx*g.C+ch])
			p := float64(xv) * float64(wv)
			ref += p
			abs += math.Abs(p)
		}
	}
	return ref, abs
}
