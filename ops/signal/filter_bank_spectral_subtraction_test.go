package signal_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
	"github.com/tflrun/tflrun/schema"
)

// spectralOpts are the options of TFLite Micro's spectral subtraction
// tests (filter_bank_spectral_subtraction_flexbuffers_generated_data.cc)
// for n channels.
func spectralOpts(t testing.TB, n int, clamping bool, smoothingBits int) []byte {
	return opts(t, "alternate_one_minus_smoothing", 15729, "alternate_smoothing", 655,
		"clamping", clamping, "min_signal_remaining", 819, "num_channels", n,
		"one_minus_smoothing", 15729, "smoothing", 655, "smoothing_bits", smoothingBits,
		"spectral_subtraction_bits", 14)
}

// TestSpectralSubtractionState: the noise estimate carries over between
// Evals (a second frame sees the first's estimate), and ResetState
// clears it. From TFLite Micro's 16-channel test: its first three
// channels, then the same frame again.
func TestSpectralSubtractionState(t *testing.T) {
	in := tensorOf(ops.Uint32, []int{3}, []uint32{393, 213, 408})
	n := node(signal.FilterBankSpectralSubtractionName, spectralOpts(t, 3, false, 0), []*ops.Tensor{in}, ops.Uint32, ops.Uint32)
	k := signal.NewFilterBankSpectralSubtraction()
	mustRun(t, k, n)
	expectEqual(t, "output", n.Outputs[0].Uint32s(), []uint32{378, 205, 392})
	expectEqual(t, "noise_estimate", n.Outputs[1].Uint32s(), []uint32{15, 8, 16})
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	// est = (393·655 + 15·15729) >> 14 = 30, output 393 − 30 = 363; …
	expectEqual(t, "noise_estimate after a second frame", n.Outputs[1].Uint32s(), []uint32{30, 16, 31})
	expectEqual(t, "output after a second frame", n.Outputs[0].Uint32s(), []uint32{363, 197, 377})
	k.(ops.StatefulKernel).ResetState()
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	expectEqual(t, "output after ResetState", n.Outputs[0].Uint32s(), []uint32{378, 205, 392})
}

// TestSpectralSubtractionClamping: with clamping, an estimate above the
// signal is pulled down to it; the output never goes below the floor.
func TestSpectralSubtractionClamping(t *testing.T) {
	for _, clamp := range []bool{false, true} {
		in := tensorOf(ops.Uint32, []int{2}, []uint32{1000, 1000})
		n := node(signal.FilterBankSpectralSubtractionName, spectralOpts(t, 2, clamp, 2), []*ops.Tensor{in}, ops.Uint32, ops.Uint32)
		k := signal.NewFilterBankSpectralSubtraction()
		mustRun(t, k, n)
		for i := 0; i < 50; i++ { // a loud noise floor builds up
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
		}
		copy(in.Uint32s(), []uint32{10, 10}) // then near silence
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		est := n.Outputs[1].Uint32s()
		if clamp && est[0] != 10<<2 {
			t.Fatalf("clamping: estimate %d, want the scaled signal %d", est[0], 10<<2)
		}
		if !clamp && est[0] <= 10<<2 {
			t.Fatalf("no clamping: estimate %d should stay above the signal", est[0])
		}
		// floor = 10·819 >> 14 = 0; subtracted = 0.
		expectEqual(t, "output", n.Outputs[0].Uint32s(), []uint32{0, 0})
	}
}

// TestSpectralSubtractionTFLM replays TFLite Micro's
// filter_bank_spectral_subtraction_test.cc, its Reset tests through
// ResetState.
func TestSpectralSubtractionTFLM(t *testing.T) {
	c := loadTFLMCase(t, "filter_bank_spectral_subtraction_test.cc", "filter_bank_spectral_subtraction_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			in := tensorOf(ops.Uint32, shapeOf(t, ct.array(t, "input_shape")), values[uint32](t, ct.array(t, "input")))
			n := node(signal.FilterBankSpectralSubtractionName, c.options(t, ct), []*ops.Tensor{in}, ops.Uint32, ops.Uint32)
			k := signal.NewFilterBankSpectralSubtraction()
			mustRun(t, k, n)
			g1, g2 := values[uint32](t, ct.array(t, "golden1")), values[uint32](t, ct.array(t, "golden2"))
			expectEqual(t, "output", n.Outputs[0].Uint32s(), g1)
			expectEqual(t, "noise_estimate", n.Outputs[1].Uint32s(), g2)
			if !containsReset(ct.name) {
				return
			}
			k.(ops.StatefulKernel).ResetState()
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
			expectEqual(t, "output after Reset", n.Outputs[0].Uint32s(), g1)
			expectEqual(t, "noise_estimate after Reset", n.Outputs[1].Uint32s(), g2)
		})
	}
}

func containsReset(name string) bool {
	return len(name) >= 5 && name[len(name)-5:] == "Reset"
}

// TestSpectralSubtractionResetVariableTensors: in an interpreter, the
// estimate persists across Invoke and ResetVariableTensors clears it.
func TestSpectralSubtractionResetVariableTensors(t *testing.T) {
	b := optest.NewBuilder()
	in := b.Tensor("in", schema.TensorTypeUINT32, []int32{3}, nil)
	out := b.Tensor("out", schema.TensorTypeUINT32, []int32{3}, nil)
	est := b.Tensor("est", schema.TensorTypeUINT32, []int32{3}, nil)
	b.Inputs(in)
	b.Outputs(out, est)
	b.Custom(signal.FilterBankSpectralSubtractionName, []int32{in}, []int32{out, est}, spectralOpts(t, 3, false, 0))
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
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	invoke := func() []uint32 {
		copy(it.Input(0).Uint32s(), []uint32{393, 213, 408})
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		return append([]uint32(nil), it.Output(1).Uint32s()...)
	}
	first := invoke()
	expectEqual(t, "first estimate", first, []uint32{15, 8, 16})
	expectEqual(t, "second estimate", invoke(), []uint32{30, 16, 31})
	if err := it.ResetVariableTensors(); err != nil {
		t.Fatal(err)
	}
	expectEqual(t, "estimate after ResetVariableTensors", invoke(), first)
}
