package interpreter

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Interpreter-level tests of the RNN, SVDF and GRU kernels on models built
// with the schema object API: state carried in variable tensors across
// Invoke (streaming equals batch), batch independence, and state tensors
// re-sized by AllocateTensors after an input resize.

func newRecInterp(t *testing.T, m *schema.ModelT) *Interpreter {
	t.Helper()
	model, err := LoadBytes(pack(m))
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	it, err := New(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatalf("AllocateTensors: %v", err)
	}
	return it
}

// recResizeInputs resizes input i to shapes[i] (nil leaves it) and
// reallocates.
func recResizeInputs(t *testing.T, it *Interpreter, shapes ...[]int) {
	t.Helper()
	for i, s := range shapes {
		if s == nil {
			continue
		}
		if err := it.ResizeInputTensor(i, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatalf("AllocateTensors after resize: %v", err)
	}
}

// recRandomBytes returns random contents for a tensor: float32 in [-1, 1),
// integers over their whole range.
func recRandomBytes(r *rand.Rand, tt *Tensor) []byte {
	n := tt.NumElements()
	switch tt.Type {
	case ops.Float32:
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.Float64()*2 - 1)
		}
		return f32bytes(v...)
	case ops.Int8:
		v := make([]int8, n)
		for i := range v {
			v[i] = int8(r.IntN(256) - 128)
		}
		return recI8Bytes(v)
	}
	panic("randomBytes: " + tt.Type.String())
}

// recInvoke copies the inputs in, runs, and returns copies of the outputs.
func recInvoke(t *testing.T, it *Interpreter, inputs ...[]byte) [][]byte {
	t.Helper()
	for i, b := range inputs {
		if err := it.Input(i).CopyFromBytes(b); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
	}
	if err := it.Invoke(); err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	outs := make([][]byte, it.OutputCount())
	for j := range outs {
		outs[j] = append([]byte(nil), it.Output(j).Data...)
	}
	return outs
}

// recSliceDim returns index idx along dimension dim of a row-major tensor of
// shape with elem-byte elements (the result keeps the other dimensions in
// order).
func recSliceDim(data []byte, shape []int, elem, dim, idx int) []byte {
	outer, inner := 1, elem
	for _, d := range shape[:dim] {
		outer *= d
	}
	for _, d := range shape[dim+1:] {
		inner *= d
	}
	var out []byte
	for o := 0; o < outer; o++ {
		start := (o*shape[dim] + idx) * inner
		out = append(out, data[start:start+inner]...)
	}
	return out
}

// recSameOutputs fails unless got equals want: float32 within 1e-6, integers
// exactly.
func recSameOutputs(t *testing.T, what string, typ ops.DataType, got, want []byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	if typ != ops.Float32 {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: byte %d differs (integer outputs must be exact)\n got %v\nwant %v", what, i, got, want)
			}
		}
		return
	}
	g, w := mustFloat64(t, typ, got), mustFloat64(t, typ, want)
	for i := range g {
		if d := math.Abs(g[i] - w[i]); !(d <= 1e-6) {
			t.Fatalf("%s: element %d = %v, want %v (|diff| %g > 1e-6)", what, i, g[i], w[i], d)
		}
	}
}

// recSeqCase is a sequence model with the dimensions of its graph inputs and
// outputs that hold the batch and the time steps (-1: none).
type recSeqCase struct {
	name          string
	model         func(batch, steps int) *schema.ModelT
	batchDim      []int // per graph input
	timeDim       []int
	outBatchDim   []int // per graph output
	outTimeDim    []int
	streamOutputs []int // outputs compared step by step when streaming
	finalOutputs  []int // outputs compared after the last streamed step
	chain         bool  // single-step nodes chained: one graph input/output per step
}

func rnnFamilyCases() []recSeqCase {
	var cs []recSeqCase
	for _, mode := range []string{"float", "hybrid", "hybrid-asym"} {
		hybrid, asym := mode != "float", mode == "hybrid-asym"
		for _, tm := range []bool{false, true} {
			bd, td := 0, 1
			if tm {
				bd, td = 1, 0
			}
			cs = append(cs, recSeqCase{
				name: fmt.Sprintf("UNIDIRECTIONAL_SEQUENCE_RNN/%s/time_major=%v", mode, tm),
				model: func(batch, steps int) *schema.ModelT {
					return rnnModel(rnnSpec{kind: "usrnn", batch: batch, steps: steps, nIn: 5, units: 7, timeMajor: tm,
						hybrid: hybrid, asym: asym, act: schema.ActivationFunctionTypeTANH, seed: 1})
				},
				batchDim: []int{bd}, timeDim: []int{td}, outBatchDim: []int{bd}, outTimeDim: []int{td}, streamOutputs: []int{0},
			})
			// The backward direction needs the whole sequence, so streaming
			// compares only the forward output.
			cs = append(cs, recSeqCase{
				name: fmt.Sprintf("BIDIRECTIONAL_SEQUENCE_RNN/%s/time_major=%v", mode, tm),
				model: func(batch, steps int) *schema.ModelT {
					return rnnModel(rnnSpec{kind: "birnn", batch: batch, steps: steps, nIn: 4, units: 6, bwUnits: 3, timeMajor: tm,
						hybrid: hybrid, asym: asym, act: schema.ActivationFunctionTypeRELU, seed: 2})
				},
				batchDim: []int{bd}, timeDim: []int{td}, outBatchDim: []int{bd, bd}, outTimeDim: []int{td, td}, streamOutputs: []int{0},
			})
		}
		cs = append(cs, recSeqCase{
			name: "RNN/" + mode, chain: true,
			model: func(batch, steps int) *schema.ModelT {
				return rnnModel(rnnSpec{kind: "rnn", batch: batch, steps: steps, nIn: 6, units: 5,
					hybrid: hybrid, asym: asym, act: schema.ActivationFunctionTypeRELU_N1_TO_1, seed: 3})
			},
		})
	}
	for _, mode := range []string{"float", "hybrid", "hybrid-asym", "int16", "int8"} {
		act := schema.ActivationFunctionTypeRELU
		cs = append(cs, recSeqCase{
			name: "SVDF/" + mode, chain: true,
			model: func(batch, steps int) *schema.ModelT {
				return svdfModel(svdfSpec{batch: batch, nIn: 5, units: 4, rank: 2, memory: 3, nodes: steps, mode: mode, act: act, seed: 4})
			},
		})
	}
	cs = append(cs, recSeqCase{
		name: "UNIDIRECTIONAL_SEQUENCE_GRU",
		model: func(batch, steps int) *schema.ModelT {
			return gruModel(steps, batch, 4, 6, 5)
		},
		batchDim: []int{1}, timeDim: []int{0}, outBatchDim: []int{1, 0}, outTimeDim: []int{0, -1},
		streamOutputs: []int{0}, finalOutputs: []int{1},
	})
	return cs
}

// TestRecurrentStreamingEqualsBatch: T invokes of one step each, the state
// carried in the variable tensors, give the outputs of one invoke over T
// steps (float within 1e-6, integer exactly). Single-step operators (RNN,
// SVDF) are compared against T nodes sharing the weights and the state.
func TestRecurrentStreamingEqualsBatch(t *testing.T) {
	const batch, steps = 2, 5
	for _, c := range rnnFamilyCases() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			full := newRecInterp(t, c.model(batch, steps))
			if c.chain {
				one := newRecInterp(t, c.model(batch, 1))
				var in [][]byte
				for i := 0; i < full.InputCount(); i++ {
					in = append(in, recRandomBytes(r, full.Input(i)))
				}
				want := recInvoke(t, full, in...)
				for s := 0; s < steps; s++ {
					got := recInvoke(t, one, in[s])
					recSameOutputs(t, fmt.Sprintf("step %d", s), one.Output(0).Type, got[0], want[s])
				}
				return
			}
			one := newRecInterp(t, c.model(batch, steps))
			var shapes [][]int
			for i := 0; i < one.InputCount(); i++ {
				s := append([]int(nil), one.Input(i).Shape...)
				s[c.timeDim[i]] = 1
				shapes = append(shapes, s)
			}
			recResizeInputs(t, one, shapes...)
			var in [][]byte
			for i := 0; i < full.InputCount(); i++ {
				in = append(in, recRandomBytes(r, full.Input(i)))
			}
			want := recInvoke(t, full, in...)
			var got [][]byte
			for s := 0; s < steps; s++ {
				var step [][]byte
				for i := range in {
					x := full.Input(i)
					step = append(step, recSliceDim(in[i], x.Shape, x.Type.Size(), c.timeDim[i], s))
				}
				got = recInvoke(t, one, step...)
				for _, j := range c.streamOutputs {
					o := full.Output(j)
					recSameOutputs(t, fmt.Sprintf("step %d output %d", s, j), o.Type, got[j],
						recSliceDim(want[j], o.Shape, o.Type.Size(), c.outTimeDim[j], s))
				}
			}
			for _, j := range c.finalOutputs {
				recSameOutputs(t, fmt.Sprintf("final output %d", j), full.Output(j).Type, got[j], want[j])
			}
		})
	}
}

// TestRecurrentBatchIndependence: every row of a batch-4 run (two invokes,
// so the state carries over) equals the same sequence run alone, in an
// interpreter whose input was resized to batch 1 — which also checks that
// AllocateTensors re-sizes the state tensors to the new batch.
func TestRecurrentBatchIndependence(t *testing.T) {
	const batch, steps = 4, 3
	for _, c := range rnnFamilyCases() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, 10))
			m := c.model(batch, steps)
			full := newRecInterp(t, m)
			bd, obd := c.batchDim, c.outBatchDim
			if c.chain {
				bd = make([]int, full.InputCount())
				obd = make([]int, full.OutputCount())
			}
			var ins [2][][]byte
			var wants [2][][]byte
			for pass := range ins {
				for i := 0; i < full.InputCount(); i++ {
					ins[pass] = append(ins[pass], recRandomBytes(r, full.Input(i)))
				}
				wants[pass] = recInvoke(t, full, ins[pass]...)
			}
			one := newRecInterp(t, m)
			var shapes [][]int
			for i := 0; i < one.InputCount(); i++ {
				s := append([]int(nil), one.Input(i).Shape...)
				s[bd[i]] = 1
				shapes = append(shapes, s)
			}
			recResizeInputs(t, one, shapes...)
			for i := 0; i < one.TensorCount(); i++ {
				if tt := one.Tensor(i); tt.Kind == ops.VariableTensor && tt.Shape[0] != 1 {
					t.Fatalf("state %s not re-sized to batch 1", tt)
				}
			}
			for b := 0; b < batch; b++ {
				one.ResetVariableTensors()
				for pass := range ins {
					var row [][]byte
					for i, x := range ins[pass] {
						in := full.Input(i)
						row = append(row, recSliceDim(x, in.Shape, in.Type.Size(), bd[i], b))
					}
					got := recInvoke(t, one, row...)
					for j := range got {
						o := full.Output(j)
						recSameOutputs(t, fmt.Sprintf("row %d pass %d output %d", b, pass, j), o.Type, got[j],
							recSliceDim(wants[pass][j], o.Shape, o.Type.Size(), obd[j], b))
					}
				}
			}
		})
	}
}

// TestRecurrentStateResize: resizing the batch re-sizes the variable state
// at the next AllocateTensors, resets it, and growing back works too.
func TestRecurrentStateResize(t *testing.T) {
	it := newRecInterp(t, rnnModel(rnnSpec{kind: "usrnn", batch: 1, steps: 2, nIn: 3, units: 4, act: schema.ActivationFunctionTypeTANH, seed: 6}))
	state := func() *Tensor {
		for i := 0; i < it.TensorCount(); i++ {
			if tt := it.Tensor(i); tt.Kind == ops.VariableTensor {
				return tt
			}
		}
		t.Fatal("no variable tensor")
		return nil
	}
	for _, b := range []int{5, 1, 3} {
		recResizeInputs(t, it, []int{b, 2, 3})
		if s := state().Shape; s[0] != b || s[1] != 4 {
			t.Fatalf("batch %d: state shape %v", b, s)
		}
		if len(state().Data) != b*4*4 {
			t.Fatalf("batch %d: state holds %d bytes", b, len(state().Data))
		}
		r := rand.New(rand.NewPCG(1, uint64(b)))
		recInvoke(t, it, recRandomBytes(r, it.Input(0)))
		if s := it.Output(0).Shape; s[0] != b {
			t.Fatalf("batch %d: output shape %v", b, s)
		}
	}
}
