package signal_test

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestPCANSmall: with a gain table whose entries are zero except the
// constant terms, the gain is that constant; noise estimates 0…2 index
// the table directly. snr = input·gain >> snr_shift, then the shrink:
// snr²>>20 below 8192, (snr>>6) − 64 from there.
func TestPCANSmall(t *testing.T) {
	lut := make([]int16, 125)
	lut[0], lut[1], lut[2] = 64, 128, 4096 // x ≤ 2: the gain is lut[x]
	for msb := 3; msb <= 32; msb++ {       // x ≥ 4 (x = 3 would share lut[2])
		lut[4*msb-6] = 256 // gain 256
		lut[4*msb-5], lut[4*msb-4] = 0, 0
	}
	in := []uint32{100, 100, 100, 1000, 1 << 20}
	est := []uint32{0, 1, 2, 1000, 5}
	n := node(signal.PCANName, opts(t, "snr_shift", 6), []*ops.Tensor{
		tensorOf(ops.Uint32, []int{5}, in), tensorOf(ops.Uint32, []int{5}, est), tensorOf(ops.Int16, []int{125}, lut)}, ops.Uint32)
	mustRun(t, signal.NewPCAN(), n)
	shrink := func(x uint32) uint32 {
		if x < 8192 {
			return x * x >> 20
		}
		return x>>6 - 64
	}
	want := []uint32{
		shrink(100 * 64 >> 6), shrink(100 * 128 >> 6), shrink(100 * 4096 >> 6),
		shrink(1000 * 256 >> 6), shrink(uint32(uint64(1<<20) * 256 >> 6)),
	}
	expectEqual(t, "output", n.Outputs[0].Uint32s(), want)
}

// TestPCANTFLM replays TFLite Micro's pcan_test.cc.
func TestPCANTFLM(t *testing.T) {
	c := loadTFLMCase(t, "pcan_test.cc", "pcan_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			in := values[uint32](t, ct.array(t, "input"))
			est := values[uint32](t, ct.array(t, "noise_estimate"))
			lut := values[int16](t, ct.array(t, "gain_lut"))
			n := node(signal.PCANName, c.options(t, ct), []*ops.Tensor{
				tensorOf(ops.Uint32, []int{len(in)}, in), tensorOf(ops.Uint32, []int{len(est)}, est),
				tensorOf(ops.Int16, []int{len(lut)}, lut)}, ops.Uint32)
			mustRun(t, signal.NewPCAN(), n)
			expectEqual(t, "output", n.Outputs[0].Uint32s(), values[uint32](t, ct.array(t, "golden")))
		})
	}
}
