package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of VecMaxF32 and MaxBlocksF32: the portable code follows
// `if dst < src { dst = src }` on hand-picked pairs, and every usable
// implementation gives the portable result bit for bit (NaN payloads, ±0,
// ±Inf, subnormals) for widths 0..257 at odd offsets of both operands,
// with guard bands around dst and with either operand ending right before
// an inaccessible page, and for strided blocks whose gaps must stay
// untouched.

var (
	negZero32   = float32(math.Copysign(0, -1))
	maxSpecials = []float32{0, negZero32, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
		1e-45, -1e-45, math.Float32frombits(0x007fffff), math.MaxFloat32, -math.MaxFloat32, 1, -1, 2}
)

// genMaxPair fills dst and src with mixed values; over their common
// length, three pairs in eight get a value from maxSpecials in either or
// both and one in eight equal values.
func genMaxPair(r *rand.Rand, dst, src []float32) {
	genF32(r, dst, kindMixed)
	genF32(r, src, kindMixed)
	for i := range min(len(dst), len(src)) {
		switch r.IntN(8) {
		case 0:
			dst[i] = maxSpecials[r.IntN(len(maxSpecials))]
		case 1:
			src[i] = maxSpecials[r.IntN(len(maxSpecials))]
		case 2:
			dst[i] = maxSpecials[r.IntN(len(maxSpecials))]
			src[i] = maxSpecials[r.IntN(len(maxSpecials))]
		case 3:
			src[i] = dst[i]
		}
	}
}

func sameBitsF32(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

func TestVecMaxF32Semantics(t *testing.T) {
	nan, qnan, snan := float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001)
	inf := float32(math.Inf(1))
	cases := []struct{ dst, src, want float32 }{
		{1, 2, 2}, {2, 1, 2}, {negZero32, 0, negZero32}, {0, negZero32, 0},
		{1, nan, 1}, {1, snan, 1}, {qnan, 5, qnan}, {nan, inf, nan},
		{-inf, 1e-45, 1e-45}, {-math.MaxFloat32, -inf, -math.MaxFloat32},
		{-1e-45, negZero32, negZero32}, {inf, math.MaxFloat32, inf},
	}
	forEachLevel(t, func(t *testing.T) {
		for _, c := range cases {
			d := []float32{c.dst}
			VecMaxF32(d, []float32{c.src})
			if math.Float32bits(d[0]) != math.Float32bits(c.want) {
				t.Errorf("max(%v, %v) = %v (%#x), want %v (%#x)", c.dst, c.src, d[0], math.Float32bits(d[0]), c.want, math.Float32bits(c.want))
			}
		}
		VecMaxF32(nil, nil)
		MaxBlocksF32(nil, nil, 0, 5, 5, 5)
	})
}

func TestMaxBlocksF32Panics(t *testing.T) {
	for name, f := range map[string]func(){
		"short dst":      func() { VecMaxF32(make([]float32, 3), make([]float32, 4)) },
		"short src":      func() { MaxBlocksF32(make([]float32, 8), make([]float32, 7), 2, 4, 4, 4) },
		"negative width": func() { MaxBlocksF32(nil, nil, 1, -1, 0, 0) },
		"overlap":        func() { MaxBlocksF32(make([]float32, 8), make([]float32, 8), 2, 4, 3, 4) },
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

func TestTwinVecMaxF32(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, im := range implsOf(maxBlocksF32Impls) {
		dstTail, srcTail := tailF32(t, 257), tailF32(t, 257)
		for n := 0; n <= 257; n++ {
			d0, s := make([]float32, n), make([]float32, n)
			genMaxPair(r, d0, s)
			want := append([]float32(nil), d0...)
			maxBlocksF32Generic(want, s, 1, n, 0, 0)
			for off := 0; off < 4; off++ {
				buf, d := guardedF32(n, off)
				copy(d, d0)
				soff := (off + n) % 4
				sbuf, sw := guardedF32(n, soff)
				copy(sw, s)
				im.fn(d, sw, 1, n, 0, 0)
				checkGuardsF32(t, im.name, buf, guard+off, n)
				checkGuardsF32(t, im.name+" src", sbuf, guard+soff, n)
				if i := sameBitsF32(sw, s); i >= 0 {
					t.Fatalf("%s n=%d: src element %d changed", im.name, n, i)
				}
				if i := sameBitsF32(d, want); i >= 0 {
					t.Fatalf("%s n=%d off=%d element %d: max(%v, %v) got %v (%#x), want %v (%#x)", im.name, n, off, i, d0[i], s[i], d[i], math.Float32bits(d[i]), want[i], math.Float32bits(want[i]))
				}
			}
			// Both operands right before an inaccessible page.
			d, sp := dstTail[len(dstTail)-n:], srcTail[len(srcTail)-n:]
			copy(d, d0)
			copy(sp, s)
			im.fn(d, sp, 1, n, 0, 0)
			if i := sameBitsF32(d, want); i >= 0 {
				t.Fatalf("%s n=%d at a page end: element %d got %v want %v", im.name, n, i, d[i], want[i])
			}
		}
	}
}

func TestTwinMaxBlocksF32(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	widths := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 47, 64, 100}
	for _, im := range implsOf(maxBlocksF32Impls) {
		for trial := 0; trial < 300; trial++ {
			width := widths[r.IntN(len(widths))]
			n := r.IntN(9)
			dStride := width + r.IntN(3)*r.IntN(5)
			if n == 1 && r.IntN(2) == 0 {
				dStride = 0
			}
			sStride := r.IntN(3*width + 1) // overlapping, repeated (0) or gapped src blocks
			dLen, sLen := 0, 0
			if n > 0 {
				dLen, sLen = (n-1)*dStride+width, (n-1)*sStride+width
			}
			d0, s := make([]float32, dLen), make([]float32, sLen)
			genMaxPair(r, d0, s)
			want := append([]float32(nil), d0...)
			maxBlocksF32Generic(want, s, n, width, dStride, sStride)
			off := r.IntN(4)
			buf, d := guardedF32(dLen, off)
			copy(d, d0)
			im.fn(d, s, n, width, dStride, sStride)
			checkGuardsF32(t, im.name, buf, guard+off, dLen)
			if i := sameBitsF32(d, want); i >= 0 {
				t.Fatalf("%s n=%d width=%d strides %d/%d element %d: got %v (%#x), want %v (%#x)", im.name, n, width, dStride, sStride, i, d[i], math.Float32bits(d[i]), want[i], math.Float32bits(want[i]))
			}
			// The gaps between dst blocks are untouched.
			for k := 0; k+1 < n; k++ {
				for c := k*dStride + width; c < (k+1)*dStride; c++ {
					if math.Float32bits(d[c]) != math.Float32bits(d0[c]) {
						t.Fatalf("%s n=%d width=%d strides %d/%d: gap element %d written", im.name, n, width, dStride, sStride, c)
					}
				}
			}
			// src and dst ending right before an inaccessible page.
			if dLen > 0 {
				dt, st := tailF32(t, dLen), tailF32(t, sLen)
				copy(dt, d0)
				copy(st, s)
				im.fn(dt, st, n, width, dStride, sStride)
				if i := sameBitsF32(dt, want); i >= 0 {
					t.Fatalf("%s n=%d width=%d at a page end: element %d got %v want %v", im.name, n, width, i, dt[i], want[i])
				}
			}
		}
	}
}

// FuzzVecMax compares every MaxBlocksF32 implementation with the portable
// one on fuzzer-chosen values and block geometry (VecMaxF32 is one block).
//
//	go test ./arch -run='^$' -fuzz=FuzzVecMax -fuzztime=1m
func FuzzVecMax(f *testing.F) {
	f.Add(uint8(1), uint8(0), uint8(0), seedF32(1, float32(math.NaN()), negZero32, 0, 2, 1, 0, negZero32))
	f.Add(uint8(3), uint8(5), uint8(2), seedF32(float32(math.Inf(-1)), 1e-40, -1e-40, float32(math.Inf(1)), 3, -3, 7, 8, 9, 10, 11, 12))
	f.Add(uint8(2), uint8(17), uint8(34), make([]byte, 4*70))
	f.Fuzz(func(t *testing.T, nB, gapB, sStrideB uint8, data []byte) {
		v := bytesToF32(data)
		n := int(nB%8) + 1
		// Split v into dst and src; width is what fits.
		half := len(v) / 2
		d0, s := v[:half], v[half:]
		gap, sStride := int(gapB%8), int(sStrideB)
		// Largest width with (n-1)*(width+gap)+width ≤ len(d0) and
		// (n-1)*sStride+width ≤ len(s).
		width := min((len(d0)-(n-1)*gap)/n, len(s)-(n-1)*sStride)
		if width <= 0 {
			return
		}
		dStride := width + gap
		want := append([]float32(nil), d0...)
		maxBlocksF32Generic(want, s, n, width, dStride, sStride)
		for _, im := range implsOf(maxBlocksF32Impls) {
			d := append([]float32(nil), d0...)
			im.fn(d, s, n, width, dStride, sStride)
			if i := sameBitsF32(d, want); i >= 0 {
				t.Fatalf("%s n=%d width=%d strides %d/%d element %d: got %#x, want %#x", im.name, n, width, dStride, sStride, i, math.Float32bits(d[i]), math.Float32bits(want[i]))
			}
		}
	})
}
