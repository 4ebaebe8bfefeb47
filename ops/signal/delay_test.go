package signal_test

import (
	"fmt"
	"strings"
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

// TestDelayTFLM replays TFLite Micro's delay_test.cc: input_num Invokes
// of input_size samples each, then (the Reset tests) ResetState and the
// same again.
func TestDelayTFLM(t *testing.T) {
	c := loadTFLMCase(t, "delay_test.cc", "delay_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			size := int(values[int32](t, ct.array(t, "kInputSize"))[0])
			num := int(values[int32](t, ct.array(t, "kInputNum"))[0])
			input, golden := values[int16](t, ct.array(t, "input")), values[int16](t, ct.array(t, "golden"))
			in := tensorOf(ops.Int16, shapeOf(t, ct.array(t, "input_shape")), make([]int16, size))
			n := node(signal.DelayName, c.options(t, ct), []*ops.Tensor{in}, ops.Int16)
			k := signal.NewDelay()
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
				for i := 0; i < num; i++ {
					copy(in.Int16s(), input[i*size:(i+1)*size])
					if err := k.Eval(n); err != nil {
						t.Fatal(err)
					}
					expectEqual(t, fmt.Sprintf("run %d Invoke %d", r, i), n.Outputs[0].Int16s(), golden[i*size:(i+1)*size])
				}
			}
		})
	}
}
