package signal_test

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestWindowSmall: products shifted right by 12 and saturated (values of
// TFLite Micro's WindowTestLength16Shift12, its first half, and two
// saturating products).
func TestWindowSmall(t *testing.T) {
	in := tensorOf(ops.Int16, []int{1, 10}, []int16{0x000, 0x100, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700, 32767, -32768})
	w := tensorOf(ops.Int16, []int{10}, []int16{0xF00, 0xE00, 0xD00, 0xC00, 0xB00, 0xA00, 0x900, 0x800, 32767, 32767})
	n := node(signal.WindowName, opts(t, "shift", 12), []*ops.Tensor{in, w}, ops.Int16)
	mustRun(t, signal.NewWindow(), n)
	expectEqual(t, "output", n.Outputs[0].Int16s(), []int16{0, 224, 416, 576, 704, 800, 864, 896, 32767, -32768})
	if got := n.Outputs[0].Shape; len(got) != 2 || got[1] != 10 {
		t.Fatalf("output shape %v", got)
	}
}

// TestWindowTFLM replays TFLite Micro's window_test.cc.
func TestWindowTFLM(t *testing.T) {
	c := loadTFLMCase(t, "window_test.cc", "window_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			in := tensorOf(ops.Int16, shapeOf(t, ct.array(t, "input1_shape")), values[int16](t, ct.array(t, "input1")))
			w := tensorOf(ops.Int16, []int{len(ct.array(t, "input2"))}, values[int16](t, ct.array(t, "input2")))
			n := node(signal.WindowName, c.options(t, ct), []*ops.Tensor{in, w}, ops.Int16)
			mustRun(t, signal.NewWindow(), n)
			expectEqual(t, "output", n.Outputs[0].Int16s(), values[int16](t, ct.array(t, "golden")))
		})
	}
}
