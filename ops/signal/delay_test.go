package signal_test

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestDelay: TensorFlow's SignalDelay example (delay_length 3 on ten
// samples gives 0 0 0 1 … 7, then zeros flush 8 9 0), in two rows, then
// ResetState restores the leading zeros.
func TestDelay(t *testing.T) {
	in := tensorOf(ops.Int16, []int{2, 10}, make([]int16, 20))
	n := node(signal.DelayName, opts(t, "delay_length", 3), []*ops.Tensor{in}, ops.Int16)
	k := signal.NewDelay()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	signalIn := []int16{1, 2, 3, 4, 5, 6, 7, 8, 9, 0}
	feed := func(row []int16) []int16 {
		copy(in.Int16s(), row)
		for i, v := range row { // the second row: negated
			in.Int16s()[10+i] = -v
		}
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		return n.Outputs[0].Int16s()
	}
	out := feed(signalIn)
	expectEqual(t, "first", out, []int16{0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, -1, -2, -3, -4, -5, -6, -7})
	out = feed(make([]int16, 10))
	expectEqual(t, "flush", out[:10], []int16{8, 9, 0, 0, 0, 0, 0, 0, 0, 0})
	expectEqual(t, "flush row 2", out[10:], []int16{-8, -9, 0, 0, 0, 0, 0, 0, 0, 0})
	feed(signalIn)
	k.(ops.StatefulKernel).ResetState()
	out = feed(signalIn)
	expectEqual(t, "after reset", out[:10], []int16{0, 0, 0, 1, 2, 3, 4, 5, 6, 7})
}
