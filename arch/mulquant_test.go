package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// genQuantMul returns parameters as TFLite's MUL derives them (a
// multiplier in [2^30, 2^31) with a shift around -7..-1) or, for wild,
// arbitrary ones (positive and out-of-range shifts, MinInt32).
func genQuantMul(r *rand.Rand, wild bool, lo, hi int32) QuantMul {
	p := QuantMul{
		In1Offset: int32(r.IntN(256) - 128), In2Offset: int32(r.IntN(256) - 128),
		Mult: int32(1<<30 + r.Int64N(1<<30)), Shift: -r.IntN(16),
		OutOffset: int32(r.IntN(256) - 128),
	}
	if wild {
		p.Shift = r.IntN(70) - 35
		ms := []int32{math.MinInt32, math.MaxInt32, 1, 0, -1 << 30, int32(r.Uint32())}
		p.Mult = ms[r.IntN(len(ms))]
		p.OutOffset = int32(r.Uint32())
		p.In1Offset, p.In2Offset = int32(r.Uint32()), int32(r.Uint32())
	}
	a, b := lo+int32(r.IntN(int(hi-lo+1))), lo+int32(r.IntN(int(hi-lo+1)))
	p.Lo, p.Hi = min(a, b), max(a, b)
	if r.IntN(3) == 0 {
		p.Lo, p.Hi = lo, hi
	}
	return p
}

func TestTwinMulQuantInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for _, im := range implsOf(mulQuantInt8Impls) {
		for n := 0; n <= 257; n++ {
			for trial := range 4 {
				p := genQuantMul(r, trial == 3, -128, 127)
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
				mulQuantInt8Generic(want, a, b, &p)
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

func TestTwinMulQuantUint8(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	for _, im := range implsOf(mulQuantUint8Impls) {
		for n := 0; n <= 257; n++ {
			for trial := range 4 {
				p := genQuantMul(r, trial == 3, 0, 255)
				if trial != 3 {
					p.In1Offset, p.In2Offset = -int32(r.IntN(256)), -int32(r.IntN(256))
				}
				a, b := make([]uint8, n+1)[1:], make([]uint8, n+3)[3:]
				for i := range a {
					a[i], b[i] = uint8(r.Uint32()), uint8(r.Uint32())
				}
				dst, want := make([]uint8, n), make([]uint8, n)
				mulQuantUint8Generic(want, a, b, &p)
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

// TestMulQuantFormula checks the kernel against the formula in 64-bit
// arithmetic: multiplier one half and shift -3 divide the offset product
// by 16, rounded half away from zero.
func TestMulQuantFormula(t *testing.T) {
	p := QuantMul{In1Offset: 4, In2Offset: -2, Mult: 1 << 30, Shift: -3, OutOffset: -1, Lo: -128, Hi: 127}
	a := []int8{-4, 10, 100, -100, 127, 4, 3, -128, 7}
	b := []int8{9, 5, 100, 100, 127, 10, 2, -128, 2}
	dst := make([]int8, len(a))
	MulQuantInt8(dst, a, b, &p)
	for i := range a {
		prod := float64((int(a[i]) + 4) * (int(b[i]) - 2))
		want := int32(math.Round(prod/16)) - 1
		want = min(max(want, -128), 127)
		if int32(dst[i]) != want {
			t.Errorf("[%d] %d·%d: got %d, want %d", i, a[i], b[i], dst[i], want)
		}
	}
}

func TestMulQuantPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"int8 range":  func() { MulQuantInt8(nil, nil, nil, &QuantMul{Lo: 5, Hi: 4}) },
		"uint8 range": func() { MulQuantUint8(nil, nil, nil, &QuantMul{Lo: -1, Hi: 0}) },
		"short input": func() { MulQuantUint8(make([]uint8, 3), make([]uint8, 3), make([]uint8, 1), &QuantMul{}) },
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
