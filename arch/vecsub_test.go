package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTwinVecSub compares every VecSub implementation with the portable
// one bit for bit on sizes 0..257, unaligned operands, both value
// kinds plus NaNs and infinities, in place (dst = a, dst = b) too, and
// checks that nothing outside dst is written.
func TestTwinVecSub(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	specials := []float32{float32(math.NaN()), math.Float32frombits(0xffc01234), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1))}
	for _, im := range implsOf(vecSubImpls) {
		for n := 0; n <= 257; n++ {
			for trial := range 2 * int(numKinds) {
				a, b := make([]float32, n+1)[1:], make([]float32, n+3)[3:]
				genF32(r, a, f32Kind(trial%int(numKinds)))
				genF32(r, b, f32Kind(trial%int(numKinds)))
				if trial >= int(numKinds) {
					for i := range a {
						if r.IntN(4) == 0 {
							a[i] = specials[r.IntN(len(specials))]
						}
						if r.IntN(4) == 0 {
							b[i] = specials[r.IntN(len(specials))]
						}
					}
				}
				want := make([]float32, n)
				vecSubGeneric(want, a, b)
				buf, dst := guardedF32(n, trial%3)
				im.fn(dst, a, b)
				checkGuardsF32(t, im.name, buf, guard+trial%3, n)
				for i := range want {
					if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s n=%d [%d]: %v - %v = %v, want %v", im.name, n, i, a[i], b[i], dst[i], want[i])
					}
				}
				for _, inPlace := range []string{"a", "b"} {
					a2, b2 := append([]float32(nil), a...), append([]float32(nil), b...)
					d := a2
					if inPlace == "b" {
						d = b2
					}
					im.fn(d, a2, b2)
					for i := range want {
						if math.Float32bits(d[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s n=%d in place in %s [%d]: got %v, want %v", im.name, n, inPlace, i, d[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestVecSubPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("short b: no panic")
		}
	}()
	VecSub(make([]float32, 4), make([]float32, 4), make([]float32, 3))
}
