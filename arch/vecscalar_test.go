package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTwinVecScalarF32: every usable implementation gives Go's float32
// results for every operation, lengths 0..300 at odd offsets, a ending
// right before an inaccessible page, guard bands around dst, in place,
// and operands with ±0, ±Inf, NaN, subnormals and huge values.
func TestTwinVecScalarF32(t *testing.T) {
	r := rand.New(rand.NewPCG(99, 100))
	ys := []float32{0, float32(math.Copysign(0, -1)), 1.5, -3.25, float32(math.Inf(1)), float32(math.NaN()), 1e-40, 3e38}
	for _, im := range implsOf(vecScalarF32Impls) {
		tail := tailF32(t, 300)
		for n := 0; n <= 300; n++ {
			a := tail[300-n:]
			copy(a, genPRelu(r, n))
			for op := ScalarAdd; op <= ScalarRSub; op++ {
				y := ys[(n+op)%len(ys)]
				if n%3 == 0 {
					y = float32(r.NormFloat64())
				}
				want := make([]float32, n)
				for i, v := range a {
					switch op {
					case ScalarAdd:
						want[i] = v + y
					case ScalarMul:
						want[i] = v * y
					case ScalarSub:
						want[i] = v - y
					default:
						want[i] = y - v
					}
				}
				off := n % 5
				buf, dst := guardedF32(n, off)
				im.fn(dst, a, y, op)
				checkGuardsF32(t, im.name, buf, guard+off, n)
				bilinearSame(t, im.name, dst, want)
				in := append([]float32(nil), a...)
				im.fn(in, in, y, op)
				bilinearSame(t, im.name+" in place", in, want)
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("VecScalarF32 with op 4 did not panic")
			}
		}()
		VecScalarF32(make([]float32, 1), []float32{1}, 1, 4)
	})
}

// BenchmarkVecScalarF32 times every usable implementation of
// VecScalarF32 (multiply, in place) on 64K floats (go test ./arch -run
// '^$' -bench 'VecScalarF32').
func BenchmarkVecScalarF32(b *testing.B) {
	a := make([]float32, 1<<16)
	for i := range a {
		a[i] = float32(i%97) * 0.25
	}
	for _, im := range implsOf(vecScalarF32Impls) {
		b.Run(im.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(a)))
			for b.Loop() {
				im.fn(a, a, 1.0000001, ScalarMul)
			}
		})
	}
}
