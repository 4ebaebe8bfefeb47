package signal_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestOverlapAdd: TensorFlow's SignalOverlapAdd example (five frames of
// 3, step 2 → 1 2, 7 5, 13 8, 9 1, 5 4), in one Invoke for float32 and
// one frame per Invoke for int16 (the accumulator carries over), and the
// int16 saturation.
func TestOverlapAdd(t *testing.T) {
	frames := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5}
	want := []float32{1, 2, 7, 5, 13, 8, 9, 1, 5, 4}
	n := node(signal.OverlapAddName, opts(t, "T", 0, "frame_step", 2),
		[]*ops.Tensor{tensorOf(ops.Float32, []int{5, 3}, frames)}, ops.Float32)
	mustRun(t, signal.NewOverlapAdd(), n)
	expectEqual(t, "float32", n.Outputs[0].Float32s(), want)

	in := tensorOf(ops.Int16, []int{1, 3}, make([]int16, 3))
	n = node(signal.OverlapAddName, opts(t, "T", 7, "frame_step", 2), []*ops.Tensor{in}, ops.Int16)
	k := signal.NewOverlapAdd()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	for f := 0; f < 5; f++ {
		for j := 0; j < 3; j++ {
			in.Int16s()[j] = int16(frames[3*f+j])
		}
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		expectEqual(t, "int16", n.Outputs[0].Int16s(), []int16{int16(want[2*f]), int16(want[2*f+1])})
	}
	copy(in.Int16s(), []int16{30000, 30000, 30000})
	k.(ops.StatefulKernel).ResetState()
	_ = k.Eval(n)
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	expectEqual(t, "saturated", n.Outputs[0].Int16s(), []int16{32767, 30000})
}

// TestOverlapAddTFLM replays TFLite Micro's overlap_add_test.cc: Invoke i
// takes the i-th block of n_frames·frame_size golden inputs (the same in
// every outer row) and must output the i-th block of n_frames·frame_step
// golden outputs; the Reset test runs twice with ResetState between.
func TestOverlapAddTFLM(t *testing.T) {
	c := loadTFLMCase(t, "overlap_add_test.cc", "overlap_add_flexbuffers_generated_data.cc")
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			o := c.options(t, ct)
			step := 1 // both generated options have frame_step 1 (checked below)
			float := strings.HasSuffix(ct.flex, "_float")
			shape := shapeOf(t, ct.array(t, "input_dims_data"))
			size, frames := shape[len(shape)-1], shape[len(shape)-2]
			outer := 1
			for _, d := range shape[:len(shape)-2] {
				outer *= d
			}
			gin, gout := ct.array(t, "golden_input"), ct.array(t, "golden_output")
			iters := len(gout) / (frames * step)
			typ := ops.Int16
			if float {
				typ = ops.Float32
			}
			var in *ops.Tensor
			if float {
				in = tensorOf(typ, shape, make([]float32, outer*frames*size))
			} else {
				in = tensorOf(typ, shape, make([]int16, outer*frames*size))
			}
			n := node(signal.OverlapAddName, o, []*ops.Tensor{in}, typ)
			k := signal.NewOverlapAdd()
			if err := prepare(k, n); err != nil {
				t.Fatal(err)
			}
			if got := n.Outputs[0].NumElements(); got != outer*frames*step {
				t.Fatalf("output of %d values: frame_step is not 1", got)
			}
			runs := 1
			if strings.Contains(ct.name, "Reset") {
				runs = 2
			}
			block, oblock := frames*size, frames*step
			for r := 0; r < runs; r++ {
				if r > 0 {
					k.(ops.StatefulKernel).ResetState()
				}
				for i := 0; i < iters; i++ {
					what := fmt.Sprintf("run %d Invoke %d", r, i)
					if float {
						g := values[float32](t, gin[i*block:(i+1)*block])
						for d := 0; d < outer; d++ {
							copy(in.Float32s()[d*block:], g)
						}
					} else {
						g := values[int16](t, gin[i*block:(i+1)*block])
						for d := 0; d < outer; d++ {
							copy(in.Int16s()[d*block:], g)
						}
					}
					if err := k.Eval(n); err != nil {
						t.Fatal(err)
					}
					for d := 0; d < outer; d++ {
						if float {
							expectNear(t, what, n.Outputs[0].Float32s()[d*oblock:], values[float32](t, gout[i*oblock:(i+1)*oblock]), 1e-5)
						} else {
							expectEqual(t, what, n.Outputs[0].Int16s()[d*oblock:], values[int16](t, gout[i*oblock:(i+1)*oblock]))
						}
					}
				}
			}
		})
	}
}
