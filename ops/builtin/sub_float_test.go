package builtin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestSubFloatBroadcasts: float SUB through arch.VecSub over every
// broadcast class vectorRuns tells apart (same shapes, a row tiled on
// either side, a scalar on either side, a repeated column, a gathered
// middle dimension) gives x − y per element with its operands in order,
// NaN and infinities among them, then the fused activation's clamp
// (±MaxFloat32 without one, as TFLite's CalculateActivationRange; NaN
// passes).
func TestSubFloatBroadcasts(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45}
	gen := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			if r.IntN(6) == 0 {
				v[i] = specials[r.IntN(len(specials))]
			} else {
				v[i] = float32(r.NormFloat64() * 4)
			}
		}
		return v
	}
	for _, c := range []struct{ a, b []int }{
		{[]int{1, 5, 7, 19}, []int{1, 5, 7, 19}},
		{[]int{1, 6, 5, 19}, []int{19}},
		{[]int{19}, []int{1, 6, 5, 19}},
		{[]int{1, 3, 4, 50}, []int{1}},
		{[]int{1}, []int{1, 3, 4, 50}},
		{[]int{1, 3, 40, 50}, []int{3, 40, 1}},
		{[]int{2, 1, 33}, []int{1, 4, 33}},
		{[]int{1, 3, 4, 5}, []int{3, 1, 1}},
		{[]int{1, 0, 4, 5}, []int{5}},
	} {
		for _, act := range []ops.Activation{ops.ActNone, ops.ActRelu6} {
			av, bv := gen(elemsOf(c.a)), gen(elemsOf(c.b))
			got := runOut(t, NewSub(), &SubOptions{Activation: act}, []*ops.Tensor{tensorOf(ops.Float32, c.a, av), tensorOf(ops.Float32, c.b, bv)}, outTensor(ops.Float32))
			bc := &broadcast{}
			if err := bc.prepare(c.a, c.b); err != nil {
				t.Fatal(err)
			}
			out := got.Float32s()
			bc.eachRun(func(o, ia, ib int) {
				for j := range bc.dims[5] {
					want := clampAct(act, av[ia+j*bc.strideA[5]]-bv[ib+j*bc.strideB[5]])
					g := out[o+j]
					if math.Float32bits(g) != math.Float32bits(want) && !(g != g && want != want) {
						t.Fatalf("SUB %v - %v act %d element %d: got %v, want %v", c.a, c.b, act, o+j, g, want)
					}
				}
			})
			if !bc.needed {
				for j := range av {
					want := clampAct(act, av[j]-bv[j])
					if g := out[j]; math.Float32bits(g) != math.Float32bits(want) && !(g != g && want != want) {
						t.Fatalf("SUB %v act %d element %d: got %v, want %v", c.a, act, j, g, want)
					}
				}
			}
		}
	}
}

// clampAct is TFLite's float activation clamp for NONE and RELU6.
func clampAct(act ops.Activation, v float32) float32 {
	lo, hi := float32(-math.MaxFloat32), float32(math.MaxFloat32)
	if act == ops.ActRelu6 {
		lo, hi = 0, 6
	}
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// BenchmarkSubFloat times float SUB on a 64×64×32 tensor minus one of
// its shape ("same") and minus a channel row ("row"), through the
// kernel (arch.VecSub over vectorRuns) and through broadcastFloat32's
// per-element loop ("loop", the earlier path), in one run.
func BenchmarkSubFloat(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, 64*64*32)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for _, c := range []struct {
		name   string
		bShape []int
	}{{"same", []int{1, 64, 64, 32}}, {"row", []int{32}}} {
		y := make([]float32, elemsOf(c.bShape))
		for i := range y {
			y[i] = float32(r.NormFloat64())
		}
		for _, path := range []string{"kernel", "loop"} {
			b.Run(c.name+"/"+path, func(b *testing.B) {
				n := node(&SubOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 64, 64, 32}, x), tensorOf(ops.Float32, c.bShape, y)}, outTensor(ops.Float32))
				k := NewSub().(*Sub)
				if err := prepare(k, n); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(4 * len(x)))
				b.ResetTimer()
				for range b.N {
					if path == "kernel" {
						if err := k.Eval(n); err != nil {
							b.Fatal(err)
						}
					} else {
						broadcastFloat32(&k.bc, n.Inputs[0].Float32s(), n.Inputs[1].Float32s(), n.Outputs[0].Float32s(), floatSub, k.fMin, k.fMax)
					}
				}
			})
		}
	}
}
