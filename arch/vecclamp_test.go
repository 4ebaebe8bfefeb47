package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of VecClamp: every usable implementation gives the portable
// result bit for bit (NaN payloads, ±0 and ±Inf included) for lengths
// 0..257 at odd offsets and ending right before an inaccessible page,
// with guard bands around the slice, for the fused activations' bounds
// and odd ones (lo = hi, lo > hi, zero bounds of either sign).

func vecClampCase(t *testing.T, name string, f func(v []float32, lo, hi float32), x []float32, lo, hi float32, off int) {
	t.Helper()
	buf, v := guardedF32(len(x), off)
	copy(v, x)
	want := append([]float32(nil), x...)
	vecClampGeneric(want, lo, hi)
	f(v, lo, hi)
	checkGuardsF32(t, name, buf, guard+off, len(x))
	for i := range v {
		if math.Float32bits(v[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s n=%d [%g, %g] element %d (%v): got %v (%#x), want %v (%#x)", name, len(x), lo, hi, i, x[i], v[i], math.Float32bits(v[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

var clampBounds = [][2]float32{
	{-math.MaxFloat32, math.MaxFloat32}, {0, math.MaxFloat32}, {0, 6}, {-1, 1}, {0, 1},
	{float32(math.Copysign(0, -1)), 1}, {-2, float32(math.Copysign(0, -1))}, {3, 3}, {5, -5},
}

func TestTwinVecClamp(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001), 1e-45, -1e-45,
		math.MaxFloat32, -math.MaxFloat32, 6, -1, 1}
	for _, im := range implsOf(vecClampImpls) {
		tail := tailF32(t, 257)
		for n := 0; n <= 257; n++ {
			x := make([]float32, n)
			genF32(r, x, kindMixed)
			for i := range x {
				if r.IntN(4) == 0 {
					x[i] = specials[r.IntN(len(specials))]
				} else {
					x[i] *= 8
				}
			}
			b := clampBounds[n%len(clampBounds)]
			vecClampCase(t, im.name, im.fn, x, b[0], b[1], n%4)
			// In place right before an inaccessible page.
			v := tail[len(tail)-n:]
			copy(v, x)
			im.fn(v, b[0], b[1])
			want := append([]float32(nil), x...)
			vecClampGeneric(want, b[0], b[1])
			for i := range v {
				if math.Float32bits(v[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s n=%d at a page end: element %d got %v want %v", im.name, n, i, v[i], want[i])
				}
			}
		}
	}
	// The exported function at every level.
	forEachLevel(t, func(t *testing.T) {
		x := []float32{-7, float32(math.NaN()), float32(math.Copysign(0, -1)), 3, float32(math.Inf(1))}
		vecClampCase(t, "VecClamp", VecClamp, x, 0, 6, 0)
		VecClamp(nil, 0, 1)
	})
}

// FuzzVecClamp compares every implementation with the portable one on
// fuzzer-chosen values and bounds.
//
//	go test ./arch -run='^$' -fuzz=FuzzVecClamp -fuzztime=1m
func FuzzVecClamp(f *testing.F) {
	f.Add(seedF32(0, 6), seedF32(-1, 7, float32(math.NaN()), float32(math.Copysign(0, -1)), 3))
	f.Add(seedF32(-math.MaxFloat32, math.MaxFloat32), seedF32(float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40))
	f.Fuzz(func(t *testing.T, bounds, data []byte) {
		if len(bounds) < 8 {
			return
		}
		b := bytesToF32(bounds)
		x := bytesToF32(data)
		for _, im := range implsOf(vecClampImpls) {
			vecClampCase(t, im.name, im.fn, x, b[0], b[1], 1)
		}
	})
}
