package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Input indices of BIDIRECTIONAL_SEQUENCE_LSTM beyond the two directions'
// copies of the full LSTM layout (TFLite's bidirectional_sequence_lstm.cc).
const (
	bilstmInputCount = 48
	// The forward direction's tensors are inputs 1–17 (roles 1–17 of the
	// full layout), the backward direction's 18–34.
	bilstmBwOffset      = 17
	bilstmFwOutputState = 35
	bilstmFwCellState   = 36
	bilstmBwOutputState = 37
	bilstmBwCellState   = 38
	bilstmAuxInput      = 39
	// Auxiliary weights [n_cell, n_aux], gate order input, forget, cell,
	// output: forward 40–43, backward 44–47.
	bilstmFwAuxWeights = 40
	bilstmBwAuxWeights = 44
)

// bilstmRoles returns the role mapping of one direction of a
// BIDIRECTIONAL_SEQUENCE_LSTM node (no layer norm in this operator).
func bilstmRoles(backward bool) *lstmRoles {
	r := &lstmRoles{prefix: "fw_"}
	off, h, c := 0, bilstmFwOutputState, bilstmFwCellState
	if backward {
		r.prefix = "bw_"
		off, h, c = bilstmBwOffset, bilstmBwOutputState, bilstmBwCellState
	}
	for role := range r.index {
		switch {
		case role == lstmInputTensor:
			r.index[role] = 0
		case role <= lstmProjectionBias:
			r.index[role] = role + off
		case role == lstmOutputState:
			r.index[role] = h
		case role == lstmCellState:
			r.index[role] = c
		default:
			r.index[role] = -1
		}
	}
	return r
}

var bilstmAuxNames = [numGates]string{"aux_input_to_input_weights", "aux_input_to_forget_weights",
	"aux_input_to_cell_weights", "aux_input_to_output_weights"}

// BidirectionalSequenceLSTM is the kernel of TFLite's
// BIDIRECTIONAL_SEQUENCE_LSTM (bidirectional_sequence_lstm.cc, lstm_eval.cc),
// versions 1 to 3: a forward and a backward LSTM over the same sequence.
//
// Inputs (48): 0 the input [max_time, n_batch, n_input] when time_major,
// else [n_batch, max_time, n_input]; 1–17 the forward direction's weights,
// peephole weights, biases and projection in the order of
// UNIDIRECTIONAL_SEQUENCE_LSTM's inputs 1–17, 18–34 the backward
// direction's; 35/36 the forward output and cell state and 37/38 the
// backward ones (variable tensors of n_batch·n_output and n_batch·n_cell
// elements); 39 an optional auxiliary input [.., .., n_aux] laid out like
// the input; 40–43 and 44–47 the forward and backward auxiliary weights
// [n_cell, n_aux] (input gate omitted with CIFG). There is no layer norm.
// Outputs: with merge_outputs one output [.., .., n_fw_output+n_bw_output]
// holding the forward output then the backward one in each row; without,
// output 0 (forward) and output 1 (backward). Options come as
// *BidirectionalSequenceLSTMOptions (nil means TFLite's zero
// parameters: batch-major, not merged, activation NONE — refused).
//
// The auxiliary input has TFLite's two meanings: with auxiliary weights
// both directions add W_aux·aux to their gates (stacking with cross
// links); without them the backward direction reads the auxiliary input
// instead of the input (stacking without cross links), which must then
// have the input's shape.
//
// Paths: float32, and hybrid (int8 symmetric per-tensor weights with float
// activations, asymmetric_quantize_inputs on or off), as TFLite; int8
// activations have no kernel. As in TFLite both directions must have the
// same n_cell and n_output (TFLite validates the backward weights against
// the forward sizes). The backward direction walks time backwards and
// writes its outputs at their own time positions.
//
// Unlike TFLite, merged outputs with a batch-major input and n_batch > 1
// are correct: TFLite offsets each batch row's output state by the merged
// output width instead of n_output, so rows after the first read and write
// outside the state tensor. Projections larger than the cell are computed
// correctly too. Errors name the input (with its fw_/bw_ prefix) or
// output concerned.
type BidirectionalSequenceLSTM struct {
	prepared bool
	merge    bool
	// bwFromAux: the backward direction reads the auxiliary input.
	bwFromAux bool
	// crossAux: both directions add the auxiliary input's product.
	crossAux bool
	fw, bw   *lstmCell
	fwSeq    lstmSeq
	bwSeq    lstmSeq
	// Byte sizes Eval checks data against: input, aux, fw h, fw c, bw h,
	// bw c, output 0, output 1.
	need [8]int
}

// NewBidirectionalSequenceLSTM returns a kernel for one
// BIDIRECTIONAL_SEQUENCE_LSTM node.
func NewBidirectionalSequenceLSTM() ops.Kernel { return &BidirectionalSequenceLSTM{} }

// BidirectionalSequenceLSTMOptions is TFLite's
// BidirectionalSequenceLSTMOptions. A model that omits the table gets
// TFLite's zero parameters (TimeMajor false, MergeOutputs false); a table
// that omits time_major gets the schema default, true.
type BidirectionalSequenceLSTMOptions struct {
	Activation ops.Activation
	CellClip   float32
	ProjClip   float32
	// MergeOutputs concatenates the forward and backward outputs into
	// output 0 (the node then has one output).
	MergeOutputs bool
	// TimeMajor: input is [time, batch, input] when true, [batch, time,
	// input] when false.
	TimeMajor                bool
	AsymmetricQuantizeInputs bool
}

func init() {
	// Versions 1–3, as TFLite registers.
	register(ops.OpBidirectionalSequenceLSTM, NewBidirectionalSequenceLSTM, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsBidirectionalSequenceLSTMOptions, decodeBidirectionalSequenceLSTMOptions)
}

// decodeBidirectionalSequenceLSTMOptions decodes TFLite's BidirectionalSequenceLSTMOptions table.
func decodeBidirectionalSequenceLSTMOptions(t ops.OptionsTable) (any, error) {
	var o schema.BidirectionalSequenceLSTMOptions
	initTable(&o, t)
	return &BidirectionalSequenceLSTMOptions{
		Activation:               ops.Activation(o.FusedActivationFunction()),
		CellClip:                 o.CellClip(),
		ProjClip:                 o.ProjClip(),
		MergeOutputs:             o.MergeOutputs(),
		TimeMajor:                o.TimeMajor(),
		AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
	}, nil
}

// Prepare validates the node as TFLite's Prepare does, sizes the four
// state tensors for the input's batch, sets the output shapes, packs both
// directions' weights and requests scratch.
func (k *BidirectionalSequenceLSTM) Prepare(n *ops.Node) error {
	*k = BidirectionalSequenceLSTM{}
	opts := &BidirectionalSequenceLSTMOptions{}
	if n.Options != nil {
		o, ok := n.Options.(*BidirectionalSequenceLSTMOptions)
		if !ok {
			return fmt.Errorf("options are %T, need *BidirectionalSequenceLSTMOptions", n.Options)
		}
		opts = o
	}
	if len(n.Inputs) != bilstmInputCount {
		return fmt.Errorf("has %d inputs, needs %d", len(n.Inputs), bilstmInputCount)
	}
	wantOut := 2
	if opts.MergeOutputs {
		wantOut = 1
	}
	if len(n.Outputs) != wantOut {
		return fmt.Errorf("has %d outputs, needs %d (merge_outputs=%v)", len(n.Outputs), wantOut, opts.MergeOutputs)
	}
	for i, o := range n.Outputs {
		if o == nil {
			return fmt.Errorf("output %d is missing", i)
		}
	}
	k.merge = opts.MergeOutputs
	input := n.Inputs[0]
	if input == nil {
		return fmt.Errorf("input 0 (input) is required but omitted")
	}
	if input.Type != ops.Float32 {
		return fmt.Errorf("input 0 (input) is %s: BIDIRECTIONAL_SEQUENCE_LSTM has float32 and hybrid kernels only (TFLite has no integer one)", input.Type)
	}
	if input.Rank() != 3 {
		return fmt.Errorf("input 0 (input) has shape %v, needs rank 3", input.Shape)
	}
	var base lstmConfig
	base.timeMajor = opts.TimeMajor
	if opts.TimeMajor {
		base.maxTime, base.nBatch = input.Dim(0), input.Dim(1)
	} else {
		base.nBatch, base.maxTime = input.Dim(0), input.Dim(1)
	}
	base.nInput = input.Dim(2)
	base.activation = opts.Activation
	base.cellClip, base.projClip = opts.CellClip, opts.ProjClip
	base.asymmetric = opts.AsymmetricQuantizeInputs
	if !(base.cellClip >= 0) || !(base.projClip >= 0) {
		return fmt.Errorf("cell_clip %g and proj_clip %g must be ≥ 0", base.cellClip, base.projClip)
	}

	fwRoles, bwRoles := bilstmRoles(false), bilstmRoles(true)
	fwT, bwT := gatherLSTMTensors(n, fwRoles), gatherLSTMTensors(n, bwRoles)
	fwCfg, bwCfg := base, base
	if err := checkLSTMWeights(&fwT, fwRoles, &fwCfg, false); err != nil {
		return err
	}
	if err := checkLSTMWeights(&bwT, bwRoles, &bwCfg, false); err != nil {
		return err
	}
	if bwCfg.nCell != fwCfg.nCell || bwCfg.nOutput != fwCfg.nOutput {
		return fmt.Errorf("the backward direction has n_cell %d and n_output %d, the forward %d and %d: TFLite's BIDIRECTIONAL_SEQUENCE_LSTM needs the same sizes in both directions",
			bwCfg.nCell, bwCfg.nOutput, fwCfg.nCell, fwCfg.nOutput)
	}

	path, err := choosePath(input, fwT.inputToGate[gateOutput], "input 0 (input)", fwRoles.name(lstmInputToOutputWeights), false)
	if err != nil {
		return err
	}
	if bt, ft := bwT.inputToGate[gateOutput].Type, fwT.inputToGate[gateOutput].Type; bt != ft {
		return fmt.Errorf("%s is %s but %s is %s: both directions need the same weight type",
			bwRoles.name(lstmInputToOutputWeights), bt, fwRoles.name(lstmInputToOutputWeights), ft)
	}

	fwAux, bwAux, err := k.prepareAux(n, input, &fwCfg, &bwCfg)
	if err != nil {
		return err
	}
	auxWidth := 0 // the backward direction may read the auxiliary input instead
	if a := n.Inputs[bilstmAuxInput]; a != nil && a.Rank() == 3 {
		auxWidth = a.Dim(2)
	}
	for _, c := range []*lstmConfig{&fwCfg, &bwCfg} {
		if err := checkSteps(base.maxTime, base.nBatch, c.nInput+c.nAux+auxWidth, c.nOutput); err != nil {
			return err
		}
	}

	types := lstmFloatTypes
	if path == lstmPathHybrid {
		types = lstmHybridTypes
	}
	dirs := []struct {
		t     *lstmTensors
		r     *lstmRoles
		cfg   *lstmConfig
		aux   *lstmAuxTensors
		h, c  int
		cellp **lstmCell
	}{
		{&fwT, fwRoles, &fwCfg, fwAux, bilstmFwOutputState, bilstmFwCellState, &k.fw},
		{&bwT, bwRoles, &bwCfg, bwAux, bilstmBwOutputState, bilstmBwCellState, &k.bw},
	}
	for _, d := range dirs {
		if err := checkLSTMTypes(d.t, d.r, d.cfg, types, false); err != nil {
			return err
		}
		if err := prepareStateTensor(d.t.outputState, d.r.name(lstmOutputState), d.cfg.nBatch, d.cfg.nOutput); err != nil {
			return err
		}
		if err := prepareStateTensor(d.t.cellState, d.r.name(lstmCellState), d.cfg.nBatch, d.cfg.nCell); err != nil {
			return err
		}
		for _, s := range []*ops.Tensor{d.t.outputState, d.t.cellState} {
			if s.Type != ops.Float32 {
				return fmt.Errorf("%s is %s, the %s path needs float32", stateName(d.r, s == d.t.cellState), s.Type, path)
			}
		}
		if err := requireConstData(d.t, d.aux, d.r.name); err != nil {
			return err
		}
		if d.aux != nil {
			for g := 0; g < numGates; g++ {
				if w := d.aux.weights[g]; w != nil && w.Type != types.weights {
					return fmt.Errorf("%s is %s, the %s path needs %s", d.aux.names[g], w.Type, path, types.weights)
				}
			}
		}
		if path == lstmPathHybrid {
			if err := checkHybridQuant(d.t, d.r, d.cfg, d.aux); err != nil {
				return err
			}
		}
		cell := newLSTMCell(*d.cfg, path)
		if err := cell.reservePack(n); err != nil {
			return err
		}
		if path == lstmPathHybrid {
			cell.packHybrid(d.t, d.aux)
		} else {
			cell.packFloat(d.t, d.aux)
		}
		*d.cellp = cell
	}
	if !floatActivationSupported(base.activation) {
		return fmt.Errorf("fused activation %s is not supported by the %s LSTM (TFLite leaves the cell gate unwritten for NONE)", base.activation, path)
	}
	for i, o := range n.Outputs {
		if o.Type != ops.Float32 {
			return fmt.Errorf("output %d is %s, needs float32", i, o.Type)
		}
	}

	fwW := fwCfg.nOutput
	if k.merge {
		fwW += bwCfg.nOutput
	}
	outShape := func(w int) []int {
		if base.timeMajor {
			return []int{base.maxTime, base.nBatch, w}
		}
		return []int{base.nBatch, base.maxTime, w}
	}
	n.Outputs[0].Shape = outShape(fwW)
	if !k.merge {
		n.Outputs[1].Shape = outShape(bwCfg.nOutput)
	}
	k.fw.requestScratch(n)
	k.bw.requestScratch(n)
	k.fwSeq = lstmSeq{timeMajor: base.timeMajor, forward: true, maxTime: base.maxTime, nBatch: base.nBatch}
	k.bwSeq = k.fwSeq
	k.bwSeq.forward = false
	k.need[0] = input.Bytes()
	if a := n.Inputs[bilstmAuxInput]; a != nil && (k.crossAux || k.bwFromAux) {
		k.need[1] = a.Bytes()
	}
	k.need[2], k.need[3] = fwT.outputState.Bytes(), fwT.cellState.Bytes()
	k.need[4], k.need[5] = bwT.outputState.Bytes(), bwT.cellState.Bytes()
	k.need[6] = n.Outputs[0].Bytes()
	if !k.merge {
		k.need[7] = n.Outputs[1].Bytes()
	}
	k.prepared = true
	return nil
}

// stateName names a direction's output or cell state input.
func stateName(r *lstmRoles, cell bool) string {
	if cell {
		return r.name(lstmCellState)
	}
	return r.name(lstmOutputState)
}

// prepareAux checks the auxiliary input and weights (TFLite's
// CheckAuxInputTensorDimensions and the all-or-none rule) and decides its
// meaning; it returns each direction's auxiliary tensors when the
// auxiliary input is a cross link (nil otherwise) and sets the
// directions' n_aux.
func (k *BidirectionalSequenceLSTM) prepareAux(n *ops.Node, input *ops.Tensor, fw, bw *lstmConfig) (fwAux, bwAux *lstmAuxTensors, err error) {
	aux := n.Inputs[bilstmAuxInput]
	var has [2][numGates]bool
	count := 0
	for d, base := range []int{bilstmFwAuxWeights, bilstmBwAuxWeights} {
		for g := gateForget; g < numGates; g++ {
			if n.Inputs[base+g] != nil {
				has[d][g] = true
				count++
			}
		}
	}
	if count != 0 && count != 6 {
		return nil, nil, fmt.Errorf("the forward and backward auxiliary forget, cell and output weights (inputs 41-43, 45-47) must be all given or all omitted")
	}
	if count == 0 {
		if aux == nil {
			return nil, nil, nil
		}
		// Without auxiliary weights the auxiliary input feeds the
		// backward direction and must look like the input.
		if !ops.SameShape(aux.Shape, input.Shape) {
			return nil, nil, fmt.Errorf("input %d (aux_input) has shape %v; without auxiliary weights it is the backward direction's input and needs the input's shape %v",
				bilstmAuxInput, aux.Shape, input.Shape)
		}
		if aux.Type != ops.Float32 {
			return nil, nil, fmt.Errorf("input %d (aux_input) is %s, needs float32", bilstmAuxInput, aux.Type)
		}
		k.bwFromAux = true
		return nil, nil, nil
	}
	if aux == nil {
		return nil, nil, fmt.Errorf("input %d (aux_input) is required when auxiliary weights are given", bilstmAuxInput)
	}
	if aux.Type != ops.Float32 {
		return nil, nil, fmt.Errorf("input %d (aux_input) is %s, needs float32", bilstmAuxInput, aux.Type)
	}
	if aux.Rank() != 3 || aux.Dim(0) != input.Dim(0) || aux.Dim(1) != input.Dim(1) {
		return nil, nil, fmt.Errorf("input %d (aux_input) has shape %v, needs [%d, %d, n_aux] like the input", bilstmAuxInput, aux.Shape, input.Dim(0), input.Dim(1))
	}
	nAux := aux.Dim(2)
	k.crossAux = true
	mk := func(cfg *lstmConfig, base int, prefix string) (*lstmAuxTensors, error) {
		a := &lstmAuxTensors{}
		for g := 0; g < numGates; g++ {
			a.names[g] = fmt.Sprintf("input %d (%s%s)", base+g, prefix, bilstmAuxNames[g])
			w := n.Inputs[base+g]
			if g == gateInput && cfg.cifg {
				continue // unused with CIFG, as in TFLite
			}
			if w == nil {
				return nil, fmt.Errorf("input %d (%s%s) is required when auxiliary weights are given without CIFG", base+g, prefix, bilstmAuxNames[g])
			}
			if !ops.SameShape(w.Shape, []int{cfg.nCell, nAux}) {
				return nil, fmt.Errorf("input %d (%s%s) has shape %v, needs [%d, %d]", base+g, prefix, bilstmAuxNames[g], w.Shape, cfg.nCell, nAux)
			}
			a.weights[g] = w
		}
		cfg.nAux = nAux
		return a, nil
	}
	if fwAux, err = mk(fw, bilstmFwAuxWeights, "fw_"); err != nil {
		return nil, nil, err
	}
	if bwAux, err = mk(bw, bilstmBwAuxWeights, "bw_"); err != nil {
		return nil, nil, err
	}
	return fwAux, bwAux, nil
}

// Eval runs the forward pass, then the backward pass (time reversed), each
// carrying its state tensors over from the previous Eval. It allocates
// nothing.
func (k *BidirectionalSequenceLSTM) Eval(n *ops.Node) error {
	if !k.prepared {
		return fmt.Errorf("Eval before a successful Prepare")
	}
	idx := [8]int{0, bilstmAuxInput, bilstmFwOutputState, bilstmFwCellState, bilstmBwOutputState, bilstmBwCellState}
	for i := 0; i < 6; i++ {
		if k.need[i] == 0 {
			continue
		}
		if x := n.Input(idx[i]); x == nil || len(x.Data) < k.need[i] {
			return fmt.Errorf("input %d has no data or fewer than the %d bytes prepared", idx[i], k.need[i])
		}
	}
	for i := 0; i < len(n.Outputs) && i < 2; i++ {
		if x := n.Output(i); x == nil || len(x.Data) < k.need[6+i] {
			return fmt.Errorf("output %d has no data or fewer than the %d bytes prepared", i, k.need[6+i])
		}
	}
	x := n.Inputs[0].Float32s()
	var aux, bwIn []float32
	bwIn = x
	if k.crossAux {
		aux = n.Inputs[bilstmAuxInput].Float32s()
	}
	if k.bwFromAux {
		bwIn = n.Inputs[bilstmAuxInput].Float32s()
	}
	fwH, fwC := n.Inputs[bilstmFwOutputState].Float32s(), n.Inputs[bilstmFwCellState].Float32s()
	bwH, bwC := n.Inputs[bilstmBwOutputState].Float32s(), n.Inputs[bilstmBwCellState].Float32s()
	out0 := n.Outputs[0].Float32s()
	fwN, bwN := k.fw.cfg.nOutput, k.bw.cfg.nOutput
	fwStride, bwOut, bwStride, bwOff := fwN, out0, bwN, 0
	if k.merge {
		fwStride = fwN + bwN
		bwStride, bwOff = fwStride, fwN
	} else {
		bwOut = n.Outputs[1].Float32s()
	}
	if k.fw.path == lstmPathHybrid {
		fs, ok1 := k.fw.hybridScratch(n)
		bs, ok2 := k.bw.hybridScratch(n)
		if !ok1 || !ok2 {
			return errScratch
		}
		k.fw.passHybrid(k.fwSeq, x, aux, fwH, fwC, out0, fwStride, 0, &fs)
		k.bw.passHybrid(k.bwSeq, bwIn, aux, bwH, bwC, bwOut, bwStride, bwOff, &bs)
		return nil
	}
	fs, ok1 := k.fw.floatScratch(n)
	bs, ok2 := k.bw.floatScratch(n)
	if !ok1 || !ok2 {
		return errScratch
	}
	k.fw.passFloat(k.fwSeq, x, aux, fwH, fwC, out0, fwStride, 0, &fs)
	k.bw.passFloat(k.bwSeq, bwIn, aux, bwH, bwC, bwOut, bwStride, bwOff, &bs)
	return nil
}
