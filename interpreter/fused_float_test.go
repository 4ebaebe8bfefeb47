package interpreter

import (
	"math/rand/v2"
	"testing"
)

// TestFusedFloat checks which nodes may fuse float multiply-adds
// (ops.Node.FusedFloat): none by default, every node of a float model
// with Options.FusedFloat, none of a model with a dynamic-range
// (hybrid) convolution even then.
func TestFusedFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		typ   string
		fused bool
		want  bool
	}{{"f32", false, false}, {"f32", true, true}, {"hyb", true, false}} {
		pc := randomPadCase(rng, tc.typ, false)
		pc.mult = 16
		m, err := LoadBytes(pack(padConvModel(pc, rng)))
		if err != nil {
			t.Fatal(err)
		}
		it, err := New(m, &Options{FusedFloat: tc.fused})
		if err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatalf("%s: %v", pc, err)
		}
		for i := range it.sg.nodes {
			if got := it.sg.nodes[i].FusedFloat; got != tc.want {
				t.Errorf("%s, FusedFloat option %v: node %d (%s) FusedFloat %v, want %v", pc, tc.fused, i, it.sg.nodes[i].OpName, got, tc.want)
			}
		}
		it.Close()
	}
}
