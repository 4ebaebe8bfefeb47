package builtin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// TestBroadcastFloat32MatchesPerElement compares the vector path of float
// ADD, SUB and MUL with the per-element broadcastApply over random shapes
// of rank 0 to 6 (every dimension either shared, 1 on one side or absent),
// values that include ±0, ±Inf, NaN, subnormals and large magnitudes, and
// with and without a clamp: every output must have the same bits (NaN
// compared as NaN). Shapes of more than 1<<14 output elements are drawn
// again (TFLRUN_EXHAUSTIVE=1 keeps them: the sweep then takes seconds).
func TestBroadcastFloat32MatchesPerElement(t *testing.T) {
	maxElems := 1 << 14
	if os.Getenv("TFLRUN_EXHAUSTIVE") != "" {
		maxElems = math.MaxInt
	}
	rng := rand.New(rand.NewPCG(7, 11))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 1e-40, -1e-40, 3e38, -3e38, 1, -1}
	value := func() float32 {
		if rng.IntN(8) == 0 {
			return specials[rng.IntN(len(specials))]
		}
		return float32(rng.NormFloat64() * 4)
	}
	clamps := []struct {
		lo, hi float32
		on     bool
	}{{0, 0, false}, {0, float32(math.MaxFloat32), true}, {0, 6, true}, {-1, 1, true}}
	for trial := 0; trial < 400; trial++ {
		var sa, sb []int
		var bc broadcast
		for {
			rank := rng.IntN(7)
			sa, sb = nil, nil
			for i := 0; i < rank; i++ {
				d := 1 + rng.IntN(5)
				if rng.IntN(4) == 0 {
					d = 17 + rng.IntN(20) // longer than arch's short-vector cutoff
				}
				da, db := d, d
				switch rng.IntN(4) {
				case 0:
					da = 1
				case 1:
					db = 1
				}
				sa, sb = append(sa, da), append(sb, db)
			}
			// Drop leading dimensions of one side now and then (implicit 1s).
			if rank > 0 && rng.IntN(3) == 0 {
				sb = sb[rng.IntN(rank+1):]
			}
			if err := bc.prepare(sa, sb); err != nil {
				t.Fatalf("%v %v: %v", sa, sb, err)
			}
			if bc.count <= maxElems {
				break
			}
		}
		count := func(s []int) int {
			n := 1
			for _, d := range s {
				n *= d
			}
			return n
		}
		a, b := make([]float32, count(sa)), make([]float32, count(sb))
		for i := range a {
			a[i] = value()
		}
		for i := range b {
			b[i] = value()
		}
		for _, op := range []floatBinaryOp{floatAdd, floatSub, floatMul} {
			// The per-element result, computed once and clamped per case.
			plain := make([]float32, bc.count)
			broadcastApply(&bc, a, b, plain, func(x, y float32) float32 { return floatOp(op, x, y) })
			want := make([]float32, bc.count)
			got := make([]float32, bc.count+2)
			for _, c := range clamps {
				for i, v := range plain {
					if c.on {
						v = clampF32(v, c.lo, c.hi)
					}
					want[i] = v
				}
				for i := range got {
					got[i] = 12345 // unwritten outputs and the guard band
				}
				lo, hi := c.lo, c.hi
				if !c.on { // no clamp: the whole float range, infinities included
					lo, hi = float32(math.Inf(-1)), float32(math.Inf(1))
				}
				broadcastFloat32(&bc, a, b, got, op, lo, hi)
				name := fmt.Sprintf("a%v b%v op %d clamp %v", sa, sb, op, c)
				for i, w := range want {
					g := got[i]
					if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
						t.Fatalf("%s: out[%d] = %v (%#x), per-element %v (%#x)", name, i, g, math.Float32bits(g), w, math.Float32bits(w))
					}
				}
				if got[bc.count] != 12345 || got[bc.count+1] != 12345 {
					t.Fatalf("%s: wrote past the output", name)
				}
			}
		}
	}
}

// BenchmarkBroadcastFloat32 times a per-channel ADD ([1, 32, 64, 16] +
// [16], a batch normalisation's offset) on the vector path and on the
// per-element path.
func BenchmarkBroadcastFloat32(b *testing.B) {
	sa, sb := []int{1, 32, 64, 16}, []int{16}
	var bc broadcast
	if err := bc.prepare(sa, sb); err != nil {
		b.Fatal(err)
	}
	x, y, out := make([]float32, 32*64*16), make([]float32, 16), make([]float32, 32*64*16)
	b.Run("vector", func(b *testing.B) {
		for b.Loop() {
			broadcastFloat32(&bc, x, y, out, floatAdd, -math.MaxFloat32, math.MaxFloat32)
		}
	})
	b.Run("per-element", func(b *testing.B) {
		for b.Loop() {
			broadcastApply(&bc, x, y, out, func(x, y float32) float32 { return x + y })
		}
	})
}
