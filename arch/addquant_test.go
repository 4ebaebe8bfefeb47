package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// genQuantAdd returns parameters as TFLite's ADD derives them (input
// multipliers below one half with non-positive shifts, an output
// multiplier of either sign of shift) or, for wild, arbitrary ones
// (shifts that overflow the left shift, huge multipliers, MinInt32).
func genQuantAdd(r *rand.Rand, wild bool, lo, hi int32) QuantAdd {
	mult := func() int32 { return int32(1<<30 + r.Int64N(1<<30)) }
	p := QuantAdd{
		In1Offset: int32(r.IntN(256) - 128), In2Offset: int32(r.IntN(256) - 128),
		LeftShift: 20,
		In1Mult:   mult(), In2Mult: mult(),
		In1Shift: -r.IntN(12), In2Shift: -r.IntN(12),
		OutMult: mult(), OutShift: -r.IntN(25) - 1,
		OutOffset: int32(r.IntN(256) - 128),
	}
	if wild {
		p.LeftShift = r.IntN(32)
		p.In1Shift, p.In2Shift, p.OutShift = r.IntN(70)-35, r.IntN(70)-35, r.IntN(70)-35
		ms := []int32{math.MinInt32, math.MaxInt32, 1, 0, -1 << 30, int32(r.Uint32())}
		p.In1Mult, p.In2Mult, p.OutMult = ms[r.IntN(len(ms))], ms[r.IntN(len(ms))], ms[r.IntN(len(ms))]
		p.OutOffset = int32(r.Uint32())
	}
	p.Subtract = r.IntN(2) == 0
	a, b := lo+int32(r.IntN(int(hi-lo+1))), lo+int32(r.IntN(int(hi-lo+1)))
	p.Lo, p.Hi = min(a, b), max(a, b)
	if r.IntN(3) == 0 {
		p.Lo, p.Hi = lo, hi
	}
	return p
}

func TestTwinAddQuantInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, im := range implsOf(addQuantInt8Impls) {
		for n := 0; n <= 257; n++ {
			for trial := range 4 {
				p := genQuantAdd(r, trial == 3, -128, 127)
				a, b := make([]int8, n+1)[1:], make([]int8, n+3)[3:]
				for i := range a {
					a[i], b[i] = int8(r.Uint32()), int8(r.Uint32())
				}
				if trial == 2 {
					for i := range a {
						a[i], b[i] = []int8{-128, 127, 0}[r.IntN(3)], []int8{-128, 127, 0}[r.IntN(3)]
					}
				}
				buf := make([]int8, n+2*guard)
				for i := range buf {
					buf[i] = 0x5a
				}
				dst := buf[guard : guard+n : guard+n]
				want := make([]int8, n)
				addQuantInt8Generic(want, a, b, &p)
				im.fn(dst, a, b, &p)
				for i := range want {
					if dst[i] != want[i] {
						t.Fatalf("%s n=%d trial %d [%d]: a %d b %d got %d, want %d (%+v)", im.name, n, trial, i, a[i], b[i], dst[i], want[i], p)
					}
				}
				for i, v := range buf {
					if (i < guard || i >= guard+n) && v != 0x5a {
						t.Fatalf("%s n=%d: wrote outside dst at %d", im.name, n, i-guard)
					}
				}
			}
		}
	}
}

func TestTwinAddQuantUint8(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	for _, im := range implsOf(addQuantUint8Impls) {
		for n := 0; n <= 257; n++ {
			for trial := range 4 {
				p := genQuantAdd(r, trial == 3, 0, 255)
				p.In1Offset, p.In2Offset = -int32(r.IntN(256)), -int32(r.IntN(256))
				a, b := make([]uint8, n+1)[1:], make([]uint8, n+3)[3:]
				for i := range a {
					a[i], b[i] = uint8(r.Uint32()), uint8(r.Uint32())
				}
				if trial == 2 {
					for i := range a {
						a[i], b[i] = []uint8{0, 255, 128}[r.IntN(3)], []uint8{0, 255, 128}[r.IntN(3)]
					}
				}
				dst, want := make([]uint8, n), make([]uint8, n)
				addQuantUint8Generic(want, a, b, &p)
				im.fn(dst, a, b, &p)
				for i := range want {
					if dst[i] != want[i] {
						t.Fatalf("%s n=%d trial %d [%d]: a %d b %d got %d, want %d (%+v)", im.name, n, trial, i, a[i], b[i], dst[i], want[i], p)
					}
				}
			}
		}
	}
}

// TestAddQuantFormula checks the portable kernel against the formula
// written out with 64-bit arithmetic on a hand-made case: offsets that
// cancel, multipliers of one half, so the sum comes back exactly.
func TestAddQuantFormula(t *testing.T) {
	p := QuantAdd{In1Offset: 3, In2Offset: -5, LeftShift: 20, In1Mult: 1 << 30, In2Mult: 1 << 30,
		OutMult: 1 << 30, OutShift: -19, OutOffset: 2, Lo: -128, Hi: 127}
	a := []int8{-3, 10, 100, -100, 127}
	b := []int8{5, 5, 100, -100, 127}
	dst := make([]int8, len(a))
	AddQuantInt8(dst, a, b, &p)
	for i := range a {
		// (x+3)·2^20·½ + (y−5)·2^20·½, then ·½·2^-19: (x+3+y−5)/2, rounded half away.
		s := float64(int(a[i])+3+int(b[i])-5) / 2
		want := int32(math.Round(s)) + 2
		want = min(max(want, -128), 127)
		if int32(dst[i]) != want {
			t.Errorf("[%d] %d+%d: got %d, want %d", i, a[i], b[i], dst[i], want)
		}
	}
}

// TestSubQuantFormula is TestAddQuantFormula for Subtract, with a case
// whose halves round away from zero on both sides: the difference is
// (x+3−(y−5))/2 before the output offset.
func TestSubQuantFormula(t *testing.T) {
	p := QuantAdd{In1Offset: 3, In2Offset: -5, LeftShift: 20, In1Mult: 1 << 30, In2Mult: 1 << 30,
		OutMult: 1 << 30, OutShift: -19, OutOffset: 2, Lo: -128, Hi: 127, Subtract: true}
	a := []int8{-3, 10, 100, -100, 127, -128, 0, 1, 2, 3, -7, -6}
	b := []int8{5, 5, -100, 100, -128, 127, 0, 4, 4, 4, 0, 0}
	dst := make([]int8, len(a))
	for _, im := range implsOf(addQuantInt8Impls) {
		im.fn(dst, a, b, &p)
		for i := range a {
			s := float64(int(a[i])+3-(int(b[i])-5)) / 2
			want := int32(math.Round(s)) + 2
			want = min(max(want, -128), 127)
			if int32(dst[i]) != want {
				t.Errorf("%s [%d] %d−%d: got %d, want %d", im.name, i, a[i], b[i], dst[i], want)
			}
		}
	}
}

func TestAddQuantPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"int8 range":  func() { AddQuantInt8(nil, nil, nil, &QuantAdd{Lo: -129, Hi: 0}) },
		"uint8 range": func() { AddQuantUint8(nil, nil, nil, &QuantAdd{Lo: 0, Hi: 256}) },
		"left shift":  func() { AddQuantInt8(nil, nil, nil, &QuantAdd{LeftShift: 32}) },
		"short input": func() { AddQuantInt8(make([]int8, 3), make([]int8, 2), make([]int8, 3), &QuantAdd{}) },
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
