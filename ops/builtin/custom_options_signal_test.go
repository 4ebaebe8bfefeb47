package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// The Signal library's custom operators (package ops/signal) in the
// hostile custom_options tests of custom_options_hostile_test.go: every
// one that reads a FlexBuffer map, on small valid inputs.

// signalOpts writes a FlexBuffer map of int (or bool) values.
func signalOpts(t *testing.T, kv ...any) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	for i := 0; i < len(kv); i += 2 {
		b.Key(kv[i].(string))
		switch v := kv[i+1].(type) {
		case bool:
			b.Bool(v)
		case int:
			b.Int(int64(v))
		}
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

type customCase = struct {
	name string
	opts []byte
	node func(opts []byte) *ops.Node
	k    func() ops.Kernel
}

func signalNode(name string, ins []*ops.Tensor, outs ...ops.DataType) func([]byte) *ops.Node {
	return func(opts []byte) *ops.Node {
		n := &ops.Node{OpName: name, Op: ops.BuiltinCustom, Version: 1, CustomOptions: opts}
		for _, in := range ins {
			c := *in // a fresh tensor header per node; the data is shared
			n.Inputs = append(n.Inputs, &c)
		}
		for _, typ := range outs {
			n.Outputs = append(n.Outputs, outTensor(typ))
		}
		return n
	}
}

func signalCustomNodes(t *testing.T) []customCase {
	i16 := func(shape []int, n int) *ops.Tensor { return tensorOf(ops.Int16, shape, make([]int16, n)) }
	u32 := func(n int) *ops.Tensor { return tensorOf(ops.Uint32, []int{n}, make([]uint32, n)) }
	table := func(v ...int16) *ops.Tensor { return constT(tensorOf(ops.Int16, []int{len(v)}, v)) }
	spectral := signalOpts(t, "alternate_one_minus_smoothing", 15729, "alternate_smoothing", 655,
		"clamping", false, "min_signal_remaining", 819, "num_channels", 4, "one_minus_smoothing", 15729,
		"smoothing", 655, "smoothing_bits", 10, "spectral_subtraction_bits", 14)
	return []customCase{
		{signal.WindowName, signalOpts(t, "shift", 12), signalNode(signal.WindowName, []*ops.Tensor{i16([]int{1, 8}, 8), i16([]int{8}, 8)}, ops.Int16), signal.NewWindow},
		{signal.RfftName, signalOpts(t, "T", 7, "fft_length", 16), signalNode(signal.RfftName, []*ops.Tensor{i16([]int{12}, 12)}, ops.Int16), signal.NewRfft},
		{signal.IrfftName, signalOpts(t, "T", 7, "fft_length", 16), signalNode(signal.IrfftName, []*ops.Tensor{i16([]int{18}, 18)}, ops.Int16), signal.NewIrfft},
		{signal.EnergyName, signalOpts(t, "end_index", 6, "start_index", 1), signalNode(signal.EnergyName, []*ops.Tensor{i16([]int{18}, 18)}, ops.Uint32), signal.NewEnergy},
		{signal.FilterBankName, signalOpts(t, "num_channels", 2), signalNode(signal.FilterBankName, []*ops.Tensor{
			u32(8), table(1, 2, 3, 4), table(4, 3, 2, 1), table(0, 1, 3), table(0, 1, 2), table(1, 2, 2)}, ops.Uint64), signal.NewFilterBank},
		{signal.FilterBankSpectralSubtractionName, spectral, signalNode(signal.FilterBankSpectralSubtractionName, []*ops.Tensor{u32(4)}, ops.Uint32, ops.Uint32), signal.NewFilterBankSpectralSubtraction},
		{signal.FilterBankLogName, signalOpts(t, "input_correction_bits", 3, "output_scale", 64), signalNode(signal.FilterBankLogName, []*ops.Tensor{u32(4)}, ops.Int16), signal.NewFilterBankLog},
		{signal.PCANName, signalOpts(t, "snr_shift", 6), signalNode(signal.PCANName, []*ops.Tensor{u32(4), u32(4), i16([]int{125}, 125)}, ops.Uint32), signal.NewPCAN},
		{signal.FramerName, signalOpts(t, "frame_size", 4, "frame_step", 2, "prefill", true), signalNode(signal.FramerName, []*ops.Tensor{i16([]int{4}, 4)}, ops.Int16, ops.Bool), signal.NewFramer},
		{signal.StackerName, signalOpts(t, "num_channels", 4, "stacker_left_context", 1, "stacker_right_context", 1, "stacker_step", 1), signalNode(signal.StackerName, []*ops.Tensor{i16([]int{4}, 4)}, ops.Int16, ops.Bool), signal.NewStacker},
		{signal.OverlapAddName, signalOpts(t, "T", 7, "frame_step", 2), signalNode(signal.OverlapAddName, []*ops.Tensor{i16([]int{2, 4}, 8)}, ops.Int16), signal.NewOverlapAdd},
		{signal.DelayName, signalOpts(t, "delay_length", 3), signalNode(signal.DelayName, []*ops.Tensor{i16([]int{4}, 4)}, ops.Int16), signal.NewDelay},
	}
}
