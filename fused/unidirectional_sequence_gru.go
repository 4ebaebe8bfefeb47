package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// GRUCustomName is the custom operator name of the GRU kernel,
// UNIDIRECTIONAL_SEQUENCE_GRU, as TFLite's experimental kernel is
// registered.
const GRUCustomName = "UNIDIRECTIONAL_SEQUENCE_GRU"

// UNIDIRECTIONAL_SEQUENCE_GRU input indices (TFLite's experimental
// unidirectional_sequence_gru.cc).
const (
	gruInput           = 0
	gruInputState      = 1
	gruGateWeight      = 2
	gruGateBias        = 3
	gruCandidateWeight = 4
	gruCandidateBias   = 5
	// gruCandidateRecurrentBias is tflrun's optional seventh input, which
	// selects the reset-after candidate (see UnidirectionalSequenceGRU).
	gruCandidateRecurrentBias = 6
)

var gruRoles = ioRoles{"input", "input_state", "gate_weight", "gate_bias", "candidate_weight", "candidate_bias", "candidate_recurrent_bias"}

// UnidirectionalSequenceGRU is the kernel of the custom operator
// UNIDIRECTIONAL_SEQUENCE_GRU with the tensor layout and arithmetic of
// TensorFlow Lite's experimental kernel (experimental/kernels/
// unidirectional_sequence_gru.cc and gru_cell.cc), float32 only.
//
// Inputs: 0 input [max_time, batch, n_input] (always time-major); 1
// input_state [batch, units], a variable tensor; 2 gate_weight [2·units,
// n_input + units] (the reset gate's rows, then the update gate's); 3
// gate_bias [2·units]; 4 candidate_weight [units, n_input + units]; 5
// candidate_bias [units]. Outputs: 0 output [max_time, batch, units]; 1
// output_state [batch, units], the state after the last step. No options.
//
// Each step, with [a, b] the concatenation along the features:
//
//	r, u = sigmoid(gate_weight·[x, h] + gate_bias)
//	c    = tanh(candidate_weight·[x, r⊙h] + candidate_bias)
//	h    = (1 − u)⊙c + u⊙h
//
// Beyond TFLite, an optional seventh input 6 candidate_recurrent_bias
// [units] selects the reset-after candidate of Keras's GRU
// (reset_after=True, the cuDNN form), which TFLite's cell cannot express
// because it resets h before the product: with candidate_weight = [Wx,
// Wh] split after the n_input columns,
//
//	c    = tanh(Wx·x + candidate_bias + r⊙(Wh·h + candidate_recurrent_bias))
//
// tflrun's converter writes this form for such layers; TFLite's
// experimental kernel accepts exactly six inputs, so it refuses such a
// model instead of misreading it.
//
// Also beyond TFLite, int8 gate_weight and candidate_weight (constant,
// symmetric, one scale per tensor or per row) select a hybrid path:
// float32 activations quantised per batch row, int8 products rescaled to
// float, with the arithmetic of TFLite's hybrid LSTM step (see gruHybrid
// in unidirectional_sequence_gru_hybrid.go). TFLite has no hybrid GRU.
//
// The concatenated [x, h] row is built once per step so that each of the
// two products is one matrix × vector. Constant weights are packed once at
// Prepare (arch.PackMatrix; the reset-after candidate weights split into
// their input and recurrent halves), so a step is two or three packed
// products; weights computed at run time are read in place.
//
// One difference from TFLite: the experimental kernel never writes
// input_state back, so every Invoke starts again from the same state;
// tflrun carries the final state over in input_state, as every other
// recurrent kernel's variable state, so that T invokes of one step equal
// one invoke of T steps. One Invoke from a fresh state gives TFLite's
// outputs.
type UnidirectionalSequenceGRU struct {
	prepared                bool
	maxTime, batch, nInput  int
	units                   int
	idConcat, idAct         int
	sizes                   ioSizes
	concatWidth, stateElems int
	resetAfter              bool
	// gwP and cwP are the packed gate and candidate weights (reset-before
	// candidate: [units, n_input+units]); cwxP and cwhP the packed input
	// [units, n_input] and recurrent [units, units] halves of a
	// reset-after candidate. All nil when the weights are not constant.
	gwP, cwP, cwxP, cwhP []float32
	// hy is the hybrid path's state (int8 weights); nil on the float path.
	hy *gruHybrid
}

// NewUnidirectionalSequenceGRU returns a kernel for one
// UNIDIRECTIONAL_SEQUENCE_GRU node.
func NewUnidirectionalSequenceGRU() ops.Kernel { return &UnidirectionalSequenceGRU{} }

func init() {
	// TFLite's experimental custom operator, looked up by name.
	registerCustom(GRUCustomName, NewUnidirectionalSequenceGRU)
}

// Prepare validates the node as TFLite's experimental Prepare does (plus
// types, input_state being a variable), sets the output shapes and the
// state's batch, and requests the concatenation and gate scratch. Errors
// name the input.
func (k *UnidirectionalSequenceGRU) Prepare(n *ops.Node) error {
	k.prepared = false
	if err := n.CheckIO(6, 7, 2); err != nil {
		return err
	}
	roles := gruRoles
	k.resetAfter = n.Input(gruCandidateRecurrentBias) != nil
	inputs := 6
	if k.resetAfter {
		inputs = 7
	}
	k.hy = nil
	hybrid := false
	if w := n.Input(gruGateWeight); w != nil && w.Type == ops.Int8 {
		hybrid = true
	}
	for i := 0; i < inputs; i++ {
		if _, err := roles.require(n, i); err != nil {
			return err
		}
		if hybrid && (i == gruGateWeight || i == gruCandidateWeight) {
			if err := roles.dtype(n, i, ops.Int8, "hybrid"); err != nil {
				return err
			}
			continue
		}
		if err := roles.dtype(n, i, ops.Float32, "float32 (the only one TFLite's GRU has; int8 weights select the hybrid path)"); err != nil {
			return err
		}
	}
	in := n.Inputs[gruInput]
	if err := roles.rank(n, gruInput, 3); err != nil {
		return err
	}
	k.maxTime, k.batch, k.nInput = in.Dim(0), in.Dim(1), in.Dim(2)
	st := n.Inputs[gruInputState]
	if err := roles.rank(n, gruInputState, 2); err != nil {
		return err
	}
	k.units = st.Dim(1)
	if err := roles.state(n, gruInputState, k.batch, k.units); err != nil {
		return err
	}
	u := k.units
	if err := checkSteps(k.maxTime, k.batch, k.nInput, u); err != nil {
		return err
	}
	cols, err := ops.ShapeElements([]int{k.nInput + u}, 0)
	if err != nil || k.nInput+u < k.nInput {
		return fmt.Errorf("n_input %d + units %d overflows", k.nInput, u)
	}
	k.concatWidth = cols
	if err := roles.shape(n, gruGateWeight, 2*u, cols); err != nil {
		return err
	}
	if err := roles.shape(n, gruGateBias, 2*u); err != nil {
		return err
	}
	if err := roles.shape(n, gruCandidateWeight, u, cols); err != nil {
		return err
	}
	if err := roles.shape(n, gruCandidateBias, u); err != nil {
		return err
	}
	if k.resetAfter {
		if err := roles.shape(n, gruCandidateRecurrentBias, u); err != nil {
			return err
		}
	}
	for i := 0; i < 2; i++ {
		if err := floatOutput(n, i); err != nil {
			return err
		}
	}
	if _, err := outputShape(n, 0, k.maxTime, k.batch, u); err != nil {
		return err
	}
	if _, err := outputShape(n, 1, k.batch, u); err != nil {
		return err
	}
	k.stateElems = k.batch * u
	if hybrid {
		if err := k.prepareHybrid(n); err != nil {
			return err
		}
		k.sizes.record(n)
		k.prepared = true
		return nil
	}
	k.idConcat = n.RequestScratch(scratchBytes[float32](k.batch * cols))
	// r and u per row, and for the reset-after candidate Wh·h + crb.
	actRow := 2 * u
	if k.resetAfter {
		actRow = 3 * u
	}
	k.idAct = n.RequestScratch(scratchBytes[float32](k.batch * actRow))
	if err := k.pack(n); err != nil {
		return err
	}
	k.sizes.record(n)
	k.prepared = true
	return nil
}

// pack packs constant weights for Eval (see UnidirectionalSequenceGRU);
// otherwise it leaves the packed slices nil. What it makes is charged to
// the memory bound first (at most two packed copies of each weight
// matrix, with rows rounded up to a block of 16).
func (k *UnidirectionalSequenceGRU) pack(n *ops.Node) error {
	k.gwP, k.cwP, k.cwxP, k.cwhP = nil, nil, nil, nil
	gwT, cwT := n.Inputs[gruGateWeight], n.Inputs[gruCandidateWeight]
	for _, w := range []*ops.Tensor{gwT, cwT} {
		if !w.IsConstant() {
			return nil
		}
	}
	U, nIn, W := k.units, k.nInput, k.concatWidth
	if err := n.Reserve(int(8*(3*int64(U)+48)*int64(W)), "GRU packed weights"); err != nil {
		return err
	}
	k.gwP = arch.PackMatrix(gwT.Float32s(), 2*U, W)
	cw := cwT.Float32s()
	if !k.resetAfter {
		k.cwP = arch.PackMatrix(cw, U, W)
		return nil
	}
	wx, wh := make([]float32, U*nIn), make([]float32, U*U)
	for j := 0; j < U; j++ {
		copy(wx[j*nIn:(j+1)*nIn], cw[j*W:j*W+nIn])
		copy(wh[j*U:(j+1)*U], cw[j*W+nIn:(j+1)*W])
	}
	k.cwxP, k.cwhP = arch.PackMatrix(wx, U, nIn), arch.PackMatrix(wh, U, U)
	return nil
}

// Eval runs the sequence from the state in input_state, writes every
// step's output, and leaves the final state in both input_state and
// output_state. It allocates nothing.
func (k *UnidirectionalSequenceGRU) Eval(n *ops.Node) error {
	if !k.prepared {
		return errUnprepared
	}
	if err := k.sizes.check(n); err != nil {
		return err
	}
	if k.batch == 0 {
		return nil // no row to advance, and both outputs are empty
	}
	if k.hy != nil {
		return k.evalHybrid(n)
	}
	B, U, nIn, W := k.batch, k.units, k.nInput, k.concatWidth
	actRow := 2 * U
	if k.resetAfter {
		actRow = 3 * U
	}
	concat, ok1 := scratchView[float32](scratchOf(n, k.idConcat), B*W)
	act, ok2 := scratchView[float32](scratchOf(n, k.idAct), B*actRow)
	if !ok1 || !ok2 {
		return errScratch
	}
	x := n.Inputs[gruInput].Float32s()
	h := n.Inputs[gruInputState].Float32s()[:k.stateElems]
	gw := n.Inputs[gruGateWeight].Float32s()
	gb := n.Inputs[gruGateBias].Float32s()[:2*U]
	cw := n.Inputs[gruCandidateWeight].Float32s()
	cb := n.Inputs[gruCandidateBias].Float32s()[:U]
	var crb []float32
	if k.resetAfter {
		crb = n.Inputs[gruCandidateRecurrentBias].Float32s()[:U]
	}
	out := n.Outputs[0].Float32s()
	for t := 0; t < k.maxTime; t++ {
		xt := x[t*B*nIn:]
		ot := out[t*B*U : t*B*U+B*U]
		for b := 0; b < B; b++ {
			row := concat[b*W : b*W+W]
			copy(row[:nIn], xt[b*nIn:b*nIn+nIn])
			copy(row[nIn:], h[b*U:b*U+U])
			a := act[b*actRow : b*actRow+2*U]
			copy(a, gb)
			if k.gwP != nil {
				arch.MatVecMulAccPacked(a, k.gwP, 2*U, W, row)
			} else {
				arch.MatVecMulAcc(a, gw, 2*U, W, row)
			}
			applySigmoidFloat(a)
			r := a[:U]
			if crb != nil {
				// Reset after the product: Wx·x + cb + r⊙(Wh·h + crb).
				xs, hs := row[:nIn], row[nIn:]
				o := ot[b*U : b*U+U]
				if k.cwxP != nil {
					hx := act[b*actRow+2*U : b*actRow+3*U]
					copy(o, cb)
					arch.MatVecMulAccPacked(o, k.cwxP, U, nIn, xs)
					copy(hx, crb)
					arch.MatVecMulAccPacked(hx, k.cwhP, U, U, hs)
					for j, hv := range hx {
						o[j] += r[j] * hv
					}
					continue
				}
				for j := range o {
					wr := cw[j*W : (j+1)*W]
					hx := crb[j] + arch.Dot(wr[nIn:], hs)
					o[j] = cb[j] + arch.Dot(wr[:nIn], xs) + r[j]*hx
				}
				continue
			}
			// The candidate reads [x, r⊙h].
			hr := row[nIn:]
			for i, hv := range h[b*U : b*U+U] {
				hr[i] = hv * r[i]
			}
			o := ot[b*U : b*U+U]
			copy(o, cb)
			if k.cwP != nil {
				arch.MatVecMulAccPacked(o, k.cwP, U, W, row)
			} else {
				arch.MatVecMulAcc(o, cw, U, W, row)
			}
		}
		// h = (1 − u)⊙tanh(c) + u⊙h, each product rounded to float32.
		gruUpdate(ot, act, h, B, U, actRow)
	}
	copy(n.Outputs[1].Float32s()[:k.stateElems], h)
	return nil
}
