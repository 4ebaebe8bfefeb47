package signal_test

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestFramer: TensorFlow's SignalFramer example (frame_size 3, frame_step
// 2, two samples per Invoke): no frame from the first Invoke, then [1 2
// 3], [3 4 5], [5 6 7], [7 8 9]; with prefill the first Invoke already
// gives [0 1 2].
func TestFramer(t *testing.T) {
	stream := []int16{1, 2, 3, 4, 5, 6, 7, 8, 9, 0}
	for _, prefill := range []bool{false, true} {
		in := tensorOf(ops.Int16, []int{2}, []int16{0, 0})
		n := node(signal.FramerName, opts(t, "frame_size", 3, "frame_step", 2, "prefill", prefill), []*ops.Tensor{in}, ops.Int16, ops.Bool)
		k := signal.NewFramer()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		if s := n.Outputs[0].Shape; len(s) != 2 || s[0] != 1 || s[1] != 3 {
			t.Fatalf("output shape %v, want [1 3]", s)
		}
		want := [][]int16{nil, {1, 2, 3}, {3, 4, 5}, {5, 6, 7}, {7, 8, 9}}
		if prefill {
			want = [][]int16{{0, 1, 2}, {2, 3, 4}, {4, 5, 6}, {6, 7, 8}, {8, 9, 0}}
		}
		for step := 0; step < 5; step++ {
			copy(in.Int16s(), stream[2*step:])
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
			valid := n.Outputs[1].Bools()[0]
			if valid != (want[step] != nil) {
				t.Fatalf("prefill %v, Invoke %d: output_valid %v", prefill, step, valid)
			}
			if valid {
				expectEqual(t, "frame", n.Outputs[0].Int16s(), want[step])
			}
		}
	}
}

// TestFramerSeveralFrames: an Invoke of 4 samples with frame_step 2 makes
// two frames; every row has its own buffer.
func TestFramerSeveralFrames(t *testing.T) {
	in := tensorOf(ops.Int16, []int{2, 4}, []int16{1, 2, 3, 4, 10, 20, 30, 40})
	n := node(signal.FramerName, opts(t, "frame_size", 4, "frame_step", 2, "prefill", true), []*ops.Tensor{in}, ops.Int16, ops.Bool)
	mustRun(t, signal.NewFramer(), n)
	if s := n.Outputs[0].Shape; len(s) != 3 || s[1] != 2 || s[2] != 4 {
		t.Fatalf("output shape %v, want [2 2 4]", s)
	}
	expectEqual(t, "frames", n.Outputs[0].Int16s(), []int16{0, 0, 1, 2, 1, 2, 3, 4, 0, 0, 10, 20, 10, 20, 30, 40})
}
