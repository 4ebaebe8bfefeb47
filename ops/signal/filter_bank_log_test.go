package signal_test

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

func runLog(t *testing.T, scale, bits int, in []uint32) []int16 {
	t.Helper()
	n := node(signal.FilterBankLogName, opts(t, "output_scale", scale, "input_correction_bits", bits),
		[]*ops.Tensor{tensorOf(ops.Uint32, []int{len(in)}, in)}, ops.Int16)
	mustRun(t, signal.NewFilterBankLog(), n)
	return n.Outputs[0].Int16s()
}

// TestFilterBankLogSmall: 0 and 1 (after the shift) give 0, large values
// saturate at 32767; two values of TFLite Micro's 32-channel test (29 and
// 21 with scale 1600, 3 correction bits: 8715 and 8198); and the
// fixed-point log stays within 0.1% of ln(x)·scale over a sweep.
func TestFilterBankLogSmall(t *testing.T) {
	expectEqual(t, "zero and one", runLog(t, 1600, 0, []uint32{0, 1}), []int16{0, 0})
	expectEqual(t, "TFLM values", runLog(t, 1600, 3, []uint32{29, 21, 1 << 28}), []int16{8715, 8198, 32767})
	var in []uint32
	for x := uint64(2); x < 1<<31; x = x*3/2 + 1 {
		in = append(in, uint32(x))
	}
	got := runLog(t, 1000, 0, in)
	for i, x := range in {
		want := math.Log(float64(x)) * 1000
		if math.Abs(float64(got[i])-want) > 1+want*1e-3 {
			t.Fatalf("log(%d)·1000 = %d, want about %.1f", x, got[i], want)
		}
	}
}

// TestFilterBankLogTFLM replays TFLite Micro's filter_bank_log_test.cc.
func TestFilterBankLogTFLM(t *testing.T) {
	c := loadTFLMCase(t, "filter_bank_log_test.cc", "filter_bank_log_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			in := tensorOf(ops.Uint32, shapeOf(t, ct.array(t, "input_shape")), values[uint32](t, ct.array(t, "input")))
			n := node(signal.FilterBankLogName, c.options(t, ct), []*ops.Tensor{in}, ops.Int16)
			mustRun(t, signal.NewFilterBankLog(), n)
			expectEqual(t, "output", n.Outputs[0].Int16s(), values[int16](t, ct.array(t, "golden")))
		})
	}
}
