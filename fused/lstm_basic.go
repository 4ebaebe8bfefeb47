package fused

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// lstmBasicKernel is the LSTM operator with kernel_type BASIC: TFLite's
// 5-input basic LSTM cell (lstm.cc namespace basic; the arithmetic of
// reference_ops::LstmCell and its uint8 form in
// kernels/internal/reference/lstm_cell.h).
//
// Inputs: 0 input [n_batch, input_depth]; 1 prev_activation [n_batch,
// depth] and 4 prev_state [n_batch, depth], variable tensors updated by
// every Eval; 2 weights [4·depth, input_depth+depth] (one panel already:
// the gates in the basic cell's order input, new input, forget, output);
// 3 bias [4·depth]. Outputs: 0 activation and 1 state (shapes of inputs 1
// and 4), 2 concat_temp [n_batch, input_depth+depth] (input and
// prev_activation side by side), 3 activation_temp [n_batch, 4·depth] (the
// gates before their activations); the kernel writes all four, as TFLite.
//
//	[i, g, f, o] = W·[x, h] + b
//	c' = sigmoid(i)·tanh(g) + sigmoid(f)·c
//	h' = sigmoid(o)·tanh(c')
//
// Two type combinations, as in TFLite:
//   - float32 everywhere;
//   - the legacy quantised cell: uint8 input, prev_activation, weights,
//     activation and concat_temp; int32 bias; int16 prev_state, state and
//     activation_temp. The state must have scale 2^-11 (4 integer bits,
//     the only StateIntegerBits TFLite instantiates). As in TFLite, the
//     input and prev_activation are taken as scale 1/128, zero point 128
//     (real [-1, 127/128]) whatever their quantisation says; the gates are
//     Q3.12 scaled by accum_multiplier = 4096·bias_scale; all fixed-point
//     steps are gemmlowp's. The uint8 prev_activation starts at byte 0 (real
//     -1.0), as TFLite initialises variable tensors.
type lstmBasicKernel struct {
	prepared  bool
	quantized bool
	nBatch    int
	inDepth   int
	depth     int
	// weights and bias are copies of the constant inputs.
	wF    []float32
	bF    []float32
	wQ    []uint8
	bQ    []int32
	wZP   int32
	accum quantMultiplier
	need  [5]int
	out   [4]int
}

// lstmBasicInputNames and lstmBasicOutputNames name the basic cell's
// inputs and outputs in errors (TFLite's basic::InputTensor/OutputTensor).
var lstmBasicInputNames = [5]string{"input", "prev_activation", "weights", "bias", "prev_state"}

func basicInputName(i int) string { return fmt.Sprintf("input %d (%s)", i, lstmBasicInputNames[i]) }

var lstmBasicOutputNames = [4]string{"activation", "state", "concat_temp", "activation_temp"}

func basicOutputName(i int) string { return fmt.Sprintf("output %d (%s)", i, lstmBasicOutputNames[i]) }

// prepare validates the node as TFLite's basic::Prepare and the type
// dispatch of its Eval do, sets the state inputs to [n_batch, depth] (so
// a resized batch re-sizes them) and the output shapes, and copies the
// weights.
func (k *lstmBasicKernel) prepare(n *ops.Node) error {
	*k = lstmBasicKernel{}
	if len(n.Inputs) != 5 || len(n.Outputs) != 4 {
		return fmt.Errorf("the basic LSTM kernel has %d inputs and %d outputs, needs 5 and 4", len(n.Inputs), len(n.Outputs))
	}
	for i, x := range n.Inputs {
		if x == nil {
			return fmt.Errorf("%s is required but omitted", basicInputName(i))
		}
	}
	for i, x := range n.Outputs {
		if x == nil {
			return fmt.Errorf("%s is missing", basicOutputName(i))
		}
	}
	in, prevAct, w, bias, prevState := n.Inputs[0], n.Inputs[1], n.Inputs[2], n.Inputs[3], n.Inputs[4]
	if in.Rank() != 2 {
		return fmt.Errorf("%s has shape %v, needs rank 2 [n_batch, input_depth]", basicInputName(0), in.Shape)
	}
	k.nBatch, k.inDepth = in.Dim(0), in.Dim(1)
	for _, i := range []int{1, 4} {
		s := n.Inputs[i]
		if s.Kind != ops.VariableTensor {
			return fmt.Errorf("%s is not a variable tensor (LSTM state must persist across invokes)", basicInputName(i))
		}
		if s.Rank() != 2 {
			return fmt.Errorf("%s has shape %v, needs rank 2 [n_batch, depth]", basicInputName(i), s.Shape)
		}
	}
	k.depth = prevAct.Dim(1)
	if prevState.Dim(1) != k.depth {
		return fmt.Errorf("%s has shape %v, needs [n_batch, %d] like %s", basicInputName(4), prevState.Shape, k.depth, basicInputName(1))
	}
	// A resized input batch re-sizes the state (TFLite requires the state's
	// batch to equal the input's).
	prevAct.Shape = []int{k.nBatch, k.depth}
	prevState.Shape = []int{k.nBatch, k.depth}
	total := k.inDepth + k.depth
	if !ops.SameShape(w.Shape, []int{4 * k.depth, total}) {
		return fmt.Errorf("%s has shape %v, needs [%d, %d] (4·depth, input_depth+depth)", basicInputName(2), w.Shape, 4*k.depth, total)
	}
	if !ops.SameShape(bias.Shape, []int{4 * k.depth}) {
		return fmt.Errorf("%s has shape %v, needs [%d]", basicInputName(3), bias.Shape, 4*k.depth)
	}
	for _, i := range []int{2, 3} {
		x := n.Inputs[i]
		if !x.IsConstant() {
			return fmt.Errorf("%s must be a constant tensor with data (the LSTM copies its weights at Prepare)", basicInputName(i))
		}
	}
	outs := n.Outputs
	floatTypes := [9]ops.DataType{ops.Float32, ops.Float32, ops.Float32, ops.Float32, ops.Float32, ops.Float32, ops.Float32, ops.Float32, ops.Float32}
	quantTypes := [9]ops.DataType{ops.Uint8, ops.Uint8, ops.Uint8, ops.Int32, ops.Int16, ops.Uint8, ops.Int16, ops.Uint8, ops.Int16}
	got := [9]ops.DataType{in.Type, prevAct.Type, w.Type, bias.Type, prevState.Type, outs[0].Type, outs[1].Type, outs[2].Type, outs[3].Type}
	switch got {
	case floatTypes:
		k.wF = cloneF32(w)
		k.bF = cloneF32(bias)
	case quantTypes:
		k.quantized = true
		if err := k.prepareQuantized(n); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unsupported type combination for the basic LSTM cell (input %s, prev_activation %s, weights %s, bias %s, prev_state %s; outputs %s, %s, %s, %s): TFLite supports all float32, or uint8/uint8/uint8/int32/int16 with outputs uint8/int16/uint8/int16",
			got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7], got[8])
	}
	outs[0].Shape = []int{k.nBatch, k.depth}
	outs[1].Shape = []int{k.nBatch, k.depth}
	outs[2].Shape = []int{k.nBatch, total}
	outs[3].Shape = []int{k.nBatch, 4 * k.depth}
	for i, x := range n.Inputs {
		k.need[i] = x.Bytes()
	}
	for i, x := range outs {
		k.out[i] = x.Bytes()
	}
	k.prepared = true
	return nil
}

// prepareQuantized derives the quantised cell's parameters as TFLite's
// basic::Eval does: the state scale must be 2^-11 and the accumulator
// multiplier is 4096·bias_scale (computed in double precision).
func (k *lstmBasicKernel) prepareQuantized(n *ops.Node) error {
	w, bias, stateOut := n.Inputs[2], n.Inputs[3], n.Outputs[1]
	ss, err := perTensorScale(stateOut, basicOutputName(1))
	if err != nil {
		return err
	}
	l2, ok := checkedLog2(ss)
	if !ok {
		return fmt.Errorf("%s has scale %g: the internal state of a quantised LSTM cell must have a power-of-two scale", basicOutputName(1), ss)
	}
	if 15+l2 != 4 {
		return fmt.Errorf("%s has scale 2^%d: TFLite's quantised LSTM cell supports only 4 integer state bits (scale 2^-11)", basicOutputName(1), l2)
	}
	bs, err := perTensorScale(bias, basicInputName(3))
	if err != nil {
		return err
	}
	if w.Quant == nil || len(w.Quant.Scale) == 0 {
		return fmt.Errorf("%s is uint8 but not quantised", basicInputName(2))
	}
	if len(w.Quant.Scale) != 1 {
		return fmt.Errorf("%s has %d scales (per-channel); the quantised LSTM cell needs one per-tensor zero point", basicInputName(2), len(w.Quant.Scale))
	}
	zp := w.ZeroPoint()
	if zp < 0 || zp > 255 {
		return fmt.Errorf("%s has zero point %d outside the uint8 range", basicInputName(2), zp)
	}
	real := 4096 * float64(bs)
	if math.IsInf(real, 0) || math.IsNaN(real) {
		return fmt.Errorf("%s has scale %g, out of range", basicInputName(3), bs)
	}
	m, s := ops.QuantizeMultiplier(real)
	if s > 31 {
		return fmt.Errorf("the accumulator multiplier 4096·%g (from %s) is too large", bs, basicInputName(3))
	}
	k.accum = quantMultiplier{m, s}
	k.wZP = zp
	k.wQ = append([]uint8(nil), w.Uint8s()[:w.NumElements()]...)
	k.bQ = cloneI32(bias)
	// Build the activation tables now rather than in the first Eval.
	sigmoidQ3Table()
	tanhTables[3]()
	return nil
}

// eval runs one step of the basic cell and stores the new activation and
// state back into the state inputs.
func (k *lstmBasicKernel) eval(n *ops.Node) error {
	if !k.prepared {
		return fmt.Errorf("Eval before a successful Prepare")
	}
	for i, need := range k.need {
		if x := n.Input(i); x == nil || len(x.Data) < need {
			return fmt.Errorf("%s has no data or fewer than the %d bytes prepared", basicInputName(i), need)
		}
	}
	for i, need := range k.out {
		if x := n.Output(i); x == nil || len(x.Data) < need {
			return fmt.Errorf("%s has no data or fewer than the %d bytes prepared", basicOutputName(i), need)
		}
	}
	if k.quantized {
		k.evalQuantized(n)
	} else {
		k.evalFloat(n)
	}
	// The state inputs carry the step's results to the next invoke.
	copy(n.Inputs[1].Data[:k.need[1]], n.Outputs[0].Data)
	copy(n.Inputs[4].Data[:k.need[4]], n.Outputs[1].Data)
	return nil
}

// evalFloat is TFLite's float LstmCell.
func (k *lstmBasicKernel) evalFloat(n *ops.Node) {
	x, hPrev, cPrev := n.Inputs[0].Float32s(), n.Inputs[1].Float32s(), n.Inputs[4].Float32s()
	act, state := n.Outputs[0].Float32s(), n.Outputs[1].Float32s()
	concat, gates := n.Outputs[2].Float32s(), n.Outputs[3].Float32s()
	d, total := k.depth, k.inDepth+k.depth
	for b := 0; b < k.nBatch; b++ {
		cat := concat[b*total : (b+1)*total]
		copy(cat, x[b*k.inDepth:(b+1)*k.inDepth])
		copy(cat[k.inDepth:], hPrev[b*d:(b+1)*d])
		g := gates[b*4*d : (b+1)*4*d]
		copy(g, k.bF)
		arch.MatVecMulAcc(g, k.wF, 4*d, total, cat)
		for c := 0; c < d; c++ {
			ig := sigmoidFloat(g[c])
			ng := float32(math.Tanh(float64(g[d+c])))
			fg := sigmoidFloat(g[2*d+c])
			og := sigmoidFloat(g[3*d+c])
			cs := float32(ig*ng) + float32(fg*cPrev[b*d+c])
			state[b*d+c] = cs
			act[b*d+c] = og * float32(math.Tanh(float64(cs)))
		}
	}
}

// evalQuantized is TFLite's LstmCell<4> on uint8 activations: the fully
// connected part in int32 with the activations' fixed zero point 128 and
// the weights' zero point, rescaled to Q3.12 and saturated to int16; then
// the gates and the state update in gemmlowp fixed point (F0 = Q0.15,
// F3 = Q3.12, F4 = Q4.11 for the state).
func (k *lstmBasicKernel) evalQuantized(n *ops.Node) {
	x, hPrev := n.Inputs[0].Uint8s(), n.Inputs[1].Uint8s()
	cPrev := n.Inputs[4].Int16s()
	act, state := n.Outputs[0].Uint8s(), n.Outputs[1].Int16s()
	concat, gates := n.Outputs[2].Uint8s(), n.Outputs[3].Int16s()
	d, total := k.depth, k.inDepth+k.depth
	sig, tanh3 := sigmoidQ3Table(), tanhTables[3]()
	for b := 0; b < k.nBatch; b++ {
		cat := concat[b*total : (b+1)*total]
		copy(cat, x[b*k.inDepth:(b+1)*k.inDepth])
		copy(cat[k.inDepth:], hPrev[b*d:(b+1)*d])
		g := gates[b*4*d : (b+1)*4*d]
		for r := 0; r < 4*d; r++ {
			acc := k.bQ[r]
			row := k.wQ[r*total : (r+1)*total]
			for j, v := range cat {
				acc += (int32(v) - 128) * (int32(row[j]) - k.wZP)
			}
			acc = ops.MultiplyByQuantizedMultiplier(acc, k.accum.multiplier, k.accum.shift)
			g[r] = ops.SaturateInt16(acc)
		}
		for c := 0; c < d; c++ {
			ig := sig[uint16(g[c])]
			ng := tanh3[uint16(g[d+c])]
			fg := sig[uint16(g[2*d+c])]
			og := sig[uint16(g[3*d+c])]
			// F0·F0 → F0, rescaled to the state's F4 (a rounding shift by 4).
			inMod := satRoundMulPOT16(srdhm16(ig, ng), -4)
			// F0·F4 → F4.
			kept := srdhm16(fg, cPrev[b*d+c])
			cs := saturatingAdd16(inMod, kept)
			state[b*d+c] = cs
			// tanh of the state rescaled to F3 (a saturating shift by 1).
			h := srdhm16(og, tanh3[uint16(satRoundMulPOT16(cs, 1))])
			v := ops.RoundingDivideByPOT16(h, 8)
			act[b*d+c] = uint8(128 + int32(max(-128, min(127, v))))
		}
	}
}
