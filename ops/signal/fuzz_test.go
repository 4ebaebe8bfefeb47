package signal_test

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// fuzzCases are one small valid node per Signal operator with options,
// rebuilt for each input (the kernels keep no pointers into a node).
func fuzzCases(t testing.TB) []struct {
	name string
	opts []byte
	node func(o []byte) *ops.Node
	k    func() ops.Kernel
} {
	type c = struct {
		name string
		opts []byte
		node func(o []byte) *ops.Node
		k    func() ops.Kernel
	}
	return []c{
		{signal.WindowName, opts(t, "shift", 12), func(o []byte) *ops.Node {
			return node(signal.WindowName, o, []*ops.Tensor{i16([]int{1, 8}), i16([]int{8})}, ops.Int16)
		}, signal.NewWindow},
		{signal.RfftName, opts(t, "T", 7, "fft_length", 16), func(o []byte) *ops.Node {
			return node(signal.RfftName, o, []*ops.Tensor{i16([]int{12})}, ops.Int16)
		}, signal.NewRfft},
		{signal.IrfftName, opts(t, "T", 2, "fft_length", 16), func(o []byte) *ops.Node {
			return node(signal.IrfftName, o, []*ops.Tensor{tensorOf(ops.Int32, []int{18}, make([]int32, 18))}, ops.Int32)
		}, signal.NewIrfft},
		{signal.EnergyName, opts(t, "end_index", 6, "start_index", 1), func(o []byte) *ops.Node {
			return node(signal.EnergyName, o, []*ops.Tensor{i16([]int{18})}, ops.Uint32)
		}, signal.NewEnergy},
		{signal.FilterBankName, opts(t, "num_channels", 2), func(o []byte) *ops.Node {
			return node(signal.FilterBankName, o, []*ops.Tensor{u32(8), table(1, 2, 3, 4), table(4, 3, 2, 1),
				table(0, 1, 3), table(0, 1, 2), table(1, 2, 2)}, ops.Uint64)
		}, signal.NewFilterBank},
		{signal.FilterBankSpectralSubtractionName, spectralOpts(t, 4, true, 10), func(o []byte) *ops.Node {
			return node(signal.FilterBankSpectralSubtractionName, o, []*ops.Tensor{u32(4)}, ops.Uint32, ops.Uint32)
		}, signal.NewFilterBankSpectralSubtraction},
		{signal.FilterBankLogName, opts(t, "input_correction_bits", 3, "output_scale", 64), func(o []byte) *ops.Node {
			return node(signal.FilterBankLogName, o, []*ops.Tensor{u32(4)}, ops.Int16)
		}, signal.NewFilterBankLog},
		{signal.PCANName, opts(t, "snr_shift", 6), func(o []byte) *ops.Node {
			return node(signal.PCANName, o, []*ops.Tensor{u32(4), u32(4), i16([]int{125})}, ops.Uint32)
		}, signal.NewPCAN},
		{signal.FramerName, opts(t, "frame_size", 4, "frame_step", 2, "prefill", true), func(o []byte) *ops.Node {
			return node(signal.FramerName, o, []*ops.Tensor{i16([]int{4})}, ops.Int16, ops.Bool)
		}, signal.NewFramer},
		{signal.StackerName, opts(t, "num_channels", 4, "stacker_left_context", 1, "stacker_right_context", 1, "stacker_step", 1), func(o []byte) *ops.Node {
			return node(signal.StackerName, o, []*ops.Tensor{i16([]int{4})}, ops.Int16, ops.Bool)
		}, signal.NewStacker},
		{signal.OverlapAddName, opts(t, "T", 0, "frame_step", 2), func(o []byte) *ops.Node {
			return node(signal.OverlapAddName, o, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 4}, make([]float32, 8))}, ops.Float32)
		}, signal.NewOverlapAdd},
		{signal.DelayName, opts(t, "delay_length", 3), func(o []byte) *ops.Node {
			return node(signal.DelayName, o, []*ops.Tensor{i16([]int{4})}, ops.Int16)
		}, signal.NewDelay},
	}
}

// FuzzOptions gives every Signal kernel arbitrary custom_options: Prepare
// may refuse them, and options it accepts must evaluate (twice, for the
// stateful kernels) without a panic, within a bounded output size.
func FuzzOptions(f *testing.F) {
	cases := fuzzCases(f)
	for i, c := range cases {
		f.Add(uint8(i), c.opts)
	}
	f.Fuzz(func(t *testing.T, which uint8, o []byte) {
		c := cases[int(which)%len(cases)]
		n, k := c.node(o), c.k()
		if err := k.Prepare(n); err != nil {
			return
		}
		size := 0
		for _, out := range n.Outputs {
			size += out.Bytes()
		}
		if size > 1<<20 {
			return
		}
		for _, out := range n.Outputs {
			out.Data = alignedBytes(out.Bytes())
		}
		_ = k.Eval(n)
		_ = k.Eval(n)
	})
}
