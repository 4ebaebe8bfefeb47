package signal_test

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
	"github.com/tflrun/tflrun/schema"
)

// Hostile options and tensors: each must be refused at Prepare (or Eval,
// for a run-time value) with an error saying what is wrong, never a
// panic. Through the interpreter the error also names the operator.

func i16(shape []int) *ops.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return tensorOf(ops.Int16, shape, make([]int16, n))
}

func u32(n int) *ops.Tensor { return tensorOf(ops.Uint32, []int{n}, make([]uint32, n)) }

func table(v ...int16) *ops.Tensor { return constOf(ops.Int16, []int{len(v)}, v) }

func TestHostile(t *testing.T) {
	spectral := func(kv ...any) []byte {
		m := map[string]any{"alternate_one_minus_smoothing": 15729, "alternate_smoothing": 655,
			"clamping": false, "min_signal_remaining": 819, "num_channels": 4, "one_minus_smoothing": 15729,
			"smoothing": 655, "smoothing_bits": 10, "spectral_subtraction_bits": 14}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		var flat []any
		for k, v := range m {
			flat = append(flat, k, v)
		}
		return opts(t, flat...)
	}
	fb := func(o []byte, tables ...*ops.Tensor) *ops.Node {
		return node(signal.FilterBankName, o, append([]*ops.Tensor{u32(8)}, tables...), ops.Uint64)
	}
	goodTables := func() []*ops.Tensor {
		return []*ops.Tensor{table(1, 2, 3, 4), table(4, 3, 2, 1), table(0, 1, 3), table(0, 1, 2), table(1, 2, 2)}
	}
	cases := []struct {
		name string
		k    func() ops.Kernel
		n    *ops.Node
		want string
	}{
		{"no options", signal.NewWindow, node(signal.WindowName, nil, []*ops.Tensor{i16([]int{8}), i16([]int{8})}, ops.Int16), "custom_options are missing"},
		{"not a FlexBuffer", signal.NewWindow, node(signal.WindowName, []byte{1, 2, 3}, []*ops.Tensor{i16([]int{8}), i16([]int{8})}, ops.Int16), "custom_options"},
		{"shift is a float", signal.NewWindow, node(signal.WindowName, opts(t, "shift", 12.0), []*ops.Tensor{i16([]int{8}), i16([]int{8})}, ops.Int16), `"shift" is a FlexBuffer float`},
		{"shift is a string", signal.NewWindow, node(signal.WindowName, opts(t, "shift", "12"), []*ops.Tensor{i16([]int{8}), i16([]int{8})}, ops.Int16), `"shift" is a FlexBuffer string`},
		{"shift 32", signal.NewWindow, node(signal.WindowName, opts(t, "shift", 32), []*ops.Tensor{i16([]int{8}), i16([]int{8})}, ops.Int16), "shift = 32"},
		{"shift -1", signal.NewWindow, node(signal.WindowName, opts(t, "shift", -1), []*ops.Tensor{i16([]int{8}), i16([]int{8})}, ops.Int16), "shift = -1"},
		{"wrong key", signal.NewWindow, node(signal.WindowName, opts(t, "shfit", 1), []*ops.Tensor{i16([]int{8}), i16([]int{8})}, ops.Int16), `entry 0 is "shfit"`},
		{"window not a divisor", signal.NewWindow, node(signal.WindowName, opts(t, "shift", 1), []*ops.Tensor{i16([]int{10}), i16([]int{8})}, ops.Int16), "not a whole number of windows"},
		{"window int32 input", signal.NewWindow, node(signal.WindowName, opts(t, "shift", 1), []*ops.Tensor{tensorOf(ops.Int32, []int{8}, make([]int32, 8)), i16([]int{8})}, ops.Int16), "type int32, need int16"},
		{"fft_length 100", signal.NewRfft, node(signal.RfftName, opts(t, "T", 7, "fft_length", 100), []*ops.Tensor{i16([]int{100})}, ops.Int16), "fft_length = 100, need a power of two"},
		{"fft_length 0", signal.NewRfft, node(signal.RfftName, opts(t, "T", 7, "fft_length", 0), []*ops.Tensor{i16([]int{4})}, ops.Int16), "fft_length = 0"},
		{"fft_length 2^30", signal.NewRfft, node(signal.RfftName, opts(t, "T", 7, "fft_length", 1<<30), []*ops.Tensor{i16([]int{4})}, ops.Int16), "fft_length = 1073741824"},
		{"fft_length 2^40", signal.NewRfft, node(signal.RfftName, opts(t, "T", 7, "fft_length", int64(1)<<40), []*ops.Tensor{i16([]int{4})}, ops.Int16), "does not fit int32"},
		{"rfft T unknown", signal.NewRfft, node(signal.RfftName, opts(t, "T", 9, "fft_length", 16), []*ops.Tensor{i16([]int{16})}, ops.Int16), "T = 9"},
		{"rfft T mismatch", signal.NewRfft, node(signal.RfftName, opts(t, "T", 2, "fft_length", 16), []*ops.Tensor{i16([]int{16})}, ops.Int32), "type int16, need int32"},
		{"rfft input too long", signal.NewRfft, node(signal.RfftName, opts(t, "T", 7, "fft_length", 16), []*ops.Tensor{i16([]int{17})}, ops.Int16), "need 1 to fft_length"},
		{"rfft T missing", signal.NewRfft, node(signal.RfftName, opts(t, "fft_length", 16), []*ops.Tensor{i16([]int{16})}, ops.Int16), "the map has 1 entries"},
		{"irfft input too short", signal.NewIrfft, node(signal.IrfftName, opts(t, "T", 7, "fft_length", 16), []*ops.Tensor{i16([]int{16})}, ops.Int16), "at least (fft_length/2+1)"},
		{"energy end past the bins", signal.NewEnergy, node(signal.EnergyName, opts(t, "end_index", 10, "start_index", 0), []*ops.Tensor{i16([]int{16})}, ops.Uint32), "end_index = 10"},
		{"energy start after end", signal.NewEnergy, node(signal.EnergyName, opts(t, "end_index", 2, "start_index", 3), []*ops.Tensor{i16([]int{16})}, ops.Uint32), "end_index = 2"},
		{"energy odd input", signal.NewEnergy, node(signal.EnergyName, opts(t, "end_index", 2, "start_index", 0), []*ops.Tensor{i16([]int{15})}, ops.Uint32), "even count"},
		{"filter bank start past the input", signal.NewFilterBank, fb(opts(t, "num_channels", 2), table(1, 2, 3, 4), table(4, 3, 2, 1), table(0, 1, 7), table(0, 1, 2), table(1, 2, 2)), "channel 2: frequency start 7"},
		{"filter bank weight start negative", signal.NewFilterBank, fb(opts(t, "num_channels", 2), table(1, 2, 3, 4), table(4, 3, 2, 1), table(0, 1, 3), table(0, -1, 2), table(1, 2, 2)), "channel 1: weight start -1"},
		{"filter bank weights past the table", signal.NewFilterBank, fb(opts(t, "num_channels", 2), table(1, 2, 3, 4), table(4, 3, 2, 1), table(0, 1, 3), table(0, 1, 3), table(1, 2, 2)), "channel 2: weight start 3"},
		{"filter bank short tables", signal.NewFilterBank, fb(opts(t, "num_channels", 3), goodTables()...), "need num_channels+1 = 4"},
		{"filter bank unweights length", signal.NewFilterBank, fb(opts(t, "num_channels", 2), table(1, 2, 3, 4), table(4, 3, 2), table(0, 1, 3), table(0, 1, 2), table(1, 2, 2)), "input 2 (unweights): 3 values"},
		{"filter bank tables not constant", signal.NewFilterBank, fb(opts(t, "num_channels", 2), table(1, 2, 3, 4), table(4, 3, 2, 1), tensorOf(ops.Int16, []int{3}, []int16{0, 1, 3}), table(0, 1, 2), table(1, 2, 2)), "must be a constant"},
		{"filter bank num_channels -1", signal.NewFilterBank, fb(opts(t, "num_channels", -1), goodTables()...), "num_channels = -1"},
		{"spectral bits 64", signal.NewFilterBankSpectralSubtraction, node(signal.FilterBankSpectralSubtractionName, spectral("spectral_subtraction_bits", 64), []*ops.Tensor{u32(4)}, ops.Uint32, ops.Uint32), "spectral_subtraction_bits = 64"},
		{"spectral smoothing_bits 32", signal.NewFilterBankSpectralSubtraction, node(signal.FilterBankSpectralSubtractionName, spectral("smoothing_bits", 32), []*ops.Tensor{u32(4)}, ops.Uint32, ops.Uint32), "smoothing_bits = 32"},
		{"spectral channels mismatch", signal.NewFilterBankSpectralSubtraction, node(signal.FilterBankSpectralSubtractionName, spectral("num_channels", 5), []*ops.Tensor{u32(4)}, ops.Uint32, ops.Uint32), "num_channels = 5"},
		{"spectral clamping a float", signal.NewFilterBankSpectralSubtraction, node(signal.FilterBankSpectralSubtractionName, spectral("clamping", 1.0), []*ops.Tensor{u32(4)}, ops.Uint32, ops.Uint32), `"clamping" is a FlexBuffer float, need a bool`},
		{"spectral clamping 2", signal.NewFilterBankSpectralSubtraction, node(signal.FilterBankSpectralSubtractionName, spectral("clamping", 2), []*ops.Tensor{u32(4)}, ops.Uint32, ops.Uint32), `"clamping" = 2`},
		{"spectral smoothing negative", signal.NewFilterBankSpectralSubtraction, node(signal.FilterBankSpectralSubtractionName, spectral("smoothing", -5), []*ops.Tensor{u32(4)}, ops.Uint32, ops.Uint32), "smoothing = -5"},
		{"log correction 32", signal.NewFilterBankLog, node(signal.FilterBankLogName, opts(t, "input_correction_bits", 32, "output_scale", 1), []*ops.Tensor{u32(4)}, ops.Int16), "input_correction_bits = 32"},
		{"log scale 0", signal.NewFilterBankLog, node(signal.FilterBankLogName, opts(t, "input_correction_bits", 3, "output_scale", 0), []*ops.Tensor{u32(4)}, ops.Int16), "output_scale = 0"},
		{"log keys swapped", signal.NewFilterBankLog, node(signal.FilterBankLogName, opts(t, "a", 3, "output_scale", 1), []*ops.Tensor{u32(4)}, ops.Int16), `reads "input_correction_bits" there`},
		{"pcan snr_shift 64", signal.NewPCAN, node(signal.PCANName, opts(t, "snr_shift", 64), []*ops.Tensor{u32(4), u32(4), i16([]int{125})}, ops.Uint32), "snr_shift = 64"},
		{"pcan short lut", signal.NewPCAN, node(signal.PCANName, opts(t, "snr_shift", 6), []*ops.Tensor{u32(4), u32(4), i16([]int{124})}, ops.Uint32), "need at least 125"},
		{"pcan estimate size", signal.NewPCAN, node(signal.PCANName, opts(t, "snr_shift", 6), []*ops.Tensor{u32(4), u32(3), i16([]int{125})}, ops.Uint32), "input 1 (noise_estimate): 3 channels"},
		{"framer step past size with prefill", signal.NewFramer, node(signal.FramerName, opts(t, "frame_size", 2, "frame_step", 4, "prefill", true), []*ops.Tensor{i16([]int{4})}, ops.Int16, ops.Bool), "frame_step = 4"},
		{"framer input not a multiple", signal.NewFramer, node(signal.FramerName, opts(t, "frame_size", 4, "frame_step", 3, "prefill", false), []*ops.Tensor{i16([]int{4})}, ops.Int16, ops.Bool), "multiple of frame_step"},
		{"stacker step past the context", signal.NewStacker, node(signal.StackerName, opts(t, "num_channels", 4, "stacker_left_context", 0, "stacker_right_context", 0, "stacker_step", 2), []*ops.Tensor{i16([]int{4})}, ops.Int16, ops.Bool), "stacker_step = 2"},
		{"stacker channels mismatch", signal.NewStacker, node(signal.StackerName, opts(t, "num_channels", 5, "stacker_left_context", 0, "stacker_right_context", 0, "stacker_step", 1), []*ops.Tensor{i16([]int{4})}, ops.Int16, ops.Bool), "num_channels = 5"},
		{"overlap step past the frame", signal.NewOverlapAdd, node(signal.OverlapAddName, opts(t, "T", 7, "frame_step", 5), []*ops.Tensor{i16([]int{2, 4})}, ops.Int16), "frame_size 4 is less than frame_step 5"},
		{"overlap rank 1", signal.NewOverlapAdd, node(signal.OverlapAddName, opts(t, "T", 7, "frame_step", 1), []*ops.Tensor{i16([]int{4})}, ops.Int16), "need [..., frames, frame_size]"},
		{"delay negative", signal.NewDelay, node(signal.DelayName, opts(t, "delay_length", -1), []*ops.Tensor{i16([]int{4})}, ops.Int16), "delay_length = -1"},
		{"delay huge", signal.NewDelay, node(signal.DelayName, opts(t, "delay_length", 1<<30), []*ops.Tensor{i16([]int{4})}, ops.Int16), "delay_length = 1073741824"},
		{"auto scale two outputs", signal.NewFftAutoScale, node(signal.FftAutoScaleName, nil, []*ops.Tensor{i16([]int{4})}, ops.Int16), "has 1 outputs, needs 2"},
		{"sqrt scale_bits not a scalar", signal.NewFilterBankSquareRoot, node(signal.FilterBankSquareRootName, nil, []*ops.Tensor{tensorOf(ops.Uint64, []int{2}, []uint64{1, 2}), tensorOf(ops.Int32, []int{1}, []int32{1})}, ops.Uint32), "need rank 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.k().Prepare(c.n)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Prepare: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestHostileEval: scale_bits is a run-time value; one a shift cannot
// take is an error at Eval.
func TestHostileEval(t *testing.T) {
	for _, s := range []int32{-1, 32, 1 << 30} {
		sb := tensorOf(ops.Int32, []int{}, []int32{0})
		n := node(signal.FilterBankSquareRootName, nil, []*ops.Tensor{tensorOf(ops.Uint64, []int{2}, []uint64{1, 2}), sb}, ops.Uint32)
		k := signal.NewFilterBankSquareRoot()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		sb.Int32s()[0] = s
		if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "scale_bits") {
			t.Fatalf("scale_bits %d: Eval %v, want an error naming scale_bits", s, err)
		}
	}
}

// TestHostileNamesOperator: in a model, the interpreter's error names the
// Signal operator and the option.
func TestHostileNamesOperator(t *testing.T) {
	b := optest.NewBuilder()
	in := b.Tensor("in", schema.TensorTypeINT16, []int32{8}, nil)
	out := b.Tensor("out", schema.TensorTypeINT16, []int32{10}, nil)
	b.Inputs(in)
	b.Outputs(out)
	b.Custom(signal.RfftName, []int32{in}, []int32{out}, opts(t, "T", 7, "fft_length", 12))
	m, err := interpreter.LoadBytes(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	err = it.AllocateTensors()
	if err == nil || !strings.Contains(err.Error(), "SignalRfft") || !strings.Contains(err.Error(), "fft_length = 12") {
		t.Fatalf("AllocateTensors: %v, want an error naming SignalRfft and fft_length", err)
	}
	t.Log(err)
}
