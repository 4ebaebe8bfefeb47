package fused

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The hybrid GRU: float32 input, state, biases and outputs; int8 gate and
// candidate weights. TensorFlow Lite has no hybrid GRU (its experimental
// GRU is float32 only), so this path follows the arithmetic of its hybrid
// LSTM step (lstm_eval.cc, CalculateLstmGateHybrid) and hybrid
// FULLY_CONNECTED (per-channel weights) gate by gate:
//
//   - the weights are int8, symmetric (zero point 0), with one scale per
//     tensor or one per row (per channel along dimension 0); each weight
//     matrix is split after its n_input columns into an input half and a
//     recurrent half, as the LSTM's input_to_* and recurrent_to_* weights;
//   - each step quantises the input rows x and the state rows h to int8,
//     one scale and zero point per batch row (TFLite's BatchQuantizeFloats
//     with asymmetric_quantize_inputs, which TFLite's converter sets on the
//     hybrid operators it writes); a reset-before candidate quantises r⊙h
//     the same way;
//   - each product is MatrixBatchVectorMultiplyAccumulate: for row r and
//     batch row b, dot = Σ q_w[r,c]·q_x[b,c] − rowSum[r]·zp[b] in int32,
//     added to the float accumulator as float32(dot)·float32(sf[b]·scale[r])
//     (hybridProductAcc); the accumulators start at the bias, then take
//     the input product, then the recurrent one; a product whose whole
//     input (every batch row) is zero is skipped, as TFLite skips it;
//   - the gates, candidate and state update are the float path's.

// gruHybrid is the hybrid path's copy of the weights and its scratch ids.
type gruHybrid struct {
	gx, gh []int8 // gate weights: input half [2U, n_input], recurrent half [2U, U]
	cx, ch []int8 // candidate weights: [U, n_input], [U, U]
	// gScale and cScale are the weight scales per row (a per-tensor
	// scale repeated).
	gScale, cScale             []float32
	gxSum, ghSum, cxSum, chSum []int32 // row sums, for the zero points
	idQX, idQH                 int     // quantised x rows, h (or r⊙h) rows
	idSF, idZP                 int     // scaling factors and zero points: x rows then h rows
	idAcc                      int     // int32 products [B, 2U]
	idGates                    int     // gate accumulators [B, 2U]
	idHX                       int     // reset-after: Wh·h + crb; reset-before: r⊙h [B, U]
}

// gruWeightScales returns the per-row scales of the int8 weight input i
// with rows rows: one per-tensor scale repeated, or rows per-channel
// scales along dimension 0. Zero points must be 0.
func gruWeightScales(n *ops.Node, i, rows int) ([]float32, error) {
	t := n.Inputs[i]
	what := gruRoles.label(n, i)
	q := t.Quant
	if q == nil || len(q.Scale) == 0 {
		return nil, fmt.Errorf("%s (int8) has no quantization parameters", what)
	}
	if len(q.Scale) != 1 && len(q.Scale) != rows {
		return nil, fmt.Errorf("%s has %d scales, needs 1 (per tensor) or %d (per row)", what, len(q.Scale), rows)
	}
	if len(q.Scale) > 1 && q.QuantizedDimension != 0 {
		return nil, fmt.Errorf("%s is quantised along dimension %d, needs 0 (one scale per row)", what, q.QuantizedDimension)
	}
	for c, zp := range q.ZeroPoint {
		if zp != 0 {
			return nil, fmt.Errorf("%s has zero point %d (channel %d); hybrid weights must be symmetric", what, zp, c)
		}
	}
	s := make([]float32, rows)
	for r := range s {
		v := q.Scale[0]
		if len(q.Scale) > 1 {
			v = q.Scale[r]
		}
		if !(v > 0) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%s has scale %g (row %d), needs a finite scale > 0", what, v, r)
		}
		s[r] = v
	}
	return s, nil
}

// prepareHybrid checks the int8 weights (constant, symmetric, one scale
// per tensor or per row), splits them into their input and recurrent
// halves with row sums, charging the copies to the memory bound first,
// and requests the hybrid step's scratch.
func (k *UnidirectionalSequenceGRU) prepareHybrid(n *ops.Node) error {
	U, nIn, W, B := k.units, k.nInput, k.concatWidth, k.batch
	for _, i := range []int{gruGateWeight, gruCandidateWeight} {
		if !n.Inputs[i].IsConstant() {
			return fmt.Errorf("%s is int8 but not a constant; the hybrid GRU needs constant weights", gruRoles.label(n, i))
		}
	}
	gs, err := gruWeightScales(n, gruGateWeight, 2*U)
	if err != nil {
		return err
	}
	cs, err := gruWeightScales(n, gruCandidateWeight, U)
	if err != nil {
		return err
	}
	if err := n.Reserve(int(3*int64(U)*(int64(W)+8*4)), "hybrid GRU weights"); err != nil {
		return err
	}
	split := func(m []int8, rows int) (x, h []int8, xs, hs []int32) {
		x, h = make([]int8, rows*nIn), make([]int8, rows*U)
		for r := 0; r < rows; r++ {
			copy(x[r*nIn:(r+1)*nIn], m[r*W:r*W+nIn])
			copy(h[r*U:(r+1)*U], m[r*W+nIn:(r+1)*W])
		}
		return x, h, rowSums(x, rows, nIn), rowSums(h, rows, U)
	}
	hy := &gruHybrid{gScale: gs, cScale: cs}
	hy.gx, hy.gh, hy.gxSum, hy.ghSum = split(n.Inputs[gruGateWeight].Int8s()[:2*U*W], 2*U)
	hy.cx, hy.ch, hy.cxSum, hy.chSum = split(n.Inputs[gruCandidateWeight].Int8s()[:U*W], U)
	hy.idQX = n.RequestScratch(scratchBytes[int8](B * nIn))
	hy.idQH = n.RequestScratch(scratchBytes[int8](B * U))
	hy.idSF = n.RequestScratch(scratchBytes[float32](2 * B))
	hy.idZP = n.RequestScratch(scratchBytes[int32](2 * B))
	hy.idAcc = n.RequestScratch(scratchBytes[int32](B * 2 * U))
	hy.idGates = n.RequestScratch(scratchBytes[float32](B * 2 * U))
	hy.idHX = n.RequestScratch(scratchBytes[float32](B * U))
	k.hy = hy
	return nil
}

// evalHybrid is Eval on the hybrid path (see gruHybrid). It allocates
// nothing.
func (k *UnidirectionalSequenceGRU) evalHybrid(n *ops.Node) error {
	hy := k.hy
	B, U, nIn := k.batch, k.units, k.nInput
	qx, ok1 := scratchView[int8](scratchOf(n, hy.idQX), B*nIn)
	qh, ok2 := scratchView[int8](scratchOf(n, hy.idQH), B*U)
	sf, ok3 := scratchView[float32](scratchOf(n, hy.idSF), 2*B)
	zp, ok4 := scratchView[int32](scratchOf(n, hy.idZP), 2*B)
	acc, ok5 := scratchView[int32](scratchOf(n, hy.idAcc), B*2*U)
	gates, ok6 := scratchView[float32](scratchOf(n, hy.idGates), B*2*U)
	hx, ok7 := scratchView[float32](scratchOf(n, hy.idHX), B*U)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 {
		return errScratch
	}
	sfx, sfh := sf[:B], sf[B:]
	zpx, zph := zp[:B], zp[B:]
	x := n.Inputs[gruInput].Float32s()
	h := n.Inputs[gruInputState].Float32s()[:k.stateElems]
	gb := n.Inputs[gruGateBias].Float32s()[:2*U]
	cb := n.Inputs[gruCandidateBias].Float32s()[:U]
	var crb []float32
	if k.resetAfter {
		crb = n.Inputs[gruCandidateRecurrentBias].Float32s()[:U]
	}
	out := n.Outputs[0].Float32s()
	for t := 0; t < k.maxTime; t++ {
		xt := x[t*B*nIn : (t+1)*B*nIn]
		ot := out[t*B*U : t*B*U+B*U]
		for b := 0; b < B; b++ {
			copy(gates[b*2*U:(b+1)*2*U], gb)
			copy(ot[b*U:(b+1)*U], cb)
			if crb != nil {
				copy(hx[b*U:(b+1)*U], crb)
			}
		}
		if !isZeroFloat(xt) {
			batchQuantizeFloats(xt, B, nIn, qx, sfx, zpx, true)
			hybridProductAcc(gates, hy.gx, 2*U, nIn, qx, B, sfx, hy.gScale, 1, zpx, hy.gxSum, acc)
			hybridProductAcc(ot, hy.cx, U, nIn, qx, B, sfx, hy.cScale, 1, zpx, hy.cxSum, acc)
		}
		hZero := isZeroFloat(h)
		if !hZero {
			batchQuantizeFloats(h, B, U, qh, sfh, zph, true)
			hybridProductAcc(gates, hy.gh, 2*U, U, qh, B, sfh, hy.gScale[:2*U], 1, zph, hy.ghSum, acc)
		}
		applySigmoidFloat(gates)
		if crb != nil {
			// Reset after the product: c = Wx·x + cb + r⊙(Wh·h + crb).
			if !hZero {
				hybridProductAcc(hx, hy.ch, U, U, qh, B, sfh, hy.cScale, 1, zph, hy.chSum, acc)
			}
			for b := 0; b < B; b++ {
				r := gates[b*2*U : b*2*U+U]
				o := ot[b*U : (b+1)*U]
				for j, v := range hx[b*U : (b+1)*U] {
					o[j] += float32(r[j] * v)
				}
			}
		} else {
			// The candidate reads r⊙h, quantised on its own.
			for b := 0; b < B; b++ {
				r := gates[b*2*U : b*2*U+U]
				for j, hv := range h[b*U : (b+1)*U] {
					hx[b*U+j] = hv * r[j]
				}
			}
			if !isZeroFloat(hx) {
				batchQuantizeFloats(hx, B, U, qh, sfh, zph, true)
				hybridProductAcc(ot, hy.ch, U, U, qh, B, sfh, hy.cScale, 1, zph, hy.chSum, acc)
			}
		}
		gruUpdate(ot, gates, h, B, U, 2*U)
	}
	copy(n.Outputs[1].Float32s()[:k.stateElems], h)
	return nil
}

// gruUpdate applies c = tanh(candidate) in place in ot and the state
// update h = (1 − u)⊙c + u⊙h (each product rounded to float32), with the
// update gate u at offset U of each batch row's actRow gate values; ot
// and h end up holding the new state.
func gruUpdate(ot, act, h []float32, B, U, actRow int) {
	arch.Tanh(ot, ot)
	for b := 0; b < B; b++ {
		upd := act[b*actRow+U : b*actRow+2*U]
		o := ot[b*U : b*U+U]
		hb := h[b*U : b*U+U]
		for i, c := range o {
			uv := upd[i]
			o[i] = float32((1-uv)*c) + float32(uv*hb[i])
		}
		copy(hb, o)
	}
}
