package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestRandomUniformStream checks RANDOM_UNIFORM against its definition
// (Philox blocks from the seeds, four outputs per block, state kept
// across Invokes, reset by Prepare), on constant and run-time shapes.
func TestRandomUniformStream(t *testing.T) {
	opts := &RandomOptions{Seed: 87654321, Seed2: -3}
	for _, shape := range [][]int32{{}, {0}, {1}, {3}, {2, 3}, {5, 4, 3}} {
		for _, dynamic := range []bool{false, true} {
			s := tensorOf(ops.Int32, []int{len(shape)}, shape)
			if !dynamic {
				s = constT(s)
			}
			n := node(opts, []*ops.Tensor{s}, outTensor(ops.Float32))
			k := NewRandomUniform()
			run(t, k, n)
			ref := newPhilox(87654321, uint64(math.MaxUint64-2))
			for call := 0; call < 3; call++ {
				if err := k.Eval(n); err != nil {
					t.Fatal(err)
				}
				want := 1
				for _, d := range shape {
					want *= int(d)
				}
				wantShape(t, n.Outputs[0].Shape, intsOf(shape))
				got := n.Outputs[0].Float32s()
				for i := 0; i < want; i += 4 {
					w := ref.next()
					for j := 0; j < 4 && i+j < want; j++ {
						v := float32(w[j]&0x7fffff) / (1 << 23)
						if got[i+j] != v || v < 0 || v >= 1 {
							t.Fatalf("shape %v call %d element %d: %v, want %v", shape, call, i+j, got[i+j], v)
						}
					}
				}
			}
		}
	}
}

func intsOf(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// TestRandomUniformSeeds: equal seeds give equal streams, other seeds
// other streams, and seeds (0, 0) a fresh non-deterministic stream per
// Prepare, as TFLite.
func TestRandomUniformSeeds(t *testing.T) {
	draw := func(o *RandomOptions) []float32 {
		n := node(o, []*ops.Tensor{c32(64)}, outTensor(ops.Float32))
		k := NewRandomUniform()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		noAllocs(t, k, n)
		return append([]float32(nil), n.Outputs[0].Float32s()...)
	}
	same := func(a, b []float32) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if a, b := draw(&RandomOptions{Seed: 1}), draw(&RandomOptions{Seed: 1}); !same(a, b) {
		t.Error("seed 1 twice: streams differ")
	}
	if a, b := draw(&RandomOptions{Seed: 1}), draw(&RandomOptions{Seed2: 1}); same(a, b) {
		t.Error("seed and seed2 swapped: same stream")
	}
	if a, b := draw(nil), draw(&RandomOptions{}); same(a, b) {
		t.Error("seeds (0, 0): two runs gave the same 64 values")
	}
}

// TestRandomUniformErrors feeds what TFLite's Prepare refuses, and the
// shapes that cannot be sized.
func TestRandomUniformErrors(t *testing.T) {
	o := &RandomOptions{Seed: 1}
	for _, k := range []func() ops.Kernel{NewRandomUniform, NewRandomStandardNormal} {
		wantPrepareError(t, k(), node(o, []*ops.Tensor{constT(tensorOf(ops.Int64, []int{1}, []int64{2}))}, outTensor(ops.Float32)), "int64")
		wantPrepareError(t, k(), node(o, []*ops.Tensor{constT(tensorOf(ops.Int32, []int{}, []int32{2}))}, outTensor(ops.Float32)), "1-D")
		wantPrepareError(t, k(), node(o, []*ops.Tensor{c32(2)}, outTensor(ops.Int32)), "output 0")
		wantPrepareError(t, k(), node(o, []*ops.Tensor{c32(2, -1)}, outTensor(ops.Float32)), "entry 1")
		wantPrepareError(t, k(), node(o, []*ops.Tensor{c32(1<<20, 1<<20)}, outTensor(ops.Float32)), "elements")
		wantPrepareError(t, k(), node(o, []*ops.Tensor{c32(2), c32(2)}, outTensor(ops.Float32)))
		wantPrepareError(t, k(), node(&DepthToSpaceOptions{}, []*ops.Tensor{c32(2)}, outTensor(ops.Float32)), "RandomOptions")
		// A run-time shape is checked at Eval.
		for _, bad := range [][]int32{{-1}, {1 << 16, 1 << 16}} {
			n := node(o, []*ops.Tensor{tensorOf(ops.Int32, []int{len(bad)}, bad)}, outTensor(ops.Float32))
			kk := k()
			if err := prepare(kk, n); err != nil {
				t.Fatal(err)
			}
			if err := kk.Eval(n); err == nil {
				t.Errorf("run-time shape %v: Eval succeeded", bad)
			}
		}
	}
}
