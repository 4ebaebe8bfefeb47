package signal_test

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

func runStacker(t *testing.T, channels, left, right, step int, frames [][]int16) (outs [][]int16) {
	t.Helper()
	in := tensorOf(ops.Int16, []int{channels}, make([]int16, channels))
	n := node(signal.StackerName, opts(t, "num_channels", channels, "stacker_left_context", left,
		"stacker_right_context", right, "stacker_step", step), []*ops.Tensor{in}, ops.Int16, ops.Bool)
	k := signal.NewStacker()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		copy(in.Int16s(), f)
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		if n.Outputs[1].Bools()[0] {
			outs = append(outs, append([]int16(nil), n.Outputs[0].Int16s()...))
		} else {
			outs = append(outs, nil)
		}
	}
	return outs
}

// TestStacker: TensorFlow's SignalStacker example (one channel, right
// context 1, step 2: [1 2] [3 4] … every other frame), and left context:
// the first frame is repeated to fill it.
func TestStacker(t *testing.T) {
	var frames [][]int16
	for _, v := range []int16{1, 2, 3, 4, 5, 6, 7, 8, 9, 0} {
		frames = append(frames, []int16{v})
	}
	got := runStacker(t, 1, 0, 1, 2, frames)
	want := [][]int16{nil, {1, 2}, nil, {3, 4}, nil, {5, 6}, nil, {7, 8}, nil, {9, 0}}
	for i := range want {
		if (got[i] == nil) != (want[i] == nil) {
			t.Fatalf("frame %d: valid %v, want %v", i, got[i] != nil, want[i] != nil)
		}
		if want[i] != nil {
			expectEqual(t, "stack", got[i], want[i])
		}
	}
	got = runStacker(t, 2, 2, 0, 1, [][]int16{{1, 2}, {3, 4}, {5, 6}})
	expectEqual(t, "first stack", got[0], []int16{1, 2, 1, 2, 1, 2})
	expectEqual(t, "second stack", got[1], []int16{1, 2, 1, 2, 3, 4})
	expectEqual(t, "third stack", got[2], []int16{1, 2, 3, 4, 5, 6})
}

// TestStackerTFLM replays TFLite Micro's stacker_test.cc: one Invoke with
// a first frame (repeated for the left context) must give a valid stack;
// the Reset tests repeat it after ResetState.
func TestStackerTFLM(t *testing.T) {
	c := loadTFLMCase(t, "stacker_test.cc", "stacker_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			in := tensorOf(ops.Int16, shapeOf(t, ct.array(t, "input_shape")), values[int16](t, ct.array(t, "input")))
			n := node(signal.StackerName, c.options(t, ct), []*ops.Tensor{in}, ops.Int16, ops.Bool)
			k := signal.NewStacker()
			if err := prepare(k, n); err != nil {
				t.Fatal(err)
			}
			runs := 1
			if strings.Contains(ct.name, "Reset") {
				runs = 2
			}
			for r := 0; r < runs; r++ {
				if r > 0 {
					k.(ops.StatefulKernel).ResetState()
				}
				if err := k.Eval(n); err != nil {
					t.Fatal(err)
				}
				if !n.Outputs[1].Bools()[0] {
					t.Fatalf("run %d: output_valid false", r)
				}
				expectEqual(t, "output", n.Outputs[0].Int16s(), values[int16](t, ct.array(t, "golden")))
			}
		})
	}
}
