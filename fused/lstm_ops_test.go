package fused

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the LSTM operator (FULL and BASIC kernels) and of
// BIDIRECTIONAL_SEQUENCE_LSTM against independent float64 models, and of
// the cases where TFLite itself misbehaves.

// randomVec returns n values uniform in [-1, 1).
func randomVec(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(2*rng.Float64() - 1)
	}
	return v
}

// toLSTMOp turns a UNIDIRECTIONAL_SEQUENCE_LSTM node of spec s into an
// LSTM (FULL) node for one step: input [batch, n_input], output [batch,
// n_output], the same weights and state tensors.
func toLSTMOp(s *lstmSpec, n *ops.Node) *ops.Node {
	o := n.Options.(*UnidirectionalSequenceLSTMOptions)
	in := *n.Inputs[0]
	in.Shape = []int{s.batch, s.nIn}
	in.Data = alignedBytes(s.batch * s.nIn * in.Type.Size())
	inputs := append([]*ops.Tensor(nil), n.Inputs...)
	inputs[0] = &in
	out := *n.Outputs[0]
	return &ops.Node{
		OpName: "LSTM", Op: ops.OpLSTM, Version: n.Version,
		Inputs: inputs, Outputs: []*ops.Tensor{&out}, Intermediates: n.Intermediates,
		Options: &LSTMOptions{Activation: o.Activation, CellClip: o.CellClip, ProjClip: o.ProjClip,
			KernelType: LSTMFull, AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs},
	}
}

// runLSTMOpSteps feeds the time-major sequence x (raw bytes per step of
// stepBytes) through the LSTM node one step per Eval and returns the
// outputs concatenated in time-major order.
func runLSTMOpSteps(t *testing.T, k ops.Kernel, n *ops.Node, x []byte, steps int) []byte {
	t.Helper()
	prepared(t, k, n)
	stepBytes := len(n.Inputs[0].Data)
	var out []byte
	for i := 0; i < steps; i++ {
		copy(n.Inputs[0].Data, x[i*stepBytes:(i+1)*stepBytes])
		if err := k.Eval(n); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		out = append(out, n.Outputs[0].Data...)
	}
	return out
}

func float32sOf(b []byte) []float32 {
	t := ops.Tensor{Data: b}
	return t.Float32s()
}

// TestLSTMOpFullAgainstReference: the LSTM operator run T times equals the
// float64 LSTM over the T steps, float and hybrid, including a projection
// wider than the cell (where TFLite writes past its n_cell projection
// scratch).
func TestLSTMOpFullAgainstReference(t *testing.T) {
	cases := []lstmSpec{
		{batch: 2, time: 3, nIn: 7, nCell: 11, nOut: 11},
		{batch: 2, time: 4, nIn: 3, nCell: 12, nOut: 9, layerNorm: true, peephole: true, proj: true},
		{batch: 1, time: 5, nIn: 4, nCell: 6, nOut: 6, cifg: true, cellClip: 0.5},
		{batch: 3, time: 4, nIn: 5, nCell: 4, nOut: 10, proj: true, projBias: true, projClip: 0.7},
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for i, c := range cases {
		for _, hybrid := range []bool{false, true} {
			s := c
			s.timeMajor, s.act = true, ops.ActTanh
			t.Run(fmt.Sprintf("case%d/hybrid=%v", i, hybrid), func(t *testing.T) {
				s.randomize(rng)
				x := s.randomInput(rng)
				n, ref := s.node(x), &s
				tol := 1e-5
				if hybrid {
					n, ref = hybridSpecNode(&s, x, i%2 == 0)
					tol = 0.01
				}
				got := float32sOf(runLSTMOpSteps(t, NewLSTM(), toLSTMOp(&s, n), bytesOf(x), s.time))
				if d, at := maxAbsDiff(got, ref.reference(x)); d > tol {
					t.Errorf("max |LSTM op - float64 reference| = %g at %d", d, at)
				}
			})
		}
	}
}

// TestLSTMOpIntegerEqualsSequence: the integer LSTM operator stepped T
// times gives exactly the bytes of UNIDIRECTIONAL_SEQUENCE_LSTM over the T
// steps (the same int8x8_16 step), with layer norm, peephole and a
// projection.
func TestLSTMOpIntegerEqualsSequence(t *testing.T) {
	for i, c := range []lstmSpec{
		{batch: 2, time: 5, nIn: 3, nCell: 8, nOut: 8, layerNorm: true},
		{batch: 1, time: 4, nIn: 6, nCell: 9, nOut: 7, peephole: true, proj: true, projBias: true, cifg: true},
		{batch: 2, time: 3, nIn: 5, nCell: 4, nOut: 7, proj: true},
	} {
		s := c
		s.timeMajor, s.act = true, ops.ActTanh
		s.randomize(newTestRand(uint64(30 + i)))
		x := s.randomInput(newTestRand(uint64(40 + i)))
		seqNode, _, _, _, _ := integerSpecNode(&s, x)
		k := NewUnidirectionalSequenceLSTM()
		prepared(t, k, seqNode)
		if err := k.Eval(seqNode); err != nil {
			t.Fatal(err)
		}
		want := append([]byte(nil), seqNode.Outputs[0].Data...)
		opNode, _, _, _, _ := integerSpecNode(&s, x)
		got := runLSTMOpSteps(t, NewLSTM(), toLSTMOp(&s, opNode), opNode.Inputs[0].Data, s.time)
		if !slices.Equal(got, want) {
			t.Errorf("case %d: LSTM op %v, UNIDIRECTIONAL_SEQUENCE_LSTM %v", i, got, want)
		}
	}
}

// TestIntegerLSTMWideProjection: an int8x8_16 projection wider than the
// cell (TFLite's int32 projection scratch holds n_batch·n_cell values)
// against the float64 LSTM of the dequantised weights, within the
// quantisation error (as TestIntegerLSTMAgainstReference).
func TestIntegerLSTMWideProjection(t *testing.T) {
	s := lstmSpec{batch: 2, time: 4, nIn: 5, nCell: 4, nOut: 9, proj: true, projBias: true, act: ops.ActTanh}
	s.randomize(newTestRand(50))
	x := s.randomInput(newTestRand(51))
	n, deq, xd, scale, zp := integerSpecNode(&s, x)
	k := NewUnidirectionalSequenceLSTM()
	prepared(t, k, n)
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, len(n.Outputs[0].Int8s()))
	for i, q := range n.Outputs[0].Int8s() {
		got[i] = float32(int32(q)-zp) * scale
	}
	if d, at := maxAbsDiff(got, deq.reference(xd)); d > 0.05 {
		t.Errorf("max |integer - float64 reference| = %g at %d", d, at)
	}
}

// basicCell is a basic LSTM cell for tests: weights [4·depth, in+depth]
// and bias [4·depth] in the cell's gate order (input, new input, forget,
// output).
type basicCell struct {
	batch, in, depth int
	w, b             []float32
}

func newBasicCell(rng *rand.Rand, batch, in, depth int) *basicCell {
	c := &basicCell{batch: batch, in: in, depth: depth}
	a := 1 / math.Sqrt(float64(in+depth))
	c.w = make([]float32, 4*depth*(in+depth))
	for i := range c.w {
		c.w[i] = float32(a * (2*rng.Float64() - 1))
	}
	c.b = make([]float32, 4*depth)
	for i := range c.b {
		c.b[i] = float32(rng.Float64() - 0.5)
	}
	return c
}

// reference runs steps of the cell in float64 from state (h, c) and
// returns the activations of every step, concatenated.
func (c *basicCell) reference(xs [][]float32, h, cs []float64) []float64 {
	var out []float64
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	d, tot := c.depth, c.in+c.depth
	for _, x := range xs {
		nh := make([]float64, len(h))
		for b := 0; b < c.batch; b++ {
			cat := make([]float64, tot)
			for i := 0; i < c.in; i++ {
				cat[i] = float64(x[b*c.in+i])
			}
			copy(cat[c.in:], h[b*d:(b+1)*d])
			g := make([]float64, 4*d)
			for r := range g {
				g[r] = float64(c.b[r])
				for j, v := range cat {
					g[r] += float64(c.w[r*tot+j]) * v
				}
			}
			for k := 0; k < d; k++ {
				cs[b*d+k] = sig(g[k])*math.Tanh(g[d+k]) + sig(g[2*d+k])*cs[b*d+k]
				nh[b*d+k] = sig(g[3*d+k]) * math.Tanh(cs[b*d+k])
			}
		}
		copy(h, nh)
		out = append(out, nh...)
	}
	return out
}

// node builds the float basic-cell LSTM node.
func (c *basicCell) node(typ ops.DataType) *ops.Node {
	d, tot := c.depth, c.in+c.depth
	return &ops.Node{
		OpName: "LSTM", Op: ops.OpLSTM, Version: 2,
		Inputs: []*ops.Tensor{
			{Type: typ, Shape: []int{c.batch, c.in}, Data: alignedBytes(c.batch * c.in * typ.Size())},
			varTensor(typ, []int{c.batch, d}),
			f32([]int{4 * d, tot}, c.w),
			f32([]int{4 * d}, c.b),
			varTensor(typ, []int{c.batch, d}),
		},
		Outputs: []*ops.Tensor{{Type: typ}, {Type: typ}, {Type: typ}, {Type: typ}},
		Options: &LSTMOptions{Activation: ops.ActTanh, KernelType: LSTMBasic},
	}
}

// TestLSTMBasicFloatAgainstReference: the float basic cell over 4 steps.
func TestLSTMBasicFloatAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 61))
	c := newBasicCell(rng, 3, 5, 7)
	var xs [][]float32
	var flat []float32
	for i := 0; i < 4; i++ {
		xs = append(xs, randomVec(rng, c.batch*c.in))
		flat = append(flat, xs[i]...)
	}
	n := c.node(ops.Float32)
	got := float32sOf(runLSTMOpSteps(t, NewLSTM(), n, bytesOf(flat), len(xs)))
	want := c.reference(xs, make([]float64, c.batch*c.depth), make([]float64, c.batch*c.depth))
	if d, at := maxAbsDiff(got, want); d > 1e-5 {
		t.Errorf("max |basic cell - float64 reference| = %g at %d", d, at)
	}
	// The concat and gate outputs are written too.
	cat := n.Outputs[2].Float32s()
	if !slices.Equal(cat[:c.in], xs[3][:c.in]) {
		t.Errorf("concat_temp starts %v, want the input %v", cat[:c.in], xs[3][:c.in])
	}
}

// TestLSTMBasicUint8AgainstReference: TFLite's quantised cell (uint8
// activations in [-1, 127/128], state Q4.11, gates Q3.12) against the
// float64 cell of the dequantised weights and inputs, starting from
// TFLite's initial state: activation byte 0 (real -1) and state 0. The
// bound, 3/128, is three output steps: one for the output rounding, the
// rest for the Q3.12 gates, the fixed-point activations and the 1/128
// recurrent input carried over the steps.
func TestLSTMBasicUint8AgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(62, 63))
	c := newBasicCell(rng, 2, 3, 15)
	d, tot := c.depth, c.in+c.depth
	// Quantise the weights asymmetrically to uint8 and the bias to int32
	// with scale input_scale·weight_scale, as TFLite's quantiser does.
	lo, hi := slices.Min(c.w), slices.Max(c.w)
	ws := (hi - lo) / 255
	wzp := int32(math.Round(float64(-lo / ws)))
	wq := make([]uint8, len(c.w))
	for i, v := range c.w {
		wq[i] = uint8(min(255, max(0, int32(math.Round(float64(v/ws)))+wzp)))
		c.w[i] = float32(int32(wq[i])-wzp) * ws
	}
	bs := ws / 128
	bq := make([]int32, len(c.b))
	for i, v := range c.b {
		bq[i] = int32(math.Round(float64(v / bs)))
		c.b[i] = float32(bq[i]) * bs
	}
	n := &ops.Node{
		OpName: "LSTM", Op: ops.OpLSTM, Version: 2,
		Inputs: []*ops.Tensor{
			quant(&ops.Tensor{Type: ops.Uint8, Shape: []int{c.batch, c.in}, Data: alignedBytes(c.batch * c.in)}, 1.0/128, 128),
			quant(varTensor(ops.Uint8, []int{c.batch, d}), 1.0/128, 128),
			quant(constTensor(ops.Uint8, []int{4 * d, tot}, wq), ws, wzp),
			quant(constTensor(ops.Int32, []int{4 * d}, bq), bs, 0),
			quant(varTensor(ops.Int16, []int{c.batch, d}), 1.0/2048, 0),
		},
		Outputs: []*ops.Tensor{
			quant(&ops.Tensor{Type: ops.Uint8}, 1.0/128, 128), quant(&ops.Tensor{Type: ops.Int16}, 1.0/2048, 0),
			quant(&ops.Tensor{Type: ops.Uint8}, 1.0/128, 128), quant(&ops.Tensor{Type: ops.Int16}, 1.0/4096, 0),
		},
		Options: &LSTMOptions{Activation: ops.ActTanh, KernelType: LSTMBasic},
	}
	var xs [][]float32
	var raw []byte
	for i := 0; i < 5; i++ {
		q := make([]byte, c.batch*c.in)
		x := make([]float32, len(q))
		for j := range q {
			q[j] = byte(rng.IntN(256))
			x[j] = float32(int32(q[j])-128) / 128
		}
		xs = append(xs, x)
		raw = append(raw, q...)
	}
	got := runLSTMOpSteps(t, NewLSTM(), n, raw, len(xs))
	h0 := make([]float64, c.batch*d)
	for i := range h0 {
		h0[i] = -1 // byte 0 with zero point 128
	}
	want := c.reference(xs, h0, make([]float64, c.batch*d))
	gotF := make([]float32, len(got))
	for i, q := range got {
		gotF[i] = float32(int32(q)-128) / 128
	}
	if dd, at := maxAbsDiff(gotF, want); dd > 3.0/128 {
		t.Errorf("max |uint8 cell - float64 reference| = %g at %d", dd, at)
	}
}

// bilstmNode builds a BIDIRECTIONAL_SEQUENCE_LSTM node from two
// direction specs of the same sizes (fw.timeMajor gives the layout).
// auxMode is "" (none), "cross" (auxiliary weights from fw.wAux, bw.wAux)
// or "bw" (the auxiliary input feeds the backward direction). With hybrid
// the weights are quantised; it returns the specs with the weights the
// kernel uses.
func bilstmNode(fw, bw *lstmSpec, x, aux []float32, merge bool, auxMode string, hybrid, asym bool) (*ops.Node, *lstmSpec, *lstmSpec) {
	nodeOf := func(s *lstmSpec) (*ops.Node, *lstmSpec) {
		if hybrid {
			return hybridSpecNode(s, x, asym)
		}
		return s.node(x), s
	}
	fn, fd := nodeOf(fw)
	bn, bd := nodeOf(bw)
	in := make([]*ops.Tensor, bilstmInputCount)
	in[0] = fn.Inputs[0]
	copy(in[1:18], fn.Inputs[1:18])
	copy(in[18:35], bn.Inputs[1:18])
	in[bilstmFwOutputState], in[bilstmFwCellState] = fn.Inputs[lstmOutputState], fn.Inputs[lstmCellState]
	in[bilstmBwOutputState], in[bilstmBwCellState] = bn.Inputs[lstmOutputState], bn.Inputs[lstmCellState]
	if auxMode != "" {
		shape := append([]int(nil), fw.inputShape()...)
		shape[2] = len(aux) / (fw.batch * fw.time)
		in[bilstmAuxInput] = &ops.Tensor{Type: ops.Float32, Shape: shape, Data: bytesOf(append([]float32(nil), aux...))}
	}
	if auxMode == "cross" {
		for d, s := range []*lstmSpec{fd, bd} {
			for g := 0; g < numGates; g++ {
				if s.wAux[g] == nil {
					continue
				}
				var w *ops.Tensor
				if hybrid {
					q, sc := quantSym[int8](s.wAux[g], 127)
					w = quant(constTensor(ops.Int8, []int{s.nCell, s.nAux}, q), sc, 0)
					s.wAux[g] = dequant(q, sc)
				} else {
					w = f32([]int{s.nCell, s.nAux}, s.wAux[g])
				}
				in[bilstmFwAuxWeights+4*d+g] = w
			}
		}
	}
	outs := []*ops.Tensor{{Type: ops.Float32}}
	if !merge {
		outs = append(outs, &ops.Tensor{Type: ops.Float32})
	}
	version := 1
	if hybrid {
		version = 2
		if asym {
			version = 3
		}
	}
	return &ops.Node{
		OpName: "BIDIRECTIONAL_SEQUENCE_LSTM", Op: ops.OpBidirectionalSequenceLSTM, Version: version,
		Inputs: in, Outputs: outs,
		Options: &BidirectionalSequenceLSTMOptions{Activation: fw.act, CellClip: fw.cellClip, ProjClip: fw.projClip,
			MergeOutputs: merge, TimeMajor: fw.timeMajor, AsymmetricQuantizeInputs: asym},
	}, fd, bd
}

// TestBidirectionalLSTMAgainstReference: both directions against float64
// LSTMs (the backward one walking time backwards), every combination of
// merge_outputs, layout, auxiliary-input mode and path, with batch 3 —
// including merged batch-major outputs, where TFLite's state offsets run
// past the state tensor for batch rows after the first.
func TestBidirectionalLSTMAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(70, 71))
	for _, auxMode := range []string{"", "cross", "bw"} {
		for _, merge := range []bool{true, false} {
			for _, timeMajor := range []bool{true, false} {
				for _, hybrid := range []bool{false, true} {
					name := fmt.Sprintf("aux=%q/merge=%v/timeMajor=%v/hybrid=%v", auxMode, merge, timeMajor, hybrid)
					t.Run(name, func(t *testing.T) {
						base := lstmSpec{batch: 3, time: 4, nIn: 5, nCell: 6, nOut: 6, timeMajor: timeMajor, act: ops.ActTanh,
							peephole: hybrid, cifg: auxMode == "bw"}
						if auxMode == "cross" {
							base.nAux = 3
						}
						fw, bw := base, base
						fw.randomize(rng)
						bw.randomize(rng)
						x := fw.randomInput(rng)
						var aux []float32
						switch auxMode {
						case "cross":
							aux = randomVec(rng, fw.batch*fw.time*fw.nAux)
						case "bw":
							aux = fw.randomInput(rng)
						}
						n, fd, bd := bilstmNode(&fw, &bw, x, aux, merge, auxMode, hybrid, timeMajor)
						k := NewBidirectionalSequenceLSTM()
						prepared(t, k, n)
						if err := k.Eval(n); err != nil {
							t.Fatal(err)
						}
						var fwRef, bwRef []float64
						switch auxMode {
						case "cross":
							fwRef, bwRef = fd.referenceDir(x, aux, false), bd.referenceDir(x, aux, true)
						case "bw":
							fwRef, bwRef = fd.referenceDir(x, nil, false), bd.referenceDir(aux, nil, true)
						default:
							fwRef, bwRef = fd.referenceDir(x, nil, false), bd.referenceDir(x, nil, true)
						}
						tol := 1e-5
						if hybrid {
							tol = 0.01
						}
						rows := fw.batch * fw.time
						if merge {
							want := make([]float64, 0, 2*len(fwRef))
							for r := 0; r < rows; r++ {
								want = append(want, fwRef[r*fw.nOut:(r+1)*fw.nOut]...)
								want = append(want, bwRef[r*bw.nOut:(r+1)*bw.nOut]...)
							}
							if d, at := maxAbsDiff(n.Outputs[0].Float32s(), want); d > tol {
								t.Errorf("merged output: max diff %g at %d", d, at)
							}
							return
						}
						if d, at := maxAbsDiff(n.Outputs[0].Float32s(), fwRef); d > tol {
							t.Errorf("forward output: max diff %g at %d", d, at)
						}
						if d, at := maxAbsDiff(n.Outputs[1].Float32s(), bwRef); d > tol {
							t.Errorf("backward output: max diff %g at %d", d, at)
						}
					})
				}
			}
		}
	}
}

// TestBidirectionalLSTMWideProjection: projections wider than the cell in
// both directions, merged and batch-major, against float64.
func TestBidirectionalLSTMWideProjection(t *testing.T) {
	base := lstmSpec{batch: 2, time: 3, nIn: 4, nCell: 3, nOut: 8, proj: true, projBias: true, act: ops.ActTanh}
	fw, bw := base, base
	fw.randomize(newTestRand(80))
	bw.randomize(newTestRand(81))
	x := fw.randomInput(newTestRand(82))
	n, fd, bd := bilstmNode(&fw, &bw, x, nil, true, "", false, false)
	k := NewBidirectionalSequenceLSTM()
	prepared(t, k, n)
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	fwRef, bwRef := fd.referenceDir(x, nil, false), bd.referenceDir(x, nil, true)
	var want []float64
	for r := 0; r < fw.batch*fw.time; r++ {
		want = append(want, fwRef[r*8:(r+1)*8]...)
		want = append(want, bwRef[r*8:(r+1)*8]...)
	}
	if d, at := maxAbsDiff(n.Outputs[0].Float32s(), want); d > 1e-5 {
		t.Errorf("max diff %g at %d", d, at)
	}
}

// TestLSTMFamilyPrepareErrors: refusals of the LSTM operator and of
// BIDIRECTIONAL_SEQUENCE_LSTM, each naming the tensor.
func TestLSTMFamilyPrepareErrors(t *testing.T) {
	spec := func() *lstmSpec {
		s := &lstmSpec{batch: 2, time: 3, nIn: 4, nCell: 5, nOut: 5, timeMajor: true, act: ops.ActTanh}
		s.randomize(newTestRand(90))
		return s
	}
	opNode := func(edit func(n *ops.Node)) *ops.Node {
		s := spec()
		n := toLSTMOp(s, s.node(s.randomInput(newTestRand(91))))
		edit(n)
		return n
	}
	biNode := func(edit func(n *ops.Node)) *ops.Node {
		fw, bw := spec(), spec()
		n, _, _ := bilstmNode(fw, bw, fw.randomInput(newTestRand(92)), nil, false, "", false, false)
		edit(n)
		return n
	}
	basic := func(edit func(n *ops.Node)) *ops.Node {
		n := newBasicCell(newTestRand(93), 2, 3, 4).node(ops.Float32)
		edit(n)
		return n
	}
	cases := []struct {
		name string
		k    ops.Kernel
		node *ops.Node
		want string
	}{
		{"lstm rank 3 input", NewLSTM(), opNode(func(n *ops.Node) { n.Inputs[0].Shape = []int{1, 2, 4} }), "needs rank 2"},
		{"lstm diagonal", NewLSTM(), opNode(func(n *ops.Node) { n.Inputs[7] = f32([]int{5}, make([]float32, 5)) }),
			"input 7 (recurrent_to_cell_weights) has shape [5], needs [5 5]"},
		{"lstm 8x8_8", NewLSTM(), opNode(func(n *ops.Node) {
			n.Inputs[0].Type = ops.Int8
			n.Intermediates = make([]*ops.Tensor, 12)
		}), "8x8_8"},
		{"lstm kernel type", NewLSTM(), opNode(func(n *ops.Node) { n.Options.(*LSTMOptions).KernelType = 2 }), "kernel_type 2"},
		{"lstm wrong options", NewLSTM(), opNode(func(n *ops.Node) { n.Options = &UnidirectionalSequenceLSTMOptions{} }), "options are"},
		{"lstm int16", NewLSTM(), opNode(func(n *ops.Node) { n.Inputs[0].Type = ops.Int16 }), "int16 activations"},
		{"basic weights shape", NewLSTM(), basic(func(n *ops.Node) { n.Inputs[2].Shape = []int{16, 6} }),
			"input 2 (weights) has shape [16 6], needs [16, 7]"},
		{"basic state not variable", NewLSTM(), basic(func(n *ops.Node) { n.Inputs[4].Kind = ops.ArenaTensor }),
			"input 4 (prev_state) is not a variable tensor"},
		{"basic types", NewLSTM(), basic(func(n *ops.Node) { n.Outputs[3].Type = ops.Int16 }), "unsupported type combination"},
		{"basic outputs", NewLSTM(), basic(func(n *ops.Node) { n.Outputs = n.Outputs[:3] }), "needs 5 and 4"},
		{"basic omitted bias", NewLSTM(), basic(func(n *ops.Node) { n.Inputs[3] = nil }), "input 3 (bias) is required"},
		{"bilstm inputs", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) { n.Inputs = n.Inputs[:47] }), "needs 48"},
		{"bilstm outputs", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) { n.Outputs = n.Outputs[:1] }), "needs 2"},
		{"bilstm bw weights", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) { n.Inputs[20].Shape = []int{5, 3} }),
			"input 20 (bw_input_to_cell_weights) has shape [5 3]"},
		{"bilstm sizes differ", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) {
			for i := 18; i <= 21; i++ {
				n.Inputs[i] = f32([]int{6, 4}, make([]float32, 24))
			}
			for i := 22; i <= 25; i++ {
				n.Inputs[i] = f32([]int{6, 6}, make([]float32, 36))
			}
			for i := 29; i <= 32; i++ {
				n.Inputs[i] = f32([]int{6}, make([]float32, 6))
			}
		}), "same sizes in both directions"},
		{"bilstm bw state", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) { n.Inputs[38].Kind = ops.ConstTensor }),
			"input 38 (bw_cell_state) is not a variable tensor"},
		{"bilstm int8 input", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) { n.Inputs[0].Type = ops.Int8 }),
			"no integer one"},
		{"bilstm aux weights partial", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) {
			n.Inputs[41] = f32([]int{5, 4}, make([]float32, 20))
		}), "all given or all omitted"},
		{"bilstm aux shape", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) {
			n.Inputs[39] = &ops.Tensor{Type: ops.Float32, Shape: []int{3, 2, 7}}
		}), "input 39 (aux_input) has shape [3 2 7]"},
		{"bilstm aux weights without input", NewBidirectionalSequenceLSTM(), biNode(func(n *ops.Node) {
			for i := 40; i < 48; i++ {
				n.Inputs[i] = f32([]int{5, 4}, make([]float32, 20))
			}
		}), "input 39 (aux_input) is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				err := c.k.Prepare(c.node)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("Prepare: %v, want an error containing %q", err, c.want)
				}
			}()
		})
	}
}

// TestLSTMFamilyEvalNoAllocs: Eval of every LSTM-family kernel and path
// allocates nothing.
func TestLSTMFamilyEvalNoAllocs(t *testing.T) {
	s := lstmSpec{batch: 2, time: 3, nIn: 4, nCell: 6, nOut: 5, proj: true, peephole: true, timeMajor: true, act: ops.ActTanh}
	s.randomize(newTestRand(95))
	x := s.randomInput(newTestRand(96))
	hn, _ := hybridSpecNode(&s, x, true)
	in, _, _, _, _ := integerSpecNode(&s, x)
	fw, bw := s, s
	bi, _, _ := bilstmNode(&fw, &bw, x, nil, true, "", false, false)
	bih, _, _ := bilstmNode(&fw, &bw, x, nil, false, "", true, true)
	cases := []struct {
		name string
		k    ops.Kernel
		n    *ops.Node
	}{
		{"lstm float", NewLSTM(), toLSTMOp(&s, s.node(x))},
		{"lstm hybrid", NewLSTM(), toLSTMOp(&s, hn)},
		{"lstm integer", NewLSTM(), toLSTMOp(&s, in)},
		{"lstm basic", NewLSTM(), newBasicCell(newTestRand(97), 2, 3, 4).node(ops.Float32)},
		{"bilstm float", NewBidirectionalSequenceLSTM(), bi},
		{"bilstm hybrid", NewBidirectionalSequenceLSTM(), bih},
	}
	for _, c := range cases {
		prepared(t, c.k, c.n)
		if a := testing.AllocsPerRun(10, func() {
			if err := c.k.Eval(c.n); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: Eval allocates %v times per run", c.name, a)
		}
	}
}

// TestLSTMFamilyRegistration: LSTM 1–4 and BIDIRECTIONAL_SEQUENCE_LSTM 1–3
// are registered, as in TFLite's builtin resolver, and nothing beyond.
func TestLSTMFamilyRegistration(t *testing.T) {
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for _, c := range []struct {
		op     ops.BuiltinOperator
		lo, hi int
	}{{ops.OpLSTM, 1, 4}, {ops.OpBidirectionalSequenceLSTM, 1, 3}, {ops.OpUnidirectionalSequenceLSTM, 1, 4}} {
		for v := c.lo; v <= c.hi; v++ {
			if _, err := r.FindBuiltin(c.op, v); err != nil {
				t.Errorf("op %d version %d: %v", c.op, v, err)
			}
		}
		if _, err := r.FindBuiltin(c.op, c.hi+1); err == nil {
			t.Errorf("op %d version %d should not be registered", c.op, c.hi+1)
		}
	}
}

// TestLSTMMixedDiagonalRecurrent: a model where only the forget and output
// gates have diagonal recurrent weights ([n_cell] vectors, version 4)
// equals the float64 LSTM whose recurrent matrices for those gates are
// the diagonal matrices, float and hybrid (TFLite's hybrid kernel reads
// diagonal weights as float32).
func TestLSTMMixedDiagonalRecurrent(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		s := lstmSpec{batch: 2, time: 4, nIn: 3, nCell: 5, nOut: 5, timeMajor: true, act: ops.ActTanh, peephole: true}
		s.randomize(newTestRand(120))
		x := s.randomInput(newTestRand(121))
		ref := s
		var n *ops.Node
		var deq *lstmSpec
		if hybrid {
			n, deq = hybridSpecNode(&s, x, true)
			ref = *deq
		} else {
			n = s.node(x)
		}
		for _, g := range []int{gateForget, gateOutput} {
			d := randomVec(newTestRand(uint64(122+g)), s.nCell)
			n.Inputs[recurrentToGateIndex[g]] = f32([]int{s.nCell}, d)
			full := make([]float32, s.nCell*s.nOut)
			for i, v := range d {
				full[i*s.nOut+i] = v
			}
			ref.wh[g] = full
		}
		n.Version = 4
		got := runNode(t, NewUnidirectionalSequenceLSTM(), n)
		tol := 1e-5
		if hybrid {
			tol = 0.01
		}
		if d, at := maxAbsDiff(got, ref.reference(x)); d > tol {
			t.Errorf("hybrid=%v: max |kernel - float64 reference| = %g at %d", hybrid, d, at)
		}
	}
}
