package signal_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestFramer: TensorFlow's SignalFramer example (frame_size 3, frame_step
// 2, two samples per Invoke): no frame from the first Invoke, then [1 2
// 3], [3 4 5], [5 6 7], [7 8 9]; with prefill the first Invoke already
// gives [0 1 2].
func TestFramer(t *testing.T) {
	stream := []int16{1, 2, 3, 4, 5, 6, 7, 8, 9, 0}
	for _, prefill := range []bool{false, true} {
		in := tensorOf(ops.Int16, []int{2}, []int16{0, 0})
		n := node(signal.FramerName, opts(t, "frame_size", 3, "frame_step", 2, "prefill", prefill), []*ops.Tensor{in}, ops.Int16, ops.Bool)
		k := signal.NewFramer()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		if s := n.Outputs[0].Shape; len(s) != 2 || s[0] != 1 || s[1] != 3 {
			t.Fatalf("output shape %v, want [1 3]", s)
		}
		want := [][]int16{nil, {1, 2, 3}, {3, 4, 5}, {5, 6, 7}, {7, 8, 9}}
		if prefill {
			want = [][]int16{{0, 1, 2}, {2, 3, 4}, {4, 5, 6}, {6, 7, 8}, {8, 9, 0}}
		}
		for step := 0; step < 5; step++ {
			copy(in.Int16s(), stream[2*step:])
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
			valid := n.Outputs[1].Bools()[0]
			if valid != (want[step] != nil) {
				t.Fatalf("prefill %v, Invoke %d: output_valid %v", prefill, step, valid)
			}
			if valid {
				expectEqual(t, "frame", n.Outputs[0].Int16s(), want[step])
			}
		}
	}
}

// TestFramerSeveralFrames: an Invoke of 4 samples with frame_step 2 makes
// two frames; every row has its own buffer.
func TestFramerSeveralFrames(t *testing.T) {
	in := tensorOf(ops.Int16, []int{2, 4}, []int16{1, 2, 3, 4, 10, 20, 30, 40})
	n := node(signal.FramerName, opts(t, "frame_size", 4, "frame_step", 2, "prefill", true), []*ops.Tensor{in}, ops.Int16, ops.Bool)
	mustRun(t, signal.NewFramer(), n)
	if s := n.Outputs[0].Shape; len(s) != 3 || s[1] != 2 || s[2] != 4 {
		t.Fatalf("output shape %v, want [2 2 4]", s)
	}
	expectEqual(t, "frames", n.Outputs[0].Int16s(), []int16{0, 0, 1, 2, 1, 2, 3, 4, 0, 0, 10, 20, 10, 20, 30, 40})
}

// TestFramerTFLM replays TFLite Micro's framer_test.cc: the golden stream
// starts with frame_size − frame_step zeros (the latency), the input is the
// stream after them, input_size samples per Invoke; once output_valid
// (from the start with prefill), frame f of an Invoke at stream position
// i is stream[i+f·frame_step:][:frame_size]. The Reset tests run it twice
// with ResetState between.
func TestFramerTFLM(t *testing.T) {
	c := loadTFLMCase(t, "framer_test.cc", "framer_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			o := c.options(t, ct)
			var size, step int
			var prefill bool
			switch { // the generated options' names: <size>_<step>_<prefill>_framer
			case strings.HasPrefix(ct.flex, "3_1_0"):
				size, step = 3, 1
			case strings.HasPrefix(ct.flex, "5_2_1"):
				size, step, prefill = 5, 2, true
			default:
				t.Fatalf("options %s", ct.flex)
			}
			inShape := shapeOf(t, ct.array(t, "input_dims_data"))
			outShape := shapeOf(t, ct.array(t, "output_dims_data"))
			inputSize := inShape[len(inShape)-1]
			outer := 1
			for _, d := range inShape[:len(inShape)-1] {
				outer *= d
			}
			frames := outShape[len(outShape)-2]
			golden := values[int16](t, ct.array(t, "golden"))
			latency := size - step
			in := tensorOf(ops.Int16, inShape, make([]int16, outer*inputSize))
			n := node(signal.FramerName, o, []*ops.Tensor{in}, ops.Int16, ops.Bool)
			k := signal.NewFramer()
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
				for i := 0; i < len(golden)-latency; i += inputSize {
					for d := 0; d < outer; d++ {
						copy(in.Int16s()[d*inputSize:(d+1)*inputSize], golden[latency+i:])
					}
					if err := k.Eval(n); err != nil {
						t.Fatal(err)
					}
					valid := n.Outputs[1].Bools()[0]
					if want := i >= latency || prefill; valid != want {
						t.Fatalf("run %d, position %d: output_valid %v, want %v", r, i, valid, want)
					}
					if !valid {
						continue
					}
					y := n.Outputs[0].Int16s()
					for d := 0; d < outer; d++ {
						for f := 0; f < frames; f++ {
							at := d*size*frames + f*size
							expectEqual(t, fmt.Sprintf("run %d position %d frame %d", r, i, f), y[at:at+size], golden[i+f*step:i+f*step+size])
						}
					}
				}
			}
		})
	}
}
