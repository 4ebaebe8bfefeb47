package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Input tensor indices of the full LSTM family (TFLite's lstm_shared.h,
// namespace lstm::full), shared by LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and
// each direction of BIDIRECTIONAL_SEQUENCE_LSTM.
const (
	lstmInputTensor = 0

	// Input weights [n_cell, n_input]; input_to_input is omitted for CIFG.
	lstmInputToInputWeights  = 1
	lstmInputToForgetWeights = 2
	lstmInputToCellWeights   = 3
	lstmInputToOutputWeights = 4

	// Recurrent weights [n_cell, n_output] (or diagonal [n_cell]);
	// recurrent_to_input is omitted for CIFG.
	lstmRecurrentToInputWeights  = 5
	lstmRecurrentToForgetWeights = 6
	lstmRecurrentToCellWeights   = 7
	lstmRecurrentToOutputWeights = 8

	// Peephole weights [n_cell], optional.
	lstmCellToInputWeights  = 9
	lstmCellToForgetWeights = 10
	lstmCellToOutputWeights = 11

	// Gate biases [n_cell]; the input gate bias is omitted for CIFG.
	lstmInputGateBias  = 12
	lstmForgetGateBias = 13
	lstmCellGateBias   = 14
	lstmOutputGateBias = 15

	// Projection weights [n_output, n_cell] and bias [n_output], optional.
	lstmProjectionWeights = 16
	lstmProjectionBias    = 17

	// State: variable tensors of n_batch*n_output and n_batch*n_cell
	// elements.
	lstmOutputState = 18
	lstmCellState   = 19

	// Layer-norm coefficients [n_cell], optional (inputs 20..23 exist only
	// in the 24-input form).
	lstmInputLayerNormCoefficients  = 20
	lstmForgetLayerNormCoefficients = 21
	lstmCellLayerNormCoefficients   = 22
	lstmOutputLayerNormCoefficients = 23

	lstmFullInputCount   = 24
	lstmLegacyInputCount = 20 // the deprecated form without layer norm
)

// lstmInputNames names the inputs in error messages, as TFLite's schema
// comments do.
var lstmInputNames = [lstmFullInputCount]string{
	"input",
	"input_to_input_weights", "input_to_forget_weights",
	"input_to_cell_weights", "input_to_output_weights",
	"recurrent_to_input_weights", "recurrent_to_forget_weights",
	"recurrent_to_cell_weights", "recurrent_to_output_weights",
	"cell_to_input_weights", "cell_to_forget_weights", "cell_to_output_weights",
	"input_gate_bias", "forget_gate_bias", "cell_gate_bias", "output_gate_bias",
	"projection_weights", "projection_bias",
	"output_state", "cell_state",
	"input_layer_norm_coefficients", "forget_layer_norm_coefficients",
	"cell_layer_norm_coefficients", "output_layer_norm_coefficients",
}

// Gate numbering, TFLite's order: input, forget, cell, output.
const (
	gateInput  = 0
	gateForget = 1
	gateCell   = 2
	gateOutput = 3
	numGates   = 4
)

var gateNames = [numGates]string{"input", "forget", "cell", "output"}

// lstmTensors is the LSTM's inputs grouped by role and gate, nil where an
// optional input is omitted (the gate slots of the peephole weights are
// nil for the cell gate, which has none).
type lstmTensors struct {
	input           *ops.Tensor
	inputToGate     [numGates]*ops.Tensor
	recurrentToGate [numGates]*ops.Tensor
	cellToGate      [numGates]*ops.Tensor
	gateBias        [numGates]*ops.Tensor
	layerNorm       [numGates]*ops.Tensor
	projWeights     *ops.Tensor
	projBias        *ops.Tensor
	outputState     *ops.Tensor
	cellState       *ops.Tensor
}

// lstmRoles maps the roles of the 24-input layout (the lstm* constants
// above) to a node's input indices, for gathering the tensors and naming
// them in errors. A bidirectional kernel has one mapping per direction.
type lstmRoles struct {
	// index[role] is the node input index, -1 where the operator has no
	// such input (layer norm in BIDIRECTIONAL_SEQUENCE_LSTM).
	index [lstmFullInputCount]int
	// prefix is prepended to the role names ("fw_", "bw_").
	prefix string
}

// identityRoles is the mapping of LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM
// with count (20 or 24) inputs.
func identityRoles(count int) *lstmRoles {
	r := &lstmRoles{}
	for i := range r.index {
		r.index[i] = i
		if i >= count {
			r.index[i] = -1
		}
	}
	return r
}

// name is "input 18 (output_state)", the form errors use.
func (r *lstmRoles) name(role int) string {
	return fmt.Sprintf("input %d (%s%s)", r.index[role], r.prefix, lstmInputNames[role])
}

// gatherLSTMTensors picks one direction's LSTM inputs of a node by role.
func gatherLSTMTensors(n *ops.Node, r *lstmRoles) lstmTensors {
	in := func(role int) *ops.Tensor {
		if r.index[role] < 0 {
			return nil
		}
		return n.Input(r.index[role])
	}
	return lstmTensors{
		input: in(lstmInputTensor),
		inputToGate: [numGates]*ops.Tensor{in(lstmInputToInputWeights), in(lstmInputToForgetWeights),
			in(lstmInputToCellWeights), in(lstmInputToOutputWeights)},
		recurrentToGate: [numGates]*ops.Tensor{in(lstmRecurrentToInputWeights), in(lstmRecurrentToForgetWeights),
			in(lstmRecurrentToCellWeights), in(lstmRecurrentToOutputWeights)},
		cellToGate: [numGates]*ops.Tensor{in(lstmCellToInputWeights), in(lstmCellToForgetWeights),
			nil, in(lstmCellToOutputWeights)},
		gateBias: [numGates]*ops.Tensor{in(lstmInputGateBias), in(lstmForgetGateBias),
			in(lstmCellGateBias), in(lstmOutputGateBias)},
		layerNorm: [numGates]*ops.Tensor{in(lstmInputLayerNormCoefficients), in(lstmForgetLayerNormCoefficients),
			in(lstmCellLayerNormCoefficients), in(lstmOutputLayerNormCoefficients)},
		projWeights: in(lstmProjectionWeights),
		projBias:    in(lstmProjectionBias),
		outputState: in(lstmOutputState),
		cellState:   in(lstmCellState),
	}
}

// lstmInputName is "input 18 (output_state)" for the LSTM and
// UNIDIRECTIONAL_SEQUENCE_LSTM layout, where role and index agree.
func lstmInputName(i int) string {
	return fmt.Sprintf("input %d (%s)", i, lstmInputNames[i])
}

// The input index of each gate's tensors, for error messages.
var (
	inputToGateIndex     = [numGates]int{lstmInputToInputWeights, lstmInputToForgetWeights, lstmInputToCellWeights, lstmInputToOutputWeights}
	recurrentToGateIndex = [numGates]int{lstmRecurrentToInputWeights, lstmRecurrentToForgetWeights, lstmRecurrentToCellWeights, lstmRecurrentToOutputWeights}
	cellToGateIndex      = [numGates]int{lstmCellToInputWeights, lstmCellToForgetWeights, -1, lstmCellToOutputWeights}
	gateBiasIndex        = [numGates]int{lstmInputGateBias, lstmForgetGateBias, lstmCellGateBias, lstmOutputGateBias}
	layerNormIndex       = [numGates]int{lstmInputLayerNormCoefficients, lstmForgetLayerNormCoefficients, lstmCellLayerNormCoefficients, lstmOutputLayerNormCoefficients}
)

// perTensorScale returns t's single quantisation scale, or an error when t
// is not quantised per tensor with a positive finite scale (TFLite's
// integer LSTM reads only the per-tensor scale).
func perTensorScale(t *ops.Tensor, what string) (float32, error) {
	q := t.Quant
	if q == nil || len(q.Scale) == 0 {
		return 0, fmt.Errorf("%s is not quantised", what)
	}
	if len(q.Scale) != 1 {
		return 0, fmt.Errorf("%s has %d scales (per-channel); the LSTM needs one per-tensor scale", what, len(q.Scale))
	}
	s := q.Scale[0]
	if !(s > 0) || s > 3.4e38 {
		return 0, fmt.Errorf("%s has scale %g, needs a positive finite scale", what, s)
	}
	return s, nil
}
