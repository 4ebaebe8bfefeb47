package interpreter

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Interpreter-level tests of the LSTM family on models built with the
// schema object API: streaming equals batch (state carried in variable
// tensors across Invoke), batch independence (with the state re-sized by
// AllocateTensors after an input resize), and the cell clip.

func lstmInterp(t *testing.T, b []byte) *Interpreter {
	t.Helper()
	m, err := LoadBytes(b)
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	it, err := New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatalf("AllocateTensors: %v", err)
	}
	return it
}

// lstmRandom returns random contents for n elements of typ: float32 in
// [-1, 1), int8 over its whole range.
func lstmRandom(r *rand.Rand, typ ops.DataType, n int) []byte {
	if typ == ops.Int8 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.Float64()*2 - 1)
	}
	return f32bytes(v...)
}

// lstmInvoke copies the inputs in, runs one Invoke and returns copies of the
// outputs' bytes.
func lstmInvoke(t *testing.T, it *Interpreter, inputs ...[]byte) [][]byte {
	t.Helper()
	for i, b := range inputs {
		if err := it.Input(i).CopyFromBytes(b); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
	}
	if err := it.Invoke(); err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	var outs [][]byte
	for j := 0; j < it.OutputCount(); j++ {
		outs = append(outs, append([]byte(nil), it.Output(j).Data...))
	}
	return outs
}

// rowsOf extracts rows (each of w elements of size es bytes) from a tensor
// laid out [time, batch] (timeMajor) or [batch, time]: the rows of batch
// b at times t0..t1-1, in time order.
func rowsOf(data []byte, timeMajor bool, batch, time, b, t0, t1, w, es int) []byte {
	var out []byte
	for t := t0; t < t1; t++ {
		r := b*time + t
		if timeMajor {
			r = t*batch + b
		}
		out = append(out, data[r*w*es:(r+1)*w*es]...)
	}
	return out
}

// stepRows extracts the rows of all batches at time t, batch order.
func stepRows(data []byte, timeMajor bool, batch, time, t, w, es int) []byte {
	var out []byte
	for b := 0; b < batch; b++ {
		out = append(out, rowsOf(data, timeMajor, batch, time, b, t, t+1, w, es)...)
	}
	return out
}

// compareOutputs checks got against want: bit for bit for integer types,
// within tol for float32.
func compareOutputs(t *testing.T, what string, typ ops.DataType, got, want []byte, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	if typ != ops.Float32 {
		if !bytes.Equal(got, want) {
			t.Errorf("%s: integer outputs differ:\n got  %v\n want %v", what, got, want)
		}
		return
	}
	g, w := float32sOfBytes(got), float32sOfBytes(want)
	worst := 0.0
	for i := range g {
		worst = math.Max(worst, math.Abs(float64(g[i])-float64(w[i])))
	}
	if worst > tol || math.IsNaN(worst) {
		t.Errorf("%s: max |diff| %g > %g", what, worst, tol)
	}
}

func float32sOfBytes(b []byte) []float32 {
	t := ops.Tensor{Data: b}
	return t.Float32s()
}

func elemType(path string) (ops.DataType, int) {
	if path == "int8" {
		return ops.Int8, 1
	}
	return ops.Float32, 4
}

// TestLSTMStreamingEqualsBatch: T invokes of one time step each, the state
// carried in the variable tensors, give the outputs of one invoke over the
// T steps (float within 1e-6, integer exact), for
// UNIDIRECTIONAL_SEQUENCE_LSTM in every path and layout, and for the LSTM
// operator stepped against UNIDIRECTIONAL_SEQUENCE_LSTM.
func TestLSTMStreamingEqualsBatch(t *testing.T) {
	const batch, time = 2, 6
	for _, path := range []string{"float", "hybrid", "int8"} {
		for _, timeMajor := range []bool{true, false} {
			for _, op := range []string{"usl", "lstm"} {
				if op == "lstm" && !timeMajor {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/timeMajor=%v", op, path, timeMajor), func(t *testing.T) {
					c := uslConfig{op: "usl", batch: batch, time: time, nIn: 5, nCell: 7, nOut: 7, timeMajor: timeMajor,
						path: path, asym: true, peephole: path != "int8", act: schema.ActivationFunctionTypeTANH}
					typ, es := elemType(path)
					whole := lstmInterp(t, buildLSTM(c, 11))
					x := lstmRandom(rand.New(rand.NewPCG(12, 13)), typ, batch*time*c.nIn)
					want := lstmInvoke(t, whole, x)[0]
					sc := c
					sc.op, sc.time = op, 1
					step := lstmInterp(t, buildLSTM(sc, 11))
					for tt := 0; tt < time; tt++ {
						got := lstmInvoke(t, step, stepRows(x, timeMajor, batch, time, tt, c.nIn, es))[0]
						compareOutputs(t, fmt.Sprintf("step %d", tt), typ, got,
							stepRows(want, timeMajor, batch, time, tt, c.nOut, es), 1e-6)
					}
				})
			}
		}
	}
}

// TestLSTMBatchIndependence: each row of a batch-4 run equals the same
// sequence run alone. The batch-4 run is the batch-1 model resized, so
// AllocateTensors must re-size the state tensors to 4 rows. Covers
// UNIDIRECTIONAL_SEQUENCE_LSTM and LSTM (FULL) in every path and layout,
// the basic LSTM cell, and BIDIRECTIONAL_SEQUENCE_LSTM with merged
// batch-major outputs (where TFLite's own kernel corrupts rows after the
// first) and both auxiliary-input forms.
func TestLSTMBatchIndependence(t *testing.T) {
	const nb, time = 4, 5
	run := func(t *testing.T, model []byte, inShape func(batch int) [][]int, outRows func(out [][]byte, b int) [][]byte,
		inRows func(in [][]byte, b int) [][]byte, typ ops.DataType, steps int) {
		t.Helper()
		r := rand.New(rand.NewPCG(21, 22))
		it := lstmInterp(t, model)
		shapes4 := inShape(nb)
		var inputs [][][]byte // per step, per input
		for s := 0; s < steps; s++ {
			var ins [][]byte
			for i, sh := range shapes4 {
				n := 1
				for _, d := range sh {
					n *= d
				}
				ins = append(ins, lstmRandom(r, it.Input(i).Type, n))
			}
			inputs = append(inputs, ins)
		}
		// Each sequence alone, from a fresh state.
		alone := make([][][][]byte, nb) // [b][step][output]
		for b := 0; b < nb; b++ {
			it.ResetVariableTensors()
			for s := 0; s < steps; s++ {
				alone[b] = append(alone[b], lstmInvoke(t, it, inRows(inputs[s], b)...))
			}
		}
		// All four at once after a resize.
		resizeTo(t, it, shapes4)
		for s := 0; s < steps; s++ {
			outs := lstmInvoke(t, it, inputs[s]...)
			for b := 0; b < nb; b++ {
				for j, o := range outRows(outs, b) {
					compareOutputs(t, fmt.Sprintf("step %d batch row %d output %d", s, b, j), typ, o, alone[b][s][j], 1e-6)
				}
			}
		}
	}
	for _, path := range []string{"float", "hybrid", "int8"} {
		typ, es := elemType(path)
		for _, timeMajor := range []bool{true, false} {
			t.Run(fmt.Sprintf("usl/%s/timeMajor=%v", path, timeMajor), func(t *testing.T) {
				c := uslConfig{op: "usl", batch: 1, time: time, nIn: 4, nCell: 6, nOut: 5, timeMajor: timeMajor, path: path,
					proj: path != "int8", act: schema.ActivationFunctionTypeTANH}
				if path == "int8" {
					c.nOut = 6
				}
				shape := func(batch int) [][]int {
					if timeMajor {
						return [][]int{{time, batch, c.nIn}}
					}
					return [][]int{{batch, time, c.nIn}}
				}
				rows := func(w int) func([][]byte, int) [][]byte {
					return func(d [][]byte, b int) [][]byte {
						return [][]byte{rowsOf(d[0], timeMajor, nb, time, b, 0, time, w, es)}
					}
				}
				run(t, buildLSTM(c, 31), shape, rows(c.nOut), rows(c.nIn), typ, 1)
			})
		}
		t.Run("lstm/"+path, func(t *testing.T) {
			c := uslConfig{op: "lstm", batch: 1, nIn: 4, nCell: 6, nOut: 6, path: path, asym: true, act: schema.ActivationFunctionTypeTANH}
			shape := func(batch int) [][]int { return [][]int{{batch, c.nIn}} }
			rows := func(w int) func([][]byte, int) [][]byte {
				return func(d [][]byte, b int) [][]byte { return [][]byte{d[0][b*w*es : (b+1)*w*es]} }
			}
			run(t, buildLSTM(c, 32), shape, rows(c.nOut), rows(c.nIn), typ, time)
		})
	}
	t.Run("lstm/basic", func(t *testing.T) {
		shape := func(batch int) [][]int { return [][]int{{batch, 3}} }
		run(t, buildBasicLSTM(1, 3, 5, 33), shape,
			func(d [][]byte, b int) [][]byte { return [][]byte{d[0][b*20 : (b+1)*20], d[1][b*20 : (b+1)*20]} },
			func(d [][]byte, b int) [][]byte { return [][]byte{d[0][b*12 : (b+1)*12]} }, ops.Float32, time)
	})
	for _, aux := range []string{"", "cross", "bw"} {
		for _, merge := range []bool{true, false} {
			for _, timeMajor := range []bool{false, true} {
				for _, hybrid := range []bool{false, true} {
					name := fmt.Sprintf("bilstm/aux=%q/merge=%v/timeMajor=%v/hybrid=%v", aux, merge, timeMajor, hybrid)
					t.Run(name, func(t *testing.T) {
						c := bilstmConfig{batch: 1, time: time, nIn: 3, nCell: 4, timeMajor: timeMajor, merge: merge,
							hybrid: hybrid, asym: hybrid, aux: aux, nAux: 2}
						wIn := []int{c.nIn}
						switch aux {
						case "cross":
							wIn = append(wIn, c.nAux)
						case "bw":
							wIn = append(wIn, c.nIn)
						}
						shape := func(batch int) [][]int {
							var s [][]int
							for _, w := range wIn {
								if timeMajor {
									s = append(s, []int{time, batch, w})
								} else {
									s = append(s, []int{batch, time, w})
								}
							}
							return s
						}
						outW := []int{2 * c.nCell}
						if !merge {
							outW = []int{c.nCell, c.nCell}
						}
						run(t, buildBiLSTM(c, 34), shape,
							func(d [][]byte, b int) [][]byte {
								var o [][]byte
								for j, w := range outW {
									o = append(o, rowsOf(d[j], timeMajor, nb, time, b, 0, time, w, 4))
								}
								return o
							},
							func(d [][]byte, b int) [][]byte {
								var o [][]byte
								for j, w := range wIn {
									o = append(o, rowsOf(d[j], timeMajor, nb, time, b, 0, time, w, 4))
								}
								return o
							}, ops.Float32, 1)
					})
				}
			}
		}
	}
}

// resizeTo resizes every input to its shape and reallocates.
func resizeTo(t *testing.T, it *Interpreter, shapes [][]int) {
	t.Helper()
	for i, s := range shapes {
		if err := it.ResizeInputTensor(i, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatalf("AllocateTensors after resize: %v", err)
	}
}

// TestLSTMResizeResizesAndResetsState: after ResizeInputTensor and
// AllocateTensors the state tensors have the new batch's rows and start
// from zero again.
func TestLSTMResizeResizesAndResetsState(t *testing.T) {
	c := uslConfig{op: "usl", batch: 1, time: 3, nIn: 4, nCell: 6, nOut: 6, path: "float", act: schema.ActivationFunctionTypeTANH}
	it := lstmInterp(t, buildLSTM(c, 41))
	lstmInvoke(t, it, lstmRandom(rand.New(rand.NewPCG(1, 2)), ops.Float32, 12))
	var state []*Tensor
	for i := 0; i < it.TensorCount(); i++ {
		if tt := it.Tensor(i); tt.Kind == ops.VariableTensor {
			state = append(state, tt)
		}
	}
	if len(state) != 2 {
		t.Fatalf("%d variable tensors, want 2", len(state))
	}
	nonzero := false
	for _, s := range state {
		for _, v := range s.Float32s() {
			nonzero = nonzero || v != 0
		}
	}
	if !nonzero {
		t.Fatal("the state did not change during Invoke")
	}
	before := it.VariableBytes()
	resizeTo(t, it, [][]int{{5, 3, 4}})
	for _, s := range state {
		if s.Dim(0) != 5 || s.NumElements() != 30 {
			t.Errorf("%s after resizing the batch to 5, want [5 6]", s)
		}
		for _, v := range s.Float32s() {
			if v != 0 {
				t.Fatalf("%s not reset", s)
			}
		}
	}
	if it.VariableBytes() <= before {
		t.Errorf("variable storage %d bytes after the resize, %d before", it.VariableBytes(), before)
	}
	lstmInvoke(t, it, lstmRandom(rand.New(rand.NewPCG(3, 4)), ops.Float32, 60))
}

// TestLSTMCellClip: with cell_clip = 10 and gate biases driving the cell
// upward (input, forget and output gates saturated open, RELU cell gate
// about 1 per step, RELU cell output so the output follows the cell), the
// clipped run's outputs equal the unclipped run's bit for bit up to the
// step where |c| first exceeds 10 in the unclipped run, and differ at that
// step. The step is found from the unclipped model's cell-state tensor,
// read after each single-step invoke.
func TestLSTMCellClip(t *testing.T) {
	const time = 24
	for _, c := range []uslConfig{
		{op: "usl", path: "float"},
		{op: "usl", path: "hybrid"},
		{op: "usl", path: "hybrid", asym: true},
		{op: "lstm", path: "float"},
	} {
		t.Run(c.op+"/"+c.path+fmt.Sprintf("/asym=%v", c.asym), func(t *testing.T) {
			c.batch, c.time, c.nIn, c.nCell, c.nOut, c.timeMajor = 1, time, 2, 3, 3, true
			c.act = schema.ActivationFunctionTypeRELU
			c.bias = [4]float32{20, 20, 1, 20}
			c.weightScale = 0.05
			x := lstmRandom(rand.New(rand.NewPCG(51, 52)), ops.Float32, time*c.nIn)
			// The step where |c| first exceeds 10, unclipped.
			sc := c
			sc.time = 1
			step := lstmInterp(t, buildLSTM(sc, 53))
			var cell *Tensor
			for i := 0; i < step.TensorCount(); i++ {
				if tt := step.Tensor(i); tt.Kind == ops.VariableTensor && tt.Name == "cell_state" {
					cell = tt
				}
			}
			first := -1
			var unclipped [][]byte
			for tt := 0; tt < time; tt++ {
				unclipped = append(unclipped, lstmInvoke(t, step, x[tt*c.nIn*4:(tt+1)*c.nIn*4])[0])
				m := 0.0
				for _, v := range cell.Float32s() {
					m = math.Max(m, math.Abs(float64(v)))
				}
				if first < 0 && m > 10 {
					first = tt
				}
			}
			if first < 2 || first > time-2 {
				t.Fatalf("|c| first exceeds 10 at step %d; the test wants it inside the sequence", first)
			}
			var clipped [][]byte
			cc := sc
			cc.cellClip = 10
			clip := lstmInterp(t, buildLSTM(cc, 53))
			for tt := 0; tt < time; tt++ {
				clipped = append(clipped, lstmInvoke(t, clip, x[tt*c.nIn*4:(tt+1)*c.nIn*4])[0])
			}
			if c.op == "usl" {
				// The whole sequence in one invoke must agree with the steps.
				wc := c
				wc.cellClip = 10
				whole := lstmInvoke(t, lstmInterp(t, buildLSTM(wc, 53)), x)[0]
				if !bytes.Equal(whole, bytes.Join(clipped, nil)) {
					t.Error("clipped: one invoke over the sequence differs from the single steps")
				}
			}
			for tt := 0; tt < time; tt++ {
				same := bytes.Equal(clipped[tt], unclipped[tt])
				switch {
				case tt < first && !same:
					t.Errorf("step %d (before |c| > 10 at step %d): clipped %v, unclipped %v", tt, first,
						float32sOfBytes(clipped[tt]), float32sOfBytes(unclipped[tt]))
				case tt == first && same:
					t.Errorf("step %d: |c| > 10 but the clipped output equals the unclipped one %v", tt, float32sOfBytes(clipped[tt]))
				}
			}
			t.Logf("|c| first exceeds 10 at step %d of %d", first, time)
		})
	}
}
