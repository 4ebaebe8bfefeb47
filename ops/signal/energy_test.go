package signal_test

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestEnergySmall: re²+im² inside [start_index, end_index), zero outside,
// and the 32-bit wrap of 2·(−32768)².
func TestEnergySmall(t *testing.T) {
	in := tensorOf(ops.Int16, []int{8}, []int16{1, 2, 3, 4, -32768, -32768, 7, 8})
	n := node(signal.EnergyName, opts(t, "start_index", 1, "end_index", 3), []*ops.Tensor{in}, ops.Uint32)
	out := n.Outputs[0]
	if err := prepare(signal.NewEnergy(), n); err != nil {
		t.Fatal(err)
	}
	for i := range out.Data {
		out.Data[i] = 0xAA // stale arena bytes
	}
	k := signal.NewEnergy()
	mustRun(t, k, n)
	expectEqual(t, "output", out.Uint32s(), []uint32{0, 25, 1 << 31, 0})
}

// TestEnergyTFLM replays TFLite Micro's energy_test.cc.
func TestEnergyTFLM(t *testing.T) {
	c := loadTFLMCase(t, "energy_test.cc", "energy_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			in := tensorOf(ops.Int16, shapeOf(t, ct.array(t, "input_shape")), values[int16](t, ct.array(t, "input")))
			n := node(signal.EnergyName, c.options(t, ct), []*ops.Tensor{in}, ops.Uint32)
			mustRun(t, signal.NewEnergy(), n)
			expectEqual(t, "output", n.Outputs[0].Uint32s(), values[uint32](t, ct.array(t, "golden")))
		})
	}
}
