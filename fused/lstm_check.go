package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// This file validates an LSTM node's inputs the way TFLite's
// CheckInputTensorDimensions and Prepare do (unidirectional_sequence_lstm.cc),
// plus the checks TFLite leaves out where it would then read or write
// outside its buffers.

// checkLSTMShapes checks presence, ranks and sizes of all inputs and
// derives the sizes and which optional parts (CIFG, peephole, projection,
// layer norm, diagonal recurrent weights) the LSTM uses.
func checkLSTMShapes(t *lstmTensors, timeMajor bool) (lstmConfig, error) {
	var cfg lstmConfig
	required := func(x *ops.Tensor, idx int) error {
		if x == nil {
			return fmt.Errorf("%s is required but omitted", lstmInputName(idx))
		}
		return nil
	}
	if err := required(t.input, lstmInputTensor); err != nil {
		return cfg, err
	}
	if t.input.Rank() != 3 {
		return cfg, fmt.Errorf("%s has shape %v, needs rank 3", lstmInputName(lstmInputTensor), t.input.Shape)
	}
	cfg.timeMajor = timeMajor
	if timeMajor {
		cfg.maxTime, cfg.nBatch = t.input.Dim(0), t.input.Dim(1)
	} else {
		cfg.nBatch, cfg.maxTime = t.input.Dim(0), t.input.Dim(1)
	}
	cfg.nInput = t.input.Dim(2)

	iow := t.inputToGate[gateOutput]
	if err := required(iow, lstmInputToOutputWeights); err != nil {
		return cfg, err
	}
	if iow.Rank() != 2 || iow.Dim(1) != cfg.nInput {
		return cfg, fmt.Errorf("%s has shape %v, needs [n_cell, %d]", lstmInputName(lstmInputToOutputWeights), iow.Shape, cfg.nInput)
	}
	cfg.nCell = iow.Dim(0)
	row := t.recurrentToGate[gateOutput]
	if err := required(row, lstmRecurrentToOutputWeights); err != nil {
		return cfg, err
	}
	switch row.Rank() {
	case 1:
		cfg.nOutput = row.Dim(0)
	case 2:
		cfg.nOutput = row.Dim(1)
	default:
		return cfg, fmt.Errorf("%s has shape %v, needs [n_cell, n_output] or [n_cell]", lstmInputName(lstmRecurrentToOutputWeights), row.Shape)
	}
	nCell, nInput, nOutput := cfg.nCell, cfg.nInput, cfg.nOutput

	cfg.cifg = t.inputToGate[gateInput] == nil
	if (t.recurrentToGate[gateInput] == nil) != cfg.cifg {
		return cfg, fmt.Errorf("%s and %s must be both given or both omitted (CIFG)",
			lstmInputName(lstmInputToInputWeights), lstmInputName(lstmRecurrentToInputWeights))
	}
	for g := 0; g < numGates; g++ {
		if g == gateInput && cfg.cifg {
			continue
		}
		if err := required(t.inputToGate[g], inputToGateIndex[g]); err != nil {
			return cfg, err
		}
		if err := checkShape(t.inputToGate[g], inputToGateIndex[g], nCell, nInput); err != nil {
			return cfg, err
		}
		r := t.recurrentToGate[g]
		if err := required(r, recurrentToGateIndex[g]); err != nil {
			return cfg, err
		}
		if r.Rank() == 1 {
			cfg.recurrentDiag[g] = true
			if err := checkShape(r, recurrentToGateIndex[g], nCell); err != nil {
				return cfg, err
			}
			if nOutput != nCell {
				return cfg, fmt.Errorf("%s is diagonal, which needs n_output (%d) = n_cell (%d)", lstmInputName(recurrentToGateIndex[g]), nOutput, nCell)
			}
		} else if err := checkShape(r, recurrentToGateIndex[g], nCell, nOutput); err != nil {
			return cfg, err
		}
	}

	// Peephole weights: all or none (the input gate's may be absent with
	// CIFG, where it is unused).
	ci, cf, co := t.cellToGate[gateInput], t.cellToGate[gateForget], t.cellToGate[gateOutput]
	for _, g := range []int{gateInput, gateForget, gateOutput} {
		if x := t.cellToGate[g]; x != nil {
			if err := checkShape(x, cellToGateIndex[g], nCell); err != nil {
				return cfg, err
			}
		}
	}
	all := (ci != nil || cfg.cifg) && cf != nil && co != nil
	none := ci == nil && cf == nil && co == nil
	if !all && !none {
		return cfg, fmt.Errorf("peephole weights (inputs 9-11) must be all given or all omitted (input 9 may be omitted with CIFG)")
	}
	cfg.peephole = co != nil

	if cfg.cifg {
		if t.gateBias[gateInput] != nil {
			return cfg, fmt.Errorf("%s must be omitted with CIFG", lstmInputName(lstmInputGateBias))
		}
	}
	for g := 0; g < numGates; g++ {
		if g == gateInput && cfg.cifg {
			continue
		}
		if err := required(t.gateBias[g], gateBiasIndex[g]); err != nil {
			return cfg, err
		}
		if err := checkShape(t.gateBias[g], gateBiasIndex[g], nCell); err != nil {
			return cfg, err
		}
	}

	if t.projWeights != nil {
		if err := checkShape(t.projWeights, lstmProjectionWeights, nOutput, nCell); err != nil {
			return cfg, err
		}
	}
	if t.projBias != nil {
		if t.projWeights == nil {
			return cfg, fmt.Errorf("%s needs %s", lstmInputName(lstmProjectionBias), lstmInputName(lstmProjectionWeights))
		}
		if err := checkShape(t.projBias, lstmProjectionBias, nOutput); err != nil {
			return cfg, err
		}
	}
	cfg.projection = t.projWeights != nil
	if !cfg.projection && nOutput != nCell {
		return cfg, fmt.Errorf("n_output %d differs from n_cell %d without projection weights", nOutput, nCell)
	}

	// Layer norm is on when the forget gate's coefficients are given (as in
	// TFLite); then every used gate needs them.
	cfg.layerNorm = t.layerNorm[gateForget] != nil
	for g := 0; g < numGates; g++ {
		ln := t.layerNorm[g]
		switch {
		case !cfg.layerNorm && ln != nil:
			return cfg, fmt.Errorf("%s is given without %s", lstmInputName(layerNormIndex[g]), lstmInputName(lstmForgetLayerNormCoefficients))
		case cfg.layerNorm && g == gateInput && cfg.cifg:
			if ln != nil {
				return cfg, fmt.Errorf("%s must be omitted with CIFG", lstmInputName(layerNormIndex[g]))
			}
		case cfg.layerNorm:
			if err := required(ln, layerNormIndex[g]); err != nil {
				return cfg, err
			}
			if err := checkShape(ln, layerNormIndex[g], nCell); err != nil {
				return cfg, err
			}
		}
	}
	return cfg, nil
}

// checkStateTensors checks that the two state inputs are variable tensors
// with n_batch·n_output and n_batch·n_cell elements (any shape, as TFLite).
func checkStateTensors(t *lstmTensors, cfg *lstmConfig) error {
	states := [...]struct {
		x     *ops.Tensor
		idx   int
		elems int
	}{
		{t.outputState, lstmOutputState, cfg.nBatch * cfg.nOutput},
		{t.cellState, lstmCellState, cfg.nBatch * cfg.nCell},
	}
	for _, s := range states {
		if s.x == nil {
			return fmt.Errorf("%s is required but omitted", lstmInputName(s.idx))
		}
		if s.x.Kind != ops.VariableTensor {
			return fmt.Errorf("%s is not a variable tensor", lstmInputName(s.idx))
		}
		if s.x.NumElements() != s.elems {
			return fmt.Errorf("%s has %d elements %v, needs %d", lstmInputName(s.idx), s.x.NumElements(), s.x.Shape, s.elems)
		}
	}
	return nil
}

// lstmTypes is the element type each input role must have on one path.
type lstmTypes struct {
	path                   string
	input, weights         ops.DataType
	peephole, bias         ops.DataType
	layerNorm              ops.DataType
	projWeights, projBias  ops.DataType
	outputState, cellState ops.DataType
}

var (
	lstmFloatTypes = lstmTypes{path: "float", input: ops.Float32, weights: ops.Float32,
		peephole: ops.Float32, bias: ops.Float32, layerNorm: ops.Float32,
		projWeights: ops.Float32, projBias: ops.Float32,
		outputState: ops.Float32, cellState: ops.Float32}
	lstmIntegerTypes = lstmTypes{path: "integer (int8x8_16)", input: ops.Int8, weights: ops.Int8,
		peephole: ops.Int16, bias: ops.Int32, layerNorm: ops.Int16,
		projWeights: ops.Int8, projBias: ops.Int32,
		outputState: ops.Int8, cellState: ops.Int16}
)

// checkLSTMTypes checks every present input against the path's types.
func checkLSTMTypes(t *lstmTensors, cfg *lstmConfig, want lstmTypes) error {
	check := func(x *ops.Tensor, idx int, typ ops.DataType) error {
		if x == nil {
			return nil
		}
		return checkType(x, idx, typ, want.path)
	}
	if err := check(t.input, lstmInputTensor, want.input); err != nil {
		return err
	}
	for g := 0; g < numGates; g++ {
		if err := check(t.inputToGate[g], inputToGateIndex[g], want.weights); err != nil {
			return err
		}
		if err := check(t.recurrentToGate[g], recurrentToGateIndex[g], want.weights); err != nil {
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
	if err := check(t.outputState, lstmOutputState, want.outputState); err != nil {
		return err
	}
	return check(t.cellState, lstmCellState, want.cellState)
}
