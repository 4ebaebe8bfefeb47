package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// UnidirectionalSequenceLSTM is the kernel of TFLite's
// UNIDIRECTIONAL_SEQUENCE_LSTM (unidirectional_sequence_lstm.cc and
// lstm_eval.cc), versions 1 to 4.
//
// Inputs (TFLite's lstm::full numbering, 20 or 24 of them): 0 the input
// [max_time, n_batch, n_input] when time_major, else [n_batch, max_time,
// n_input]; 1–4 input-to-gate weights [n_cell, n_input] for the input,
// forget, cell and output gates (1 omitted for CIFG); 5–8 recurrent weights
// [n_cell, n_output] (5 omitted for CIFG; the float path also takes
// diagonal [n_cell] weights, version 4); 9–11 optional peephole weights
// [n_cell]; 12–15 gate biases [n_cell] (12 omitted for CIFG); 16 optional
// projection weights [n_output, n_cell] and 17 bias [n_output]; 18 the
// output state and 19 the cell state, variable tensors of n_batch·n_output
// and n_batch·n_cell elements, read and updated by every Eval; 20–23
// optional layer-norm coefficients [n_cell] (present for all used gates or
// none; 20 omitted for CIFG). Output 0 has the input's shape with the last
// dimension n_output. Options come as *ops.UnidirectionalSequenceLSTMOptions
// (nil means all defaults).
//
// Paths:
//   - float32: everything float32 (TFLite's EvalFloat), CIFG, peephole,
//     projection with or without bias, layer norm, cell and projection
//     clipping, diagonal recurrent weights; the cell-gate and cell-output
//     activation is the option's (RELU, RELU_N1_TO_1, RELU6, TANH,
//     SIGN_BIT; NONE is refused because TFLite leaves its gate buffer
//     unwritten then).
//   - int8x8_16 full integer (TFLite's EvalInteger8x8_16): int8 input,
//     weights, output state and output; int16 cell state (scale 2^-15 to
//     2^-9), peephole and layer-norm weights; int32 biases; exactly 5
//     intermediate tensors (gate pre-activation scales for layer norm, and
//     the hidden state). The activation option is ignored (always tanh),
//     and without projection the output uses intermediate 4's scale and
//     zero point, as in TFLite.
//
// Diagonal recurrent weights are recognised by their rank, as TFLite does;
// the DiagonalRecurrentTensors option is not consulted. The hybrid path
// (float32 input with int8 weights) and int16 activations are refused at
// Prepare with an error, as are configurations in which TFLite would read
// or write outside its buffers (see Prepare).
type UnidirectionalSequenceLSTM struct {
	prepared bool
	cfg      lstmConfig
	integer  bool
	params   *lstmIntegerParams
	// Scratch buffer ids: the gate buffers (float32 or int16), and for the
	// integer path the int8 hidden buffer and the int32 accumulator.
	scratchGates              [numGates]int
	scratchHidden, scratchAcc int
	// need holds the byte sizes Eval checks its tensors' data against.
	need [lstmFullInputCount]int
}

// NewUnidirectionalSequenceLSTM returns a kernel for one
// UNIDIRECTIONAL_SEQUENCE_LSTM node.
func NewUnidirectionalSequenceLSTM() ops.Kernel { return &UnidirectionalSequenceLSTM{} }

// Prepare validates the node as TFLite's Prepare does (tensor counts,
// ranks, sizes and types of all 24 inputs, state tensors being variables),
// sets the output shape, derives the integer parameters and requests
// scratch. Beyond TFLite it refuses, with an error naming the input:
// rank other than 3, hybrid weights, int16 activations, activation NONE
// in the float path, n_output ≠ n_cell without projection, diagonal
// recurrent weights with n_output ≠ n_cell or in the integer path, the
// integer peephole with n_output > n_cell, layer-norm coefficients given
// for only some gates, per-channel or missing quantisation, a cell-state
// scale that is not a power of two in 2^-15..2^-9, and non-constant
// weights or biases that the integer path precomputes from.
func (k *UnidirectionalSequenceLSTM) Prepare(n *ops.Node) error {
	*k = UnidirectionalSequenceLSTM{}
	if len(n.Inputs) != lstmFullInputCount && len(n.Inputs) != lstmLegacyInputCount {
		return fmt.Errorf("has %d inputs, needs %d (or the legacy %d)", len(n.Inputs), lstmFullInputCount, lstmLegacyInputCount)
	}
	if len(n.Outputs) != 1 {
		return fmt.Errorf("has %d outputs, needs 1", len(n.Outputs))
	}
	opts := &ops.UnidirectionalSequenceLSTMOptions{}
	if n.Options != nil {
		o, ok := n.Options.(*ops.UnidirectionalSequenceLSTMOptions)
		if !ok {
			return fmt.Errorf("options are %T, need *ops.UnidirectionalSequenceLSTMOptions", n.Options)
		}
		opts = o
	}
	t := gatherLSTMTensors(n)
	cfg, err := checkLSTMShapes(&t, opts.TimeMajor)
	if err != nil {
		return err
	}
	cfg.activation = opts.Activation
	cfg.cellClip, cfg.projClip = opts.CellClip, opts.ProjClip
	if !(cfg.cellClip >= 0) || !(cfg.projClip >= 0) {
		return fmt.Errorf("cell_clip %g and proj_clip %g must be ≥ 0", cfg.cellClip, cfg.projClip)
	}
	if err := checkStateTensors(&t, &cfg); err != nil {
		return err
	}

	out := n.Outputs[0]
	if out == nil {
		return fmt.Errorf("output 0 is missing")
	}
	switch {
	case t.input.Type == ops.Float32 && t.inputToGate[gateOutput].Type == ops.Float32:
		err = checkLSTMTypes(&t, &cfg, lstmFloatTypes)
		if err == nil && !floatActivationSupported(cfg.activation) {
			err = fmt.Errorf("fused activation %s is not supported by the float LSTM (TFLite leaves the cell gate unwritten for NONE)", cfg.activation)
		}
		if err == nil && out.Type != ops.Float32 {
			err = fmt.Errorf("output 0 is %s, the float path needs float32", out.Type)
		}
	case t.input.Type == ops.Float32 && (t.inputToGate[gateOutput].Type == ops.Int8 || t.inputToGate[gateOutput].Type == ops.Uint8):
		err = fmt.Errorf("hybrid UNIDIRECTIONAL_SEQUENCE_LSTM (float32 input with %s weights) is not implemented", t.inputToGate[gateOutput].Type)
	case t.input.Type == ops.Int8:
		k.integer = true
		err = k.prepareInteger(n, &t, &cfg, out)
	case t.input.Type == ops.Int16:
		err = fmt.Errorf("%s is int16: TFLite has no int16-activation (int16x8) UNIDIRECTIONAL_SEQUENCE_LSTM kernel", lstmInputName(lstmInputTensor))
	default:
		err = fmt.Errorf("%s is %s, needs float32 or int8", lstmInputName(lstmInputTensor), t.input.Type)
	}
	if err != nil {
		return err
	}

	shape := append([]int(nil), t.input.Shape...)
	shape[2] = cfg.nOutput
	out.Shape = shape
	k.cfg = cfg
	k.recordSizes(&t)

	// Scratch: four gate buffers of n_batch·n_cell; the integer path adds
	// an int8 hidden buffer and an int32 accumulator.
	gateElems := cfg.nBatch * cfg.nCell
	for g := range k.scratchGates {
		if k.integer {
			k.scratchGates[g] = n.RequestScratch(scratchBytes[int16](gateElems))
		} else {
			k.scratchGates[g] = n.RequestScratch(scratchBytes[float32](gateElems))
		}
	}
	if k.integer {
		k.scratchHidden = n.RequestScratch(scratchBytes[int8](gateElems))
		k.scratchAcc = n.RequestScratch(scratchBytes[int32](cfg.nBatch * max(cfg.nCell, cfg.nOutput)))
	}
	k.prepared = true
	return nil
}

// prepareInteger checks the int8x8_16 path's types and derives its
// parameters.
func (k *UnidirectionalSequenceLSTM) prepareInteger(n *ops.Node, t *lstmTensors, cfg *lstmConfig, out *ops.Tensor) error {
	if err := checkLSTMTypes(t, cfg, lstmIntegerTypes); err != nil {
		return err
	}
	if out.Type != ops.Int8 {
		return fmt.Errorf("output 0 is %s, the integer path needs int8", out.Type)
	}
	for g := 0; g < numGates; g++ {
		if cfg.recurrentDiag[g] {
			return fmt.Errorf("%s is diagonal (rank 1); TFLite's integer LSTM has no diagonal recurrent weights", lstmInputName(recurrentToGateIndex[g]))
		}
	}
	if cfg.peephole && cfg.nOutput > cfg.nCell {
		return fmt.Errorf("integer peephole LSTM with n_output %d > n_cell %d: TFLite reads n_output peephole weights of n_cell", cfg.nOutput, cfg.nCell)
	}
	// The integer path folds weights and biases into its parameters now.
	for i, x := range n.Inputs {
		if x == nil || i == lstmInputTensor || i == lstmOutputState || i == lstmCellState {
			continue
		}
		if x.Kind != ops.ConstTensor || len(x.Data) < x.Bytes() {
			return fmt.Errorf("%s must be a constant tensor with data (the integer LSTM precomputes from it at Prepare)", lstmInputName(i))
		}
	}
	p, err := lstmIntegerParamsFor(n, t, cfg)
	if err != nil {
		return err
	}
	k.params = p
	// Build the activation tables now rather than in the first Eval.
	sigmoidQ3Table()
	tanhTables[3]()
	tanhTables[15+p.cellScale]()
	return nil
}

// recordSizes stores the byte size Eval needs in each input's data.
func (k *UnidirectionalSequenceLSTM) recordSizes(t *lstmTensors) {
	set := func(idx int, x *ops.Tensor) {
		if x != nil {
			k.need[idx] = x.Bytes()
		}
	}
	set(lstmInputTensor, t.input)
	for g := 0; g < numGates; g++ {
		set(inputToGateIndex[g], t.inputToGate[g])
		set(recurrentToGateIndex[g], t.recurrentToGate[g])
		if g != gateCell {
			set(cellToGateIndex[g], t.cellToGate[g])
		}
		set(gateBiasIndex[g], t.gateBias[g])
		if k.cfg.layerNorm {
			set(layerNormIndex[g], t.layerNorm[g])
		}
	}
	set(lstmProjectionWeights, t.projWeights)
	set(lstmProjectionBias, t.projBias)
	set(lstmOutputState, t.outputState)
	set(lstmCellState, t.cellState)
}

// checkData verifies, before Eval touches them, that the tensors hold as
// many bytes as their Prepare-time shapes need.
func (k *UnidirectionalSequenceLSTM) checkData(n *ops.Node) error {
	if !k.prepared {
		return fmt.Errorf("Eval before a successful Prepare")
	}
	for i, need := range k.need {
		if need == 0 {
			continue
		}
		x := n.Input(i)
		if x == nil || len(x.Data) < need {
			return fmt.Errorf("%s has no data or fewer than the %d bytes prepared", lstmInputName(i), need)
		}
	}
	out := n.Output(0)
	if out == nil {
		return fmt.Errorf("output 0 is missing")
	}
	if len(out.Data) < out.Bytes() {
		return fmt.Errorf("output 0 has no data or fewer than %d bytes", out.Bytes())
	}
	return nil
}

// Eval runs the whole sequence, carrying the state tensors over from the
// previous Eval (or their initial values). It allocates nothing.
func (k *UnidirectionalSequenceLSTM) Eval(n *ops.Node) error {
	if err := k.checkData(n); err != nil {
		return err
	}
	t := gatherLSTMTensors(n)
	if k.integer {
		return k.evalInteger(n, &t)
	}
	return k.evalFloat(n, &t)
}

func (k *UnidirectionalSequenceLSTM) evalFloat(n *ops.Node, t *lstmTensors) error {
	cfg := &k.cfg
	var w lstmFloatWeights
	for g := 0; g < numGates; g++ {
		w.inputToGate[g] = optFloat32s(t.inputToGate[g])
		w.recurrentToGate[g] = optFloat32s(t.recurrentToGate[g])
		w.cellToGate[g] = optFloat32s(t.cellToGate[g])
		w.gateBias[g] = optFloat32s(t.gateBias[g])
		if cfg.layerNorm {
			w.layerNorm[g] = optFloat32s(t.layerNorm[g])
		}
	}
	if cfg.projection {
		w.projWeights = t.projWeights.Float32s()
		w.projBias = optFloat32s(t.projBias)
	}
	var gates [numGates][]float32
	for g := range gates {
		var ok bool
		if gates[g], ok = scratchView[float32](scratchOf(n, k.scratchGates[g]), cfg.nBatch*cfg.nCell); !ok {
			return errScratch
		}
	}
	x := t.input.Float32s()
	h := t.outputState.Float32s()
	c := t.cellState.Float32s()
	out := n.Outputs[0].Float32s()
	nIn, nOut, nCell := cfg.nInput, cfg.nOutput, cfg.nCell
	if cfg.timeMajor {
		step := cfg.nBatch
		for tt := 0; tt < cfg.maxTime; tt++ {
			lstmStepFloat(cfg, &w, x[tt*step*nIn:], step, h, c, &gates, out[tt*step*nOut:], nOut)
		}
		return nil
	}
	// Batch-major: each sequence runs alone, as in TFLite, with its own
	// rows of the state.
	for b := 0; b < cfg.nBatch; b++ {
		for tt := 0; tt < cfg.maxTime; tt++ {
			off := b*cfg.maxTime + tt
			lstmStepFloat(cfg, &w, x[off*nIn:], 1, h[b*nOut:], c[b*nCell:], &gates, out[off*nOut:], nOut)
		}
	}
	return nil
}

func (k *UnidirectionalSequenceLSTM) evalInteger(n *ops.Node, t *lstmTensors) error {
	cfg := &k.cfg
	var w lstmIntegerWeights
	for g := 0; g < numGates; g++ {
		w.inputToGate[g] = optInt8s(t.inputToGate[g])
		w.recurrentToGate[g] = optInt8s(t.recurrentToGate[g])
		if cfg.peephole {
			w.cellToGate[g] = optInt16s(t.cellToGate[g])
		}
		if cfg.layerNorm {
			w.gateBias[g] = optInt32s(t.gateBias[g])
			w.layerNorm[g] = optInt16s(t.layerNorm[g])
		}
	}
	if cfg.cifg {
		w.cellToGate[gateInput] = nil
	}
	if cfg.projection {
		w.projWeights = t.projWeights.Int8s()
	}
	var s lstmIntegerScratch
	gateElems := cfg.nBatch * cfg.nCell
	ok := true
	for g := range s.gates {
		var okg bool
		s.gates[g], okg = scratchView[int16](scratchOf(n, k.scratchGates[g]), gateElems)
		ok = ok && okg
	}
	var okh, oka bool
	s.hidden, okh = scratchView[int8](scratchOf(n, k.scratchHidden), gateElems)
	s.acc, oka = scratchView[int32](scratchOf(n, k.scratchAcc), cfg.nBatch*max(cfg.nCell, cfg.nOutput))
	if !ok || !okh || !oka {
		return errScratch
	}
	x := t.input.Int8s()
	h := t.outputState.Int8s()
	c := t.cellState.Int16s()
	out := n.Outputs[0].Int8s()
	nIn, nOut, nCell := cfg.nInput, cfg.nOutput, cfg.nCell
	if cfg.timeMajor {
		step := cfg.nBatch
		for tt := 0; tt < cfg.maxTime; tt++ {
			lstmStepInteger(cfg, k.params, &w, x[tt*step*nIn:], step, h, c, &s, out[tt*step*nOut:])
		}
		return nil
	}
	for b := 0; b < cfg.nBatch; b++ {
		for tt := 0; tt < cfg.maxTime; tt++ {
			off := b*cfg.maxTime + tt
			lstmStepInteger(cfg, k.params, &w, x[off*nIn:], 1, h[b*nOut:], c[b*nCell:], &s, out[off*nOut:])
		}
	}
	return nil
}

// errScratch reports scratch buffers missing or smaller than requested.
var errScratch = fmt.Errorf("scratch buffers are missing or smaller than requested at Prepare")

// scratchOf returns scratch buffer id, or nil when the interpreter did not
// provide it.
func scratchOf(n *ops.Node, id int) []byte {
	if id < 0 || id >= len(n.Scratch) {
		return nil
	}
	return n.Scratch[id]
}

func optFloat32s(t *ops.Tensor) []float32 {
	if t == nil {
		return nil
	}
	return t.Float32s()
}

func optInt8s(t *ops.Tensor) []int8 {
	if t == nil {
		return nil
	}
	return t.Int8s()
}

func optInt16s(t *ops.Tensor) []int16 {
	if t == nil {
		return nil
	}
	return t.Int16s()
}

func optInt32s(t *ops.Tensor) []int32 {
	if t == nil {
		return nil
	}
	return t.Int32s()
}
