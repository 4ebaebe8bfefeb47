package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// genQuantPRelu returns parameters as TFLite's PRELU derives them (a
// positive multiplier, a shift of either sign, zero points across the
// type including its extremes) or, for wild, arbitrary ones (shifts
// beyond the vector range, MinInt32 and other odd multipliers).
func genQuantPRelu(r *rand.Rand, wild bool, lo, hi int32) QuantPRelu {
	mult := func() int32 { return int32(1<<30 + r.Int64N(1<<30)) }
	zp := func() int32 {
		switch r.IntN(4) {
		case 0:
			return lo
		case 1:
			return hi
		}
		return lo + int32(r.IntN(int(hi-lo+1)))
	}
	p := QuantPRelu{
		InOffset: -zp(), AlphaOffset: -zp(), OutOffset: zp(),
		PosMult: mult(), PosShift: r.IntN(12) - 6,
		NegMult: mult(), NegShift: r.IntN(20) - 16,
		Lo: lo, Hi: hi,
	}
	if wild {
		p.PosShift, p.NegShift = r.IntN(70)-35, r.IntN(70)-35
		ms := []int32{math.MinInt32, math.MaxInt32, 1, 0, -1 << 30, int32(r.Uint32())}
		p.PosMult, p.NegMult = ms[r.IntN(len(ms))], ms[r.IntN(len(ms))]
		p.OutOffset = int32(r.Uint32())
		a, b := lo+int32(r.IntN(int(hi-lo+1))), lo+int32(r.IntN(int(hi-lo+1)))
		p.Lo, p.Hi = min(a, b), max(a, b)
	}
	return p
}

// checkPReluTwin compares one implementation of a quantised PRELU with
// the portable one on sizes 0..257, unaligned operands, random and
// extreme values, and checks it writes only dst.
func checkPReluTwin[T int8 | uint8](t *testing.T, seed uint64, impls []impl[func(dst, x, alpha []T, p *QuantPRelu)], generic func(dst, x, alpha []T, p *QuantPRelu), lo, hi int32) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	edges := []T{T(lo), T(hi), T(lo + 1), T(hi - 1), 0}
	for _, im := range impls {
		for n := 0; n <= 257; n++ {
			for trial := range 4 {
				p := genQuantPRelu(r, trial == 3, lo, hi)
				x, alpha := make([]T, n+1)[1:], make([]T, n+3)[3:]
				for i := range x {
					x[i], alpha[i] = T(r.Uint32()), T(r.Uint32())
					if trial == 2 {
						x[i], alpha[i] = edges[r.IntN(len(edges))], edges[r.IntN(len(edges))]
					}
				}
				buf := make([]T, n+2*guard)
				for i := range buf {
					buf[i] = 0x5a
				}
				dst := buf[guard : guard+n : guard+n]
				want := make([]T, n)
				generic(want, x, alpha, &p)
				im.fn(dst, x, alpha, &p)
				for i := range want {
					if dst[i] != want[i] {
						t.Fatalf("%s n=%d trial %d [%d]: x %d alpha %d got %d, want %d (%+v)", im.name, n, trial, i, x[i], alpha[i], dst[i], want[i], p)
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

func TestTwinPReluQuantInt8(t *testing.T) {
	checkPReluTwin(t, 71, implsOf(preluQuantInt8Impls), preluQuantInt8Generic, -128, 127)
}

func TestTwinPReluQuantUint8(t *testing.T) {
	checkPReluTwin(t, 73, implsOf(preluQuantUint8Impls), preluQuantUint8Generic, 0, 255)
}

// TestPReluQuantFormula checks the portable code against TFLite's
// arithmetic written out for every input and alpha byte of one
// parameter set, and both branches' boundary (v = 0 takes the positive
// one).
func TestPReluQuantFormula(t *testing.T) {
	p := QuantPRelu{InOffset: 3, AlphaOffset: -10, PosMult: 1 << 30, PosShift: 1, NegMult: 1 << 30, NegShift: -3, OutOffset: -5, Lo: -128, Hi: 127}
	x, alpha := make([]int8, 1<<16), make([]int8, 1<<16)
	for i := range x {
		x[i], alpha[i] = int8(i), int8(i>>8)
	}
	got := make([]int8, len(x))
	PReluQuantInt8(got, x, alpha, &p)
	for i := range x {
		v := int32(x[i]) + 3
		var y int32
		if v >= 0 {
			y = v // (v·2)·2^30 doubled high half: v, exactly
		} else {
			h := (v*(int32(alpha[i])-10) + 1) >> 1 // the doubling high multiply by 2^30: a half, rounded up
			y = (abs32(h) + 4) >> 3                // 2^-3, ties away from zero
			if h < 0 {
				y = -y
			}
		}
		want := int8(min(max(y-5, -128), 127))
		if got[i] != want {
			t.Fatalf("x %d alpha %d: got %d, want %d", x[i], alpha[i], got[i], want)
		}
	}
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func TestPReluQuantPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"int8 range":  func() { PReluQuantInt8(nil, nil, nil, &QuantPRelu{Lo: -129, Hi: 0}) },
		"uint8 range": func() { PReluQuantUint8(nil, nil, nil, &QuantPRelu{Lo: 0, Hi: 256}) },
		"empty range": func() { PReluQuantInt8(nil, nil, nil, &QuantPRelu{Lo: 1, Hi: 0}) },
		"short alpha": func() { PReluQuantInt8(make([]int8, 3), make([]int8, 3), make([]int8, 2), &QuantPRelu{}) },
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
