package fused

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// This file validates an LSTM direction's inputs the way TFLite's
// CheckInputTensorDimensions and Prepare do (unidirectional_sequence_lstm.cc,
// lstm.cc, bidirectional_sequence_lstm.cc), plus the checks TFLite leaves
// out where it would then read or write outside its buffers or silently
// compute garbage.

// checkLSTMWeights checks presence, ranks and sizes of one direction's
// weights against cfg.nInput and derives n_cell, n_output and which
// optional parts (CIFG, peephole, projection, layer norm, diagonal
// recurrent weights) it uses. allowDiag admits rank-1 recurrent weights
// (UNIDIRECTIONAL_SEQUENCE_LSTM only).
func checkLSTMWeights(t *lstmTensors, r *lstmRoles, cfg *lstmConfig, allowDiag bool) error {
	required := func(x *ops.Tensor, role int) error {
		if x == nil {
			return fmt.Errorf("%s is required but omitted", r.name(role))
		}
		return nil
	}
	shape := func(x *ops.Tensor, role int, dims ...int) error {
		if !ops.SameShape(x.Shape, dims) {
			return fmt.Errorf("%s has shape %v, needs %v", r.name(role), x.Shape, dims)
		}
		return nil
	}
	iow := t.inputToGate[gateOutput]
	if err := required(iow, lstmInputToOutputWeights); err != nil {
		return err
	}
	if iow.Rank() != 2 || iow.Dim(1) != cfg.nInput {
		return fmt.Errorf("%s has shape %v, needs [n_cell, %d]", r.name(lstmInputToOutputWeights), iow.Shape, cfg.nInput)
	}
	cfg.nCell = iow.Dim(0)
	row := t.recurrentToGate[gateOutput]
	if err := required(row, lstmRecurrentToOutputWeights); err != nil {
		return err
	}
	switch {
	case row.Rank() == 1 && allowDiag:
		cfg.nOutput = row.Dim(0)
	case row.Rank() == 2:
		cfg.nOutput = row.Dim(1)
	case allowDiag:
		return fmt.Errorf("%s has shape %v, needs [n_cell, n_output] or [n_cell]", r.name(lstmRecurrentToOutputWeights), row.Shape)
	default:
		return fmt.Errorf("%s has shape %v, needs [n_cell, n_output]", r.name(lstmRecurrentToOutputWeights), row.Shape)
	}
	nCell, nInput, nOutput := cfg.nCell, cfg.nInput, cfg.nOutput

	cfg.cifg = t.inputToGate[gateInput] == nil
	if (t.recurrentToGate[gateInput] == nil) != cfg.cifg {
		return fmt.Errorf("%s and %s must be both given or both omitted (CIFG)",
			r.name(lstmInputToInputWeights), r.name(lstmRecurrentToInputWeights))
	}
	for g := 0; g < numGates; g++ {
		if g == gateInput && cfg.cifg {
			continue
		}
		if err := required(t.inputToGate[g], inputToGateIndex[g]); err != nil {
			return err
		}
		if err := shape(t.inputToGate[g], inputToGateIndex[g], nCell, nInput); err != nil {
			return err
		}
		rg := t.recurrentToGate[g]
		if err := required(rg, recurrentToGateIndex[g]); err != nil {
			return err
		}
		if rg.Rank() == 1 && allowDiag {
			cfg.recurrentDiag[g] = true
			if err := shape(rg, recurrentToGateIndex[g], nCell); err != nil {
				return err
			}
			if nOutput != nCell {
				return fmt.Errorf("%s is diagonal, which needs n_output (%d) = n_cell (%d)", r.name(recurrentToGateIndex[g]), nOutput, nCell)
			}
		} else if err := shape(rg, recurrentToGateIndex[g], nCell, nOutput); err != nil {
			return err
		}
	}

	// Peephole weights: all or none (the input gate's may be absent with
	// CIFG, where it is unused).
	ci, cf, co := t.cellToGate[gateInput], t.cellToGate[gateForget], t.cellToGate[gateOutput]
	for _, g := range []int{gateInput, gateForget, gateOutput} {
		if x := t.cellToGate[g]; x != nil {
			if err := shape(x, cellToGateIndex[g], nCell); err != nil {
				return err
			}
		}
	}
	all := (ci != nil || cfg.cifg) && cf != nil && co != nil
	none := ci == nil && cf == nil && co == nil
	if !all && !none {
		return fmt.Errorf("peephole weights (%s, %s, %s) must be all given or all omitted (the input gate's may be omitted with CIFG)",
			r.name(lstmCellToInputWeights), r.name(lstmCellToForgetWeights), r.name(lstmCellToOutputWeights))
	}
	cfg.peephole = co != nil
	if cfg.cifg && ci != nil {
		// TFLite accepts and ignores it; so does tflrun.
		t.cellToGate[gateInput] = nil
	}

	if cfg.cifg && t.gateBias[gateInput] != nil {
		return fmt.Errorf("%s must be omitted with CIFG", r.name(lstmInputGateBias))
	}
	for g := 0; g < numGates; g++ {
		if g == gateInput && cfg.cifg {
			continue
		}
		if err := required(t.gateBias[g], gateBiasIndex[g]); err != nil {
			return err
		}
		if err := shape(t.gateBias[g], gateBiasIndex[g], nCell); err != nil {
			return err
		}
	}

	if t.projWeights != nil {
		if err := shape(t.projWeights, lstmProjectionWeights, nOutput, nCell); err != nil {
			return err
		}
	}
	if t.projBias != nil {
		if t.projWeights == nil {
			return fmt.Errorf("%s needs %s", r.name(lstmProjectionBias), r.name(lstmProjectionWeights))
		}
		if err := shape(t.projBias, lstmProjectionBias, nOutput); err != nil {
			return err
		}
	}
	cfg.projection = t.projWeights != nil
	if !cfg.projection && nOutput != nCell {
		return fmt.Errorf("n_output %d (from %s) differs from n_cell %d without projection weights",
			nOutput, r.name(lstmRecurrentToOutputWeights), nCell)
	}

	// Layer norm is on when the forget gate's coefficients are given (as in
	// TFLite); then every used gate needs them.
	cfg.layerNorm = t.layerNorm[gateForget] != nil
	for g := 0; g < numGates; g++ {
		ln := t.layerNorm[g]
		switch {
		case !cfg.layerNorm && ln != nil:
			return fmt.Errorf("%s is given without %s", r.name(layerNormIndex[g]), r.name(lstmForgetLayerNormCoefficients))
		case cfg.layerNorm && g == gateInput && cfg.cifg:
			if ln != nil {
				return fmt.Errorf("%s must be omitted with CIFG", r.name(layerNormIndex[g]))
			}
		case cfg.layerNorm:
			if err := required(ln, layerNormIndex[g]); err != nil {
				return err
			}
			if err := shape(ln, layerNormIndex[g], nCell); err != nil {
				return err
			}
		}
	}
	return nil
}

// prepareStateTensor checks a state input — present, a variable tensor —
// and gives it nBatch·n elements. A state whose element count already
// matches keeps its shape (TFLite accepts any shape of the right size); one
// that does not, but whose innermost dimension is n (a [batch, n] state
// after the input's batch was resized), is re-shaped to [nBatch, n] (or
// [nBatch·n] for rank 1), so AllocateTensors sizes it for the new batch.
// Anything else is an error naming the tensor.
func prepareStateTensor(x *ops.Tensor, name string, nBatch, n int) error {
	if x == nil {
		return fmt.Errorf("%s is required but omitted", name)
	}
	if x.Kind != ops.VariableTensor {
		return fmt.Errorf("%s is not a variable tensor (LSTM state must persist across invokes)", name)
	}
	want := nBatch * n
	if x.NumElements() == want {
		return nil
	}
	switch {
	case x.Rank() == 2 && x.Dim(1) == n:
		x.Shape = []int{nBatch, n}
	case x.Rank() == 1 && n > 0 && x.Dim(0)%n == 0:
		x.Shape = []int{want}
	default:
		return fmt.Errorf("%s has %d elements %v, needs %d (n_batch %d × %d)", name, x.NumElements(), x.Shape, want, nBatch, n)
	}
	return nil
}

// lstmTypes is the element type each input role must have on one path.
type lstmTypes struct {
	path                   lstmPath
	input, weights         ops.DataType
	diag                   ops.DataType // diagonal recurrent weights
	peephole, bias         ops.DataType
	layerNorm              ops.DataType
	projWeights, projBias  ops.DataType
	outputState, cellState ops.DataType
}

var (
	lstmFloatTypes = lstmTypes{path: lstmPathFloat, input: ops.Float32, weights: ops.Float32, diag: ops.Float32,
		peephole: ops.Float32, bias: ops.Float32, layerNorm: ops.Float32,
		projWeights: ops.Float32, projBias: ops.Float32,
		outputState: ops.Float32, cellState: ops.Float32}
	// The hybrid path: TFLite reads diagonal recurrent weights as float32
	// even though the other weights are int8.
	lstmHybridTypes = lstmTypes{path: lstmPathHybrid, input: ops.Float32, weights: ops.Int8, diag: ops.Float32,
		peephole: ops.Int8, bias: ops.Float32, layerNorm: ops.Float32,
		projWeights: ops.Int8, projBias: ops.Float32,
		outputState: ops.Float32, cellState: ops.Float32}
	lstmIntegerTypes = lstmTypes{path: lstmPathInteger, input: ops.Int8, weights: ops.Int8, diag: ops.Int8,
		peephole: ops.Int16, bias: ops.Int32, layerNorm: ops.Int16,
		projWeights: ops.Int8, projBias: ops.Int32,
		outputState: ops.Int8, cellState: ops.Int16}
)

// checkLSTMTypes checks every present input of a direction against the
// path's types (the input and states only when checkIO is set; a
// bidirectional kernel checks its shared input itself).
func checkLSTMTypes(t *lstmTensors, r *lstmRoles, cfg *lstmConfig, want lstmTypes, checkIO bool) error {
	check := func(x *ops.Tensor, role int, typ ops.DataType) error {
		if x == nil || x.Type == typ {
			return nil
		}
		return fmt.Errorf("%s is %s, the %s path needs %s", r.name(role), x.Type, want.path, typ)
	}
	if checkIO {
		if err := check(t.input, lstmInputTensor, want.input); err != nil {
			return err
		}
	}
	for g := 0; g < numGates; g++ {
		if err := check(t.inputToGate[g], inputToGateIndex[g], want.weights); err != nil {
			return err
		}
		rt := want.weights
		if cfg.recurrentDiag[g] {
			rt = want.diag
		}
		if err := check(t.recurrentToGate[g], recurrentToGateIndex[g], rt); err != nil {
			return err
		}
		if g != gateCell {
			if err := check(t.cellToGate[g], cellToGateIndex[g], want.peephole); err != nil {
				return err
			}
		}
		if err := check(t.gateBias[g], gateBiasIndex[g], want.bias); err != nil {
			return err
		}
		if cfg.layerNorm {
			if err := check(t.layerNorm[g], layerNormIndex[g], want.layerNorm); err != nil {
				return err
			}
		}
	}
	if err := check(t.projWeights, lstmProjectionWeights, want.projWeights); err != nil {
		return err
	}
	if err := check(t.projBias, lstmProjectionBias, want.projBias); err != nil {
		return err
	}
	if !checkIO {
		return nil
	}
	if err := check(t.outputState, lstmOutputState, want.outputState); err != nil {
		return err
	}
	return check(t.cellState, lstmCellState, want.cellState)
}

// checkHybridWeightQuant checks that an int8 weight of the hybrid path is
// quantised symmetrically per tensor with a positive finite scale. TFLite's
// hybrid LSTM reads only tensor->params.scale, which is 0 for a per-channel
// tensor, and ignores the zero point, so either would silently give wrong
// outputs there; here they are errors.
func checkHybridWeightQuant(x *ops.Tensor, name string) error {
	q := x.Quant
	if q == nil || len(q.Scale) == 0 {
		return fmt.Errorf("%s is int8 but not quantised (the hybrid LSTM needs a weight scale)", name)
	}
	if len(q.Scale) != 1 {
		return fmt.Errorf("%s has %d scales (per-channel); TFLite's hybrid LSTM uses one per-tensor scale", name, len(q.Scale))
	}
	if s := q.Scale[0]; !(s > 0) || math.IsInf(float64(s), 0) {
		return fmt.Errorf("%s has scale %g, needs a positive finite scale", name, s)
	}
	if len(q.ZeroPoint) > 0 && q.ZeroPoint[0] != 0 {
		return fmt.Errorf("%s has zero point %d; the hybrid LSTM needs symmetric (zero point 0) weights", name, q.ZeroPoint[0])
	}
	return nil
}

// checkHybridQuant applies checkHybridWeightQuant to every int8 weight of
// a hybrid direction (and its auxiliary weights).
func checkHybridQuant(t *lstmTensors, r *lstmRoles, cfg *lstmConfig, aux *lstmAuxTensors) error {
	for g := 0; g < numGates; g++ {
		if x := t.inputToGate[g]; x != nil {
			if err := checkHybridWeightQuant(x, r.name(inputToGateIndex[g])); err != nil {
				return err
			}
		}
		if x := t.recurrentToGate[g]; x != nil && !cfg.recurrentDiag[g] {
			if err := checkHybridWeightQuant(x, r.name(recurrentToGateIndex[g])); err != nil {
				return err
			}
		}
		if x := t.cellToGate[g]; x != nil && g != gateCell {
			if err := checkHybridWeightQuant(x, r.name(cellToGateIndex[g])); err != nil {
				return err
			}
		}
		if aux != nil {
			if x := aux.weights[g]; x != nil {
				if err := checkHybridWeightQuant(x, aux.names[g]); err != nil {
					return err
				}
			}
		}
	}
	if t.projWeights != nil {
		return checkHybridWeightQuant(t.projWeights, r.name(lstmProjectionWeights))
	}
	return nil
}

// choosePath picks the arithmetic from the input and weight types, as
// TFLite's kernels dispatch on them, or explains why none applies.
func choosePath(input, weights *ops.Tensor, inputName string, weightsName string, integerOK bool) (lstmPath, error) {
	switch {
	case input.Type == ops.Float32 && weights.Type == ops.Float32:
		return lstmPathFloat, nil
	case input.Type == ops.Float32 && weights.Type == ops.Int8:
		return lstmPathHybrid, nil
	case input.Type == ops.Float32 && weights.Type == ops.Uint8:
		return 0, fmt.Errorf("%s is uint8: TFLite's hybrid LSTM reads uint8 weights as int8; only int8 weights are supported", weightsName)
	case input.Type == ops.Float32:
		return 0, fmt.Errorf("%s is %s; with float32 input the weights must be float32 or int8", weightsName, weights.Type)
	case input.Type == ops.Int8 && integerOK:
		return lstmPathInteger, nil
	case input.Type == ops.Int16:
		return 0, fmt.Errorf("%s is int16: int16 activations (16x8, UNIDIRECTIONAL_SEQUENCE_LSTM version 5) are not supported; TFLite registers no such kernel", inputName)
	case input.Type == ops.Int8:
		return 0, fmt.Errorf("%s is int8: this operator has no integer kernel in TFLite (float32 or hybrid only)", inputName)
	}
	if integerOK {
		return 0, fmt.Errorf("%s is %s, needs float32 or int8", inputName, input.Type)
	}
	return 0, fmt.Errorf("%s is %s, needs float32", inputName, input.Type)
}
