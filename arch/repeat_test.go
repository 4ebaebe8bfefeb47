package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestTwinRepeatF32(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, im := range implsOf(repeatF32Impls) {
		for mult := 2; mult <= 35; mult++ {
			for _, n := range []int{1, 2, 3, 7, 40, 129} {
				src := make([]float32, n)
				for i := range src {
					src[i] = math.Float32frombits(r.Uint32()) // any bits, NaNs too
				}
				want := make([]float32, n*mult)
				for i := range want {
					want[i] = src[i/mult]
				}
				off := (mult + n) % 4
				buf, dst := guardedF32(n*mult, off)
				im.fn(dst, src, mult)
				checkGuardsF32(t, im.name, buf, guard+off, n*mult)
				if i := sameBitsF32(dst, want); i >= 0 {
					t.Fatalf("%s mult=%d n=%d: element %d is %#x, want %#x", im.name, mult, n, i, math.Float32bits(dst[i]), math.Float32bits(want[i]))
				}
				// In place: src the tail of dst, dst ending at a page end.
				tail := tailF32(t, n*mult)
				copy(tail[len(tail)-n:], src)
				im.fn(tail, tail[len(tail)-n:], mult)
				if i := sameBitsF32(tail, want); i >= 0 {
					t.Fatalf("%s mult=%d n=%d in place: element %d is %#x, want %#x", im.name, mult, n, i, math.Float32bits(tail[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
}

func TestRepeatF32Edges(t *testing.T) {
	dst := []float32{9, 9, 9}
	RepeatF32(dst, []float32{1, 2, 3}, 1)
	if dst[0] != 1 || dst[2] != 3 {
		t.Fatalf("mult 1: %v", dst)
	}
	RepeatF32(nil, nil, 4) // nothing to do
	for name, f := range map[string]func(){
		"mult 0":    func() { RepeatF32(make([]float32, 4), make([]float32, 2), 0) },
		"short dst": func() { RepeatF32(make([]float32, 7), make([]float32, 2), 4) },
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
