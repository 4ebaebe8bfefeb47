package signal_test

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestOverlapAdd: TensorFlow's SignalOverlapAdd example (five frames of
// 3, step 2 → 1 2, 7 5, 13 8, 9 1, 5 4), in one Invoke for float32 and
// one frame per Invoke for int16 (the accumulator carries over), and the
// int16 saturation.
func TestOverlapAdd(t *testing.T) {
	frames := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5}
	want := []float32{1, 2, 7, 5, 13, 8, 9, 1, 5, 4}
	n := node(signal.OverlapAddName, opts(t, "T", 0, "frame_step", 2),
		[]*ops.Tensor{tensorOf(ops.Float32, []int{5, 3}, frames)}, ops.Float32)
	mustRun(t, signal.NewOverlapAdd(), n)
	expectEqual(t, "float32", n.Outputs[0].Float32s(), want)

	in := tensorOf(ops.Int16, []int{1, 3}, make([]int16, 3))
	n = node(signal.OverlapAddName, opts(t, "T", 7, "frame_step", 2), []*ops.Tensor{in}, ops.Int16)
	k := signal.NewOverlapAdd()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	for f := 0; f < 5; f++ {
		for j := 0; j < 3; j++ {
			in.Int16s()[j] = int16(frames[3*f+j])
		}
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		expectEqual(t, "int16", n.Outputs[0].Int16s(), []int16{int16(want[2*f]), int16(want[2*f+1])})
	}
	copy(in.Int16s(), []int16{30000, 30000, 30000})
	k.(ops.StatefulKernel).ResetState()
	_ = k.Eval(n)
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	expectEqual(t, "saturated", n.Outputs[0].Int16s(), []int16{32767, 30000})
}
