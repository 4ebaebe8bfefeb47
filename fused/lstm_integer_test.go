package fused

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// The integer tests reproduce TFLite's IntegerUnidirectionalSequenceLstmOpTest
// cases (unidirectional_sequence_lstm_test.cc). TFLite's test harness
// quantises float weights from (min, max) ranges in float32 arithmetic
// (SingleOpModel::QuantizationParams and Quantize in test_util.h); the
// helpers below repeat that arithmetic so that the int8/int16/int32 tensors
// are the ones TFLite's test feeds its kernel.

type testInt interface{ int8 | int16 | int32 }

func testIntRange[T testInt]() (lo, hi int64) {
	var z T
	switch any(z).(type) {
	case int8:
		return math.MinInt8, math.MaxInt8
	case int16:
		return math.MinInt16, math.MaxInt16
	}
	return math.MinInt32, math.MaxInt32
}

// testQuantParams is test_util.h's QuantizationParams<T>(f_min, f_max).
func testQuantParams[T testInt](fmin, fmax float32) (float32, int32) {
	lo, hi := testIntRange[T]()
	qmin, qmax := float32(lo), float32(hi)
	if fmin == fmax {
		return 0, 0
	}
	scale := (fmax - fmin) / (qmax - qmin)
	zpFromMin := qmin - fmin/scale
	zpFromMax := qmax - fmax/scale
	errMin := float32(math.Abs(float64(qmin))) + float32(math.Abs(float64(fmin/scale)))
	errMax := float32(math.Abs(float64(qmax))) + float32(math.Abs(float64(fmax/scale)))
	zp := zpFromMax
	if errMin < errMax {
		zp = zpFromMin
	}
	switch {
	case zp < qmin:
		return scale, int32(lo)
	case zp > qmax:
		return scale, int32(hi)
	}
	return scale, int32(math.Round(float64(zp)))
}

// testQuantize is test_util.h's Quantize<T>: round(zp + f/scale) clamped,
// in float32.
func testQuantize[T testInt](data []float32, scale float32, zp int32) []T {
	lo, hi := testIntRange[T]()
	out := make([]T, len(data))
	for i, f := range data {
		v := float32(math.Round(float64(float32(zp) + f/scale)))
		v = stdMax(float32(lo), stdMin(float32(hi), v))
		out[i] = T(v)
	}
	return out
}

// quantTensor quantises data with TFLite's test arithmetic over [fmin, fmax].
func quantTensor[T testInt](typ ops.DataType, shape []int, data []float32, fmin, fmax float32) *ops.Tensor {
	scale, zp := testQuantParams[T](fmin, fmax)
	return quant(constTensor(typ, shape, testQuantize[T](data, scale, zp)), scale, zp)
}

type tfliteIntegerCase struct {
	peephole bool
	// ranges that differ between the two TFLite cases
	recurrentToForget, cellTo, forgetBias [2]float32
	layerNorm                             [numGates][2]float32
	want                                  []int8
}

// tfliteIntegerNode builds TFLite's integer test model: n_batch 2,
// n_input 5, n_cell 4, n_output 3, 3 time steps (time major), layer norm
// and projection without bias.
func tfliteIntegerNode(c tfliteIntegerCase) (*ops.Node, []float32) {
	const nBatch, nInput, nCell, nOutput, seq = 2, 5, 4, 3, 3
	wx := [numGates][]float32{
		{0.5, 0.6, 0.7, -0.8, -0.9, 0.1, 0.2, 0.3, -0.4, 0.5, -0.8, 0.7, -0.6, 0.5, -0.4, -0.5, -0.4, -0.3, -0.2, -0.1},
		{-0.6, -0.1, 0.3, 0.2, 0.9, -0.5, -0.2, -0.4, 0.3, -0.8, -0.4, 0.3, -0.5, -0.4, -0.6, 0.3, -0.4, -0.6, -0.5, -0.5},
		{-0.4, -0.3, -0.2, -0.1, -0.5, 0.5, -0.2, -0.3, -0.2, -0.6, 0.6, -0.1, -0.4, -0.3, -0.7, 0.7, -0.9, -0.5, 0.8, 0.6},
		{-0.8, -0.4, -0.2, -0.9, -0.1, -0.7, 0.3, -0.3, -0.8, -0.2, 0.6, -0.2, 0.4, -0.7, -0.3, -0.5, 0.1, 0.5, -0.6, -0.4},
	}
	bias := [numGates][]float32{
		{0.03, 0.15, 0.22, 0.38},
		{0.1, -0.3, -0.2, 0.1},
		{-0.05, 0.72, 0.25, 0.08},
		{0.05, -0.01, 0.2, 0.1},
	}
	wh := [numGates][]float32{
		{-0.2, -0.3, 0.4, 0.1, -0.5, 0.9, -0.2, -0.3, -0.7, 0.05, -0.2, -0.6},
		{-0.5, -0.3, -0.5, -0.2, 0.6, 0.4, 0.9, 0.3, -0.1, 0.2, 0.5, 0.2},
		{-0.3, 0.2, 0.1, -0.3, 0.8, -0.08, -0.2, 0.3, 0.8, -0.6, -0.1, 0.2},
		{0.3, -0.1, 0.1, -0.2, -0.5, -0.7, -0.2, -0.6, -0.1, -0.4, -0.7, -0.2},
	}
	wc := [numGates][]float32{{0.3, -0.1, 0.1, -0.2}, {0.2, -0.1, 0.1, -0.2}, nil, {0.3, -0.1, 0.1, -0.3}}
	ln := [numGates][]float32{{0.1, 0.2, 0.3, 0.5}, {0.2, 0.2, 0.4, 0.3}, {0.7, 0.2, 0.3, 0.8}, {0.6, 0.2, 0.2, 0.5}}
	proj := []float32{-0.1, 0.2, 0.01, -0.2, 0.1, 0.5, 0.3, 0.08, 0.07, 0.2, -0.4, 0.2}
	x := []float32{
		0.7, 0.8, 0.1, 0.2, 0.3,
		0.8, 0.1, 0.2, 0.4, 0.5,
		0.2, 0.7, 0.7, 0.1, 0.7,
		0.3, 0.2, 0.9, 0.8, 0.1,
		0.7, 0.8, 0.1, 0.2, 0.3,
		0.3, 0.2, 0.9, 0.8, 0.1,
	}

	in := make([]*ops.Tensor, lstmFullInputCount)
	inScale, inZP := testQuantParams[int8](-1, 127.0/128)
	in[lstmInputTensor] = quant(&ops.Tensor{Type: ops.Int8, Shape: []int{seq, nBatch, nInput},
		Data: bytesOf(testQuantize[int8](x, inScale, inZP))}, inScale, inZP)
	for g := 0; g < numGates; g++ {
		in[inputToGateIndex[g]] = quantTensor[int8](ops.Int8, []int{nCell, nInput}, wx[g], -1, 1)
		rr := [2]float32{-1, 1}
		if g == gateForget {
			rr = c.recurrentToForget
		}
		in[recurrentToGateIndex[g]] = quantTensor[int8](ops.Int8, []int{nCell, nOutput}, wh[g], rr[0], rr[1])
		if c.peephole && g != gateCell {
			in[cellToGateIndex[g]] = quantTensor[int16](ops.Int16, []int{nCell}, wc[g], c.cellTo[0], c.cellTo[1])
		}
		br := [2]float32{-100, 100}
		if g == gateForget {
			br = c.forgetBias
		}
		in[gateBiasIndex[g]] = quantTensor[int32](ops.Int32, []int{nCell}, bias[g], br[0], br[1])
		in[layerNormIndex[g]] = quantTensor[int16](ops.Int16, []int{nCell}, ln[g], c.layerNorm[g][0], c.layerNorm[g][1])
	}
	in[lstmProjectionWeights] = quantTensor[int8](ops.Int8, []int{nOutput, nCell}, proj, -0.5, 0.5)
	// TFLite's test declares the output state int16 but the kernel reads it
	// as int8 with the int16 range's quantisation (scale 2^-15, zero 0).
	osScale, osZP := testQuantParams[int16](-1, 32767.0/32768)
	in[lstmOutputState] = quant(varTensor(ops.Int8, []int{nBatch, nOutput}), osScale, osZP)
	csScale, csZP := testQuantParams[int16](-1, 1)
	in[lstmCellState] = quant(varTensor(ops.Int16, []int{nBatch, nCell}), csScale, csZP)

	var inter []*ops.Tensor
	for _, q := range []struct {
		s  float32
		zp int32
	}{{0.007059, 0}, {0.007812, 0}, {0.007059, 0}, {0.007812, 0}, {0.007, 0}} {
		inter = append(inter, quant(&ops.Tensor{Type: ops.Int16, Shape: []int{0}}, q.s, q.zp))
	}
	outScale, outZP := testQuantParams[int8](-1, 32767.0/32768)
	out := quant(&ops.Tensor{Type: ops.Int8}, outScale, outZP)
	return &ops.Node{
		OpName: "UNIDIRECTIONAL_SEQUENCE_LSTM", Op: ops.OpUnidirectionalSequenceLSTM, Version: 1,
		Inputs: in, Outputs: []*ops.Tensor{out}, Intermediates: inter,
		Options: &UnidirectionalSequenceLSTMOptions{Activation: ops.ActTanh, TimeMajor: true},
	}, x
}

var (
	tfliteIntegerNoPeephole = tfliteIntegerCase{
		recurrentToForget: [2]float32{-1, 1},
		forgetBias:        [2]float32{-100, 100},
		layerNorm:         [numGates][2]float32{{-1.00001, 1}, {-1.00001, 1}, {-1.00001, 1}, {-1.00001, 1}},
		want: []int8{
			127, 127, -108, -67, 127, 127, -128, 127, 127,
			-128, 127, 127, 127, 127, 127, -128, 127, 127,
		},
	}
	tfliteIntegerPeephole = tfliteIntegerCase{
		peephole:          true,
		recurrentToForget: [2]float32{-0.9, 0.9},
		cellTo:            [2]float32{-0.3, 0.3},
		forgetBias:        [2]float32{-100, 80},
		layerNorm:         [numGates][2]float32{{-0.5, 0.5}, {-0.5, 0.5}, {-1, 1}, {-1, 1}},
		want: []int8{
			127, 127, -16, -21, 127, 127, 23, 127, 127,
			-128, 127, 127, 127, 127, 127, -128, 127, 127,
		},
	}
)

func runInteger(t *testing.T, n *ops.Node) []int8 {
	t.Helper()
	k := NewUnidirectionalSequenceLSTM()
	prepared(t, k, n)
	if err := k.Eval(n); err != nil {
		t.Fatalf("Eval: %v", err)
	}
	return slices.Clone(n.Outputs[0].Int8s())
}

func TestTFLiteIntegerNoCifgNoPeepholeProjectionLayerNorm(t *testing.T) {
	n, _ := tfliteIntegerNode(tfliteIntegerNoPeephole)
	if got := runInteger(t, n); !slices.Equal(got, tfliteIntegerNoPeephole.want) {
		t.Errorf("\n got %v\nwant %v (TFLite)", got, tfliteIntegerNoPeephole.want)
	}
}

func TestTFLiteIntegerNoCifgPeepholeProjectionLayerNorm(t *testing.T) {
	n, _ := tfliteIntegerNode(tfliteIntegerPeephole)
	if got := runInteger(t, n); !slices.Equal(got, tfliteIntegerPeephole.want) {
		t.Errorf("\n got %v\nwant %v (TFLite)", got, tfliteIntegerPeephole.want)
	}
}

// quantSym quantises w symmetrically to [-qmax, qmax] with scale
// max|w|/qmax, as TFLite's quantiser does for LSTM weights.
func quantSym[T int8 | int16](w []float32, qmax float64) ([]T, float32) {
	m := 0.0
	for _, v := range w {
		m = math.Max(m, math.Abs(float64(v)))
	}
	scale := float32(m / qmax)
	if scale == 0 {
		scale = 1
	}
	q := make([]T, len(w))
	for i, v := range w {
		q[i] = T(math.Round(float64(v / scale)))
	}
	return q, scale
}

// dequant returns q·scale for each element.
func dequant[T int8 | int16 | int32](q []T, scale float32) []float32 {
	out := make([]float32, len(q))
	for i, v := range q {
		out[i] = float32(v) * scale
	}
	return out
}

// integerSpecNode quantises a float spec the way TFLite's MLIR quantiser
// lays out a full-integer LSTM (int8 weights, int16 cell state 2^-11, int32
// biases, int16 peephole and layer-norm weights, 5 intermediates). It
// returns the node, and the spec and input with every value replaced by
// its dequantised one, so that a float64 reference computes what the
// integer kernel approximates; and the output's (scale, zero point).
func integerSpecNode(s *lstmSpec, x []float32) (*ops.Node, *lstmSpec, []float32, float32, int32) {
	const inScale, inZP = float32(1.0 / 128), int32(3)
	const hScale, hZP = float32(1.0 / 128), int32(-2)
	deq := *s
	xq := make([]int8, len(x))
	xd := make([]float32, len(x))
	for i, v := range x {
		xq[i] = ops.SaturateInt8(int32(math.Round(float64(v/inScale))) + inZP)
		xd[i] = float32(int32(xq[i])-inZP) * inScale
	}
	in := make([]*ops.Tensor, lstmFullInputCount)
	in[lstmInputTensor] = quant(&ops.Tensor{Type: ops.Int8, Shape: s.inputShape(), Data: bytesOf(xq)}, inScale, inZP)
	// Output state: the projection's output, or the hidden state itself.
	osScale, osZP := hScale, hZP
	if s.proj {
		osScale, osZP = 1.0/64, 1
	}
	// Gate pre-activation scales (layer norm only): ±8 in int16.
	const gateScale = float32(8.0 / 32768)
	for g := 0; g < numGates; g++ {
		if s.wx[g] == nil {
			continue
		}
		wxq, sx := quantSym[int8](s.wx[g], 127)
		whq, sh := quantSym[int8](s.wh[g], 127)
		deq.wx[g], deq.wh[g] = dequant(wxq, sx), dequant(whq, sh)
		in[inputToGateIndex[g]] = quant(constTensor(ops.Int8, []int{s.nCell, s.nIn}, wxq), sx, 0)
		in[recurrentToGateIndex[g]] = quant(constTensor(ops.Int8, []int{s.nCell, s.nOut}, whq), sh, 0)
		if s.wc[g] != nil {
			wcq, sc := quantSym[int16](s.wc[g], 32767)
			deq.wc[g] = dequant(wcq, sc)
			in[cellToGateIndex[g]] = quant(constTensor(ops.Int16, []int{s.nCell}, wcq), sc, 0)
		}
		biasScale := inScale * sx
		if s.layerNorm {
			lnq, sl := quantSym[int16](s.ln[g], 32767)
			deq.ln[g] = dequant(lnq, sl)
			in[layerNormIndex[g]] = quant(constTensor(ops.Int16, []int{s.nCell}, lnq), sl, 0)
			biasScale = sl / 1024
		}
		bq := make([]int32, s.nCell)
		for i, v := range s.bias[g] {
			bq[i] = int32(math.Round(float64(v / biasScale)))
		}
		deq.bias[g] = dequant(bq, biasScale)
		in[gateBiasIndex[g]] = quant(constTensor(ops.Int32, []int{s.nCell}, bq), biasScale, 0)
	}
	if s.proj {
		wpq, sp := quantSym[int8](s.wp, 127)
		deq.wp = dequant(wpq, sp)
		in[lstmProjectionWeights] = quant(constTensor(ops.Int8, []int{s.nOut, s.nCell}, wpq), sp, 0)
		if s.bp != nil {
			bs := sp * hScale
			bq := make([]int32, s.nOut)
			for i, v := range s.bp {
				bq[i] = int32(math.Round(float64(v / bs)))
			}
			deq.bp = dequant(bq, bs)
			in[lstmProjectionBias] = quant(constTensor(ops.Int32, []int{s.nOut}, bq), bs, 0)
		}
	}
	in[lstmOutputState] = quant(varTensor(ops.Int8, []int{s.batch, s.nOut}), osScale, osZP)
	// Variable int8 tensors start at their zero point.
	for i := range in[lstmOutputState].Data {
		in[lstmOutputState].Data[i] = byte(int8(osZP))
	}
	in[lstmCellState] = quant(varTensor(ops.Int16, []int{s.batch, s.nCell}), 1.0/2048, 0)
	var inter []*ops.Tensor
	for i := 0; i < 4; i++ {
		if s.layerNorm {
			inter = append(inter, quant(&ops.Tensor{Type: ops.Int16, Shape: []int{0}}, gateScale, 0))
		} else {
			inter = append(inter, &ops.Tensor{Type: ops.Float32, Shape: []int{0}})
		}
	}
	inter = append(inter, quant(&ops.Tensor{Type: ops.Int8, Shape: []int{0}}, hScale, hZP))
	outScale, outZP := osScale, osZP
	n := &ops.Node{
		OpName: "UNIDIRECTIONAL_SEQUENCE_LSTM", Op: ops.OpUnidirectionalSequenceLSTM, Version: 1,
		Inputs:        in,
		Outputs:       []*ops.Tensor{quant(&ops.Tensor{Type: ops.Int8}, outScale, outZP)},
		Intermediates: inter,
		Options: &UnidirectionalSequenceLSTMOptions{Activation: ops.ActTanh, TimeMajor: s.timeMajor,
			CellClip: s.cellClip, ProjClip: s.projClip},
	}
	return n, &deq, xd, outScale, outZP
}

// TestIntegerLSTMAgainstReference runs the integer kernel on quantised
// random LSTMs and compares the dequantised output with a float64 LSTM of
// the dequantised weights. The gap is quantisation error (about one output
// step, 1/128, here; 0.02 allows 2.5 steps), so this catches structural
// mistakes (a wrong gate, zero point, scale or layout), not rounding ones;
// the TFLite vectors above and the golden models check the bits.
func TestIntegerLSTMAgainstReference(t *testing.T) {
	cases := []lstmSpec{
		{batch: 1, time: 5, nIn: 6, nCell: 6, nOut: 6},
		{batch: 3, time: 4, nIn: 5, nCell: 8, nOut: 8},
		{batch: 2, time: 4, nIn: 3, nCell: 7, nOut: 7, cifg: true},
		{batch: 2, time: 4, nIn: 6, nCell: 8, nOut: 8, peephole: true},
		{batch: 2, time: 3, nIn: 7, nCell: 8, nOut: 5, proj: true, projBias: true},
		{batch: 1, time: 3, nIn: 7, nCell: 5, nOut: 4, cifg: true, proj: true, cellClip: 0.5, projClip: 0.3},
		{batch: 2, time: 4, nIn: 5, nCell: 8, nOut: 8, layerNorm: true},
		{batch: 1, time: 4, nIn: 7, nCell: 8, nOut: 8, layerNorm: true, peephole: true, cifg: true},
	}
	rng := newTestRand(11)
	for i, c := range cases {
		for _, timeMajor := range []bool{true, false} {
			s := c
			s.timeMajor = timeMajor
			s.act = ops.ActTanh
			s.randomize(rng)
			x := s.randomInput(rng)
			n, deq, xd, outScale, outZP := integerSpecNode(&s, x)
			got := runInteger(t, n)
			want := deq.reference(xd)
			gotF := make([]float32, len(got))
			for j, q := range got {
				gotF[j] = float32(int32(q)-outZP) * outScale
			}
			if d, at := maxAbsDiff(gotF, want); d > 0.02 {
				t.Errorf("case %d time_major=%v: max |dequantised kernel - float64 reference| = %g at %d (got %g, want %g)",
					i, timeMajor, d, at, gotF[at], want[at])
			}
		}
	}
}

// TestIntegerLSTMStreamingEqualsBatch: T invocations of one step carrying
// the state equal one invocation of T steps, bit for bit.
func TestIntegerLSTMStreamingEqualsBatch(t *testing.T) {
	rng := newTestRand(12)
	s := lstmSpec{batch: 2, time: 5, nIn: 4, nCell: 8, nOut: 6, timeMajor: true, proj: true, projBias: true,
		layerNorm: true, peephole: true, act: ops.ActTanh}
	s.randomize(rng)
	x := s.randomInput(rng)
	n, _, _, _, _ := integerSpecNode(&s, x)
	whole := runInteger(t, n)

	step := s
	step.time = 1
	stepLen := s.batch * s.nIn
	n1, _, _, _, _ := integerSpecNode(&step, x[:stepLen])
	xq := n.Inputs[lstmInputTensor].Int8s()
	k := NewUnidirectionalSequenceLSTM()
	prepared(t, k, n1)
	for tt := 0; tt < s.time; tt++ {
		copy(n1.Inputs[lstmInputTensor].Int8s(), xq[tt*stepLen:(tt+1)*stepLen])
		if err := k.Eval(n1); err != nil {
			t.Fatal(err)
		}
		want := whole[tt*s.batch*s.nOut : (tt+1)*s.batch*s.nOut]
		if got := n1.Outputs[0].Int8s(); !slices.Equal(got, want) {
			t.Fatalf("step %d: streamed %v, whole sequence %v", tt, got, want)
		}
	}
}

// TestIntegerLSTMLayoutsAgree: batch-major and time-major layouts of the
// same sequences agree bit for bit (without the peephole, whose TFLite
// stride quirk couples batches in the time-major layout when
// n_output < n_cell).
func TestIntegerLSTMLayoutsAgree(t *testing.T) {
	rng := newTestRand(13)
	s := lstmSpec{batch: 3, time: 4, nIn: 5, nCell: 8, nOut: 6, proj: true, layerNorm: true, cifg: true, act: ops.ActTanh}
	s.randomize(rng)
	xb := s.randomInput(rng)
	s.timeMajor = false
	nb, _, _, _, _ := integerSpecNode(&s, xb)
	bm := runInteger(t, nb)
	xt := make([]float32, len(xb))
	for b := 0; b < s.batch; b++ {
		for tt := 0; tt < s.time; tt++ {
			copy(xt[(tt*s.batch+b)*s.nIn:], xb[(b*s.time+tt)*s.nIn:(b*s.time+tt+1)*s.nIn])
		}
	}
	s.timeMajor = true
	nt, _, _, _, _ := integerSpecNode(&s, xt)
	tm := runInteger(t, nt)
	for b := 0; b < s.batch; b++ {
		for tt := 0; tt < s.time; tt++ {
			g := bm[(b*s.time+tt)*s.nOut : (b*s.time+tt+1)*s.nOut]
			w := tm[(tt*s.batch+b)*s.nOut : (tt*s.batch+b+1)*s.nOut]
			if !slices.Equal(g, w) {
				t.Fatalf("batch %d time %d: batch-major %v, time-major %v", b, tt, g, w)
			}
		}
	}
}

func TestIntegerLSTMEvalNoAllocs(t *testing.T) {
	rng := newTestRand(14)
	for _, timeMajor := range []bool{true, false} {
		s := lstmSpec{batch: 2, time: 3, nIn: 4, nCell: 8, nOut: 5, proj: true, projBias: true, layerNorm: true,
			peephole: true, act: ops.ActTanh, timeMajor: timeMajor}
		s.randomize(rng)
		n, _, _, _, _ := integerSpecNode(&s, s.randomInput(rng))
		k := NewUnidirectionalSequenceLSTM()
		prepared(t, k, n)
		if a := testing.AllocsPerRun(20, func() {
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("time_major=%v: Eval allocates %v times per run", timeMajor, a)
		}
	}
}

// TestIntegerLSTMCellScales covers the cell-state scales outside
// 2^-15..2^-9 that TFLite's UNIDIRECTIONAL_SEQUENCE_LSTM accepts. Below
// 2^-15 (and above 2^-9) TFLite's ApplyTanh writes nothing and the hidden
// product reads the step's input gate: without peephole the output then
// no longer depends on the cell state at all, so every such scale gives
// the same output, and it differs from a scale TFLite takes the tanh
// of. CIFG (an unwritten buffer in TFLite), LSTM's own limit 2^-9 and
// shifts outside 0..31 are refused.
func TestIntegerLSTMCellScales(t *testing.T) {
	s := lstmSpec{batch: 2, time: 4, nIn: 5, nCell: 6, nOut: 6, timeMajor: true, act: ops.ActTanh}
	rng := newTestRand(71)
	s.randomize(rng)
	x := s.randomInput(rng)
	run := func(scale float32) []int8 {
		n, _, _, _, _ := integerSpecNode(&s, x)
		n.Inputs[lstmCellState].Quant.Scale[0] = scale
		return runInteger(t, n)
	}
	skipped := run(1.0 / (1 << 16))
	for _, e := range []int{18, 23, 30} {
		if got := run(1 / float32(int64(1)<<e)); !slices.Equal(got, skipped) {
			t.Errorf("cell scale 2^-%d: %v, want the 2^-16 output %v", e, got, skipped)
		}
	}
	if got := run(1.0 / 256); !slices.Equal(got, skipped) {
		t.Errorf("cell scale 2^-8: %v, want the 2^-16 output %v", got, skipped)
	}
	if got := run(1.0 / (1 << 15)); slices.Equal(got, skipped) {
		t.Errorf("cell scale 2^-15 (tanh applied) gives the skipped-tanh output %v", got)
	}

	cifg := lstmSpec{batch: 2, time: 4, nIn: 5, nCell: 6, nOut: 6, timeMajor: true, act: ops.ActTanh, cifg: true}
	cifg.randomize(rng)
	n, _, _, _, _ := integerSpecNode(&cifg, x)
	n.Inputs[lstmCellState].Quant.Scale[0] = 1.0 / (1 << 16)
	if err := NewUnidirectionalSequenceLSTM().Prepare(n); err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("CIFG with cell scale 2^-16: %v, want an error about TFLite's undefined result", err)
	}

	one := s
	one.time = 1
	n, _, _, _, _ = integerSpecNode(&one, one.randomInput(rng))
	n.Inputs[lstmInputTensor].Shape = []int{one.batch, one.nIn}
	n.Op, n.OpName = ops.OpLSTM, "LSTM"
	n.Options = &LSTMOptions{Activation: ops.ActTanh}
	n.Inputs[lstmCellState].Quant.Scale[0] = 1.0 / 256
	if err := NewLSTM().Prepare(n); err == nil || !strings.Contains(err.Error(), "at most 2^-9") {
		t.Errorf("LSTM with cell scale 2^-8: %v, want TFLite's limit 2^-9", err)
	}
	n.Inputs[lstmCellState].Quant.Scale[0] = 1.0 / (1 << 16)
	if err := NewLSTM().Prepare(n); err != nil {
		t.Errorf("LSTM with cell scale 2^-16: %v", err)
	}
}
