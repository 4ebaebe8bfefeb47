package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Tests of MaxBlocksInt8, MaxBlocksUint8 and MaxBlocksInt16 (and their
// MinBlocks twins, over the same cases): every usable
// implementation gives the portable result for widths 0..130 (every
// branch of the assembly: scalar, 8-, 16- and 32-byte steps and the
// overlapping last step), random block counts and strides (overlapping,
// repeated and gapped src blocks), values at the type's extremes, dst
// inside guard bands that must stay untouched (as must the gaps between
// dst blocks), and both operands ending right before an inaccessible
// page.

func genIntMax[T int8 | uint8 | int16](r *rand.Rand, v []T) {
	lo, hi := intRange[T]()
	for i := range v {
		switch r.IntN(6) {
		case 0:
			v[i] = T(lo)
		case 1:
			v[i] = T(hi)
		default:
			v[i] = T(lo + r.Int64N(hi-lo+1))
		}
	}
}

func intRange[T int8 | uint8 | int16]() (lo, hi int64) {
	var z T
	switch any(z).(type) {
	case int8:
		return math.MinInt8, math.MaxInt8
	case uint8:
		return 0, math.MaxUint8
	}
	return math.MinInt16, math.MaxInt16
}

// tailOf is tailBytes for n values of T.
func tailOf[T int8 | uint8 | int16](t testing.TB, n int) []T {
	var z T
	b := tailBytes(t, n*int(unsafe.Sizeof(z)))
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

func twinMaxBlocksInt[T int8 | uint8 | int16](t *testing.T, p *impls[func(dst, src []T, n, width, dstStride, srcStride int)], seed uint64) {
	twinBlocksInt(t, p, maxBlocksIntGeneric[T], seed)
}

// twinBlocksInt checks every implementation of p against ref, the
// portable MaxBlocks or MinBlocks.
func twinBlocksInt[T int8 | uint8 | int16](t *testing.T, p *impls[func(dst, src []T, n, width, dstStride, srcStride int)], ref func(dst, src []T, n, width, dstStride, srcStride int), seed uint64) {
	const guard = 40
	r := rand.New(rand.NewPCG(seed, seed+1))
	for _, im := range implsOf(p) {
		for trial := 0; trial < 3000; trial++ {
			width := trial % 131
			n := 1
			if trial >= 131 {
				width = r.IntN(131)
				n = r.IntN(9)
			}
			dStride := width + r.IntN(3)*r.IntN(5)
			if n == 1 && r.IntN(2) == 0 {
				dStride = 0
			}
			sStride := r.IntN(3*width + 1)
			dLen, sLen := 0, 0
			if n > 0 {
				dLen, sLen = (n-1)*dStride+width, (n-1)*sStride+width
			}
			d0, s := make([]T, dLen), make([]T, sLen)
			genIntMax(r, d0)
			genIntMax(r, s)
			want := append([]T(nil), d0...)
			ref(want, s, n, width, dStride, sStride)
			what := fmt.Sprintf("%s n=%d width=%d strides %d/%d", im.name, n, width, dStride, sStride)
			buf := make([]T, dLen+2*guard)
			genIntMax(r, buf)
			before := append([]T(nil), buf...)
			d := buf[guard : guard+dLen]
			copy(d, d0)
			s0 := append([]T(nil), s...)
			im.fn(d, s, n, width, dStride, sStride)
			for i := range guard {
				if buf[i] != before[i] || buf[guard+dLen+i] != before[guard+dLen+i] {
					t.Fatalf("%s: guard band written", what)
				}
			}
			for i := range s {
				if s[i] != s0[i] {
					t.Fatalf("%s: src element %d changed", what, i)
				}
			}
			for i := range d {
				if d[i] != want[i] {
					t.Fatalf("%s: element %d got %d, want %d (dst %d)", what, i, d[i], want[i], d0[i])
				}
			}
			if dLen > 0 && trial%4 == 0 {
				dt, st := tailOf[T](t, dLen), tailOf[T](t, sLen)
				copy(dt, d0)
				copy(st, s)
				im.fn(dt, st, n, width, dStride, sStride)
				for i := range dt {
					if dt[i] != want[i] {
						t.Fatalf("%s at a page end: element %d got %d, want %d", what, i, dt[i], want[i])
					}
				}
			}
		}
	}
}

func TestTwinMaxBlocksInt8(t *testing.T)  { twinMaxBlocksInt(t, maxBlocksInt8Impls, 71) }
func TestTwinMaxBlocksUint8(t *testing.T) { twinMaxBlocksInt(t, maxBlocksUint8Impls, 73) }
func TestTwinMaxBlocksInt16(t *testing.T) { twinMaxBlocksInt(t, maxBlocksInt16Impls, 75) }

func TestTwinMinBlocksInt8(t *testing.T) {
	twinBlocksInt(t, minBlocksInt8Impls, minBlocksIntGeneric[int8], 77)
}
func TestTwinMinBlocksUint8(t *testing.T) {
	twinBlocksInt(t, minBlocksUint8Impls, minBlocksIntGeneric[uint8], 79)
}
func TestTwinMinBlocksInt16(t *testing.T) {
	twinBlocksInt(t, minBlocksInt16Impls, minBlocksIntGeneric[int16], 81)
}

func TestMinBlocksIntSemantics(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		d8 := []int8{-128, 127, -1, 0, 5}
		MinBlocksInt8(d8, []int8{-127, -128, 0, -1, 5}, 1, 5, 0, 0)
		if fmt.Sprint(d8) != "[-128 -128 -1 -1 5]" {
			t.Errorf("MinBlocksInt8: %v", d8)
		}
		u8 := []uint8{0, 255, 127, 128}
		MinBlocksUint8(u8, []uint8{1, 0, 128, 127}, 1, 4, 0, 0)
		if fmt.Sprint(u8) != "[0 0 127 127]" {
			t.Errorf("MinBlocksUint8: %v", u8)
		}
		d16 := []int16{-32768, 32767, -1, 256}
		MinBlocksInt16(d16, []int16{-32767, 0, 0, 255}, 1, 4, 0, 0)
		if fmt.Sprint(d16) != "[-32768 0 -1 255]" {
			t.Errorf("MinBlocksInt16: %v", d16)
		}
		// 40 values: the vector loop and its overlapping last step.
		long := make([]uint8, 40)
		src := make([]uint8, 40)
		for i := range long {
			long[i], src[i] = uint8(200+i), uint8(250-i)
		}
		MinBlocksUint8(long, src, 1, 40, 0, 0)
		for i, v := range long {
			if want := min(uint8(200+i), uint8(250-i)); v != want {
				t.Fatalf("MinBlocksUint8 element %d: %d, want %d", i, v, want)
			}
		}
	})
	for name, f := range map[string]func(){
		"short dst": func() { MinBlocksInt8(make([]int8, 3), make([]int8, 4), 1, 4, 0, 0) },
		"overlap":   func() { MinBlocksInt16(make([]int16, 8), make([]int16, 8), 2, 4, 3, 4) },
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

func TestMaxBlocksIntSemantics(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		d8 := []int8{-128, 127, -1, 0, 5}
		MaxBlocksInt8(d8, []int8{-127, -128, 0, -1, 5}, 1, 5, 0, 0)
		if fmt.Sprint(d8) != "[-127 127 0 0 5]" {
			t.Errorf("MaxBlocksInt8: %v", d8)
		}
		u8 := []uint8{0, 255, 127, 128}
		MaxBlocksUint8(u8, []uint8{1, 0, 128, 127}, 1, 4, 0, 0)
		if fmt.Sprint(u8) != "[1 255 128 128]" {
			t.Errorf("MaxBlocksUint8: %v", u8)
		}
		d16 := []int16{-32768, 32767, -1, 256}
		MaxBlocksInt16(d16, []int16{-32767, 0, 0, 255}, 1, 4, 0, 0)
		if fmt.Sprint(d16) != "[-32767 32767 0 256]" {
			t.Errorf("MaxBlocksInt16: %v", d16)
		}
		MaxBlocksInt8(nil, nil, 0, 5, 5, 5)
	})
	for name, f := range map[string]func(){
		"short dst":      func() { MaxBlocksInt8(make([]int8, 3), make([]int8, 4), 1, 4, 0, 0) },
		"short src":      func() { MaxBlocksUint8(make([]uint8, 8), make([]uint8, 7), 2, 4, 4, 4) },
		"negative width": func() { MaxBlocksInt16(nil, nil, 1, -1, 0, 0) },
		"overlap":        func() { MaxBlocksInt8(make([]int8, 8), make([]int8, 8), 2, 4, 3, 4) },
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

// BenchmarkMaxBlocksInt8 times one tap of yolo11n's SPPF pool row (20
// blocks of 128 channels, stride 1) and of a 3-channel-stride-2 row, at
// every usable implementation: go test ./arch -bench MaxBlocksInt8.
func BenchmarkMaxBlocksInt8(b *testing.B) {
	for _, g := range []struct{ n, width, sStride int }{{20, 128, 128}, {56, 24, 48}, {42, 8, 24}} {
		d, s := make([]int8, g.n*g.width), make([]int8, (g.n-1)*g.sStride+g.width)
		for _, im := range implsOf(maxBlocksInt8Impls) {
			b.Run(fmt.Sprintf("%dx%d/%s", g.n, g.width, im.name), func(b *testing.B) {
				b.SetBytes(int64(len(d)))
				for b.Loop() {
					im.fn(d, s, g.n, g.width, g.width, g.sStride)
				}
			})
		}
	}
}
