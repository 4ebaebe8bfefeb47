package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// lstmFullKernel is the Prepare and Eval shared by the two operators with
// the 20/24-input LSTM layout: UNIDIRECTIONAL_SEQUENCE_LSTM (a whole
// sequence, rank-3 input) and LSTM with kernel_type FULL (one step, rank-2
// input [n_batch, n_input]).
type lstmFullKernel struct {
	prepared bool
	cell     *lstmCell
	seq      lstmSeq
	// Byte sizes Eval checks the tensors' data against.
	needIn, needH, needC, needOut int
}

// lstmFullOptions are the options both operators share.
type lstmFullOptions struct {
	activation         ops.Activation
	cellClip, projClip float32
	timeMajor          bool
	asymmetric         bool
	// sequence is true for UNIDIRECTIONAL_SEQUENCE_LSTM (rank-3 input,
	// diagonal recurrent weights allowed), false for LSTM (rank 2).
	sequence bool
}

// prepare validates the node (tensor counts, ranks, sizes and types of all
// inputs, state tensors being variables, TFLite's Prepare checks plus the
// ones listed on the operators' kernels), sizes the state for the input's
// batch, sets the output shape, packs the weights and requests scratch.
func (k *lstmFullKernel) prepare(n *ops.Node, o lstmFullOptions) error {
	*k = lstmFullKernel{}
	if len(n.Inputs) != lstmFullInputCount && len(n.Inputs) != lstmLegacyInputCount {
		return fmt.Errorf("has %d inputs, needs %d (or the legacy %d)", len(n.Inputs), lstmFullInputCount, lstmLegacyInputCount)
	}
	if len(n.Outputs) != 1 {
		return fmt.Errorf("has %d outputs, needs 1", len(n.Outputs))
	}
	out := n.Outputs[0]
	if out == nil {
		return fmt.Errorf("output 0 is missing")
	}
	roles := identityRoles(len(n.Inputs))
	t := gatherLSTMTensors(n, roles)
	if t.input == nil {
		return fmt.Errorf("%s is required but omitted", roles.name(lstmInputTensor))
	}
	var cfg lstmConfig
	cfg.timeMajor = o.timeMajor
	if o.sequence {
		if t.input.Rank() != 3 {
			return fmt.Errorf("%s has shape %v, needs rank 3", roles.name(lstmInputTensor), t.input.Shape)
		}
		if o.timeMajor {
			cfg.maxTime, cfg.nBatch = t.input.Dim(0), t.input.Dim(1)
		} else {
			cfg.nBatch, cfg.maxTime = t.input.Dim(0), t.input.Dim(1)
		}
		cfg.nInput = t.input.Dim(2)
	} else {
		if t.input.Rank() != 2 {
			return fmt.Errorf("%s has shape %v, needs rank 2 [n_batch, n_input]", roles.name(lstmInputTensor), t.input.Shape)
		}
		cfg.timeMajor = true
		cfg.maxTime, cfg.nBatch, cfg.nInput = 1, t.input.Dim(0), t.input.Dim(1)
	}
	if err := checkLSTMWeights(&t, roles, &cfg, o.sequence); err != nil {
		return err
	}
	if err := checkSteps(cfg.maxTime, cfg.nBatch, cfg.nInput+cfg.nAux, cfg.nOutput); err != nil {
		return err
	}
	cfg.activation = o.activation
	cfg.cellClip, cfg.projClip = o.cellClip, o.projClip
	cfg.asymmetric = o.asymmetric
	if !(cfg.cellClip >= 0) || !(cfg.projClip >= 0) {
		return fmt.Errorf("cell_clip %g and proj_clip %g must be ≥ 0", cfg.cellClip, cfg.projClip)
	}
	if err := prepareStateTensor(t.outputState, roles.name(lstmOutputState), cfg.nBatch, cfg.nOutput); err != nil {
		return err
	}
	if err := prepareStateTensor(t.cellState, roles.name(lstmCellState), cfg.nBatch, cfg.nCell); err != nil {
		return err
	}
	path, err := choosePath(t.input, t.inputToGate[gateOutput], roles.name(lstmInputTensor), roles.name(lstmInputToOutputWeights), true)
	if err != nil {
		return err
	}
	if err := requireConstData(&t, nil, roles.name); err != nil {
		return err
	}
	cell := newLSTMCell(cfg, path)
	if err := cell.reservePack(n); err != nil {
		return err
	}
	switch path {
	case lstmPathFloat, lstmPathHybrid:
		types := lstmFloatTypes
		if path == lstmPathHybrid {
			types = lstmHybridTypes
		}
		if err := checkLSTMTypes(&t, roles, &cfg, types, true); err != nil {
			return err
		}
		if !floatActivationSupported(cfg.activation) {
			return fmt.Errorf("fused activation %s is not supported by the %s LSTM (TFLite leaves the cell gate unwritten for NONE)", cfg.activation, path)
		}
		if out.Type != ops.Float32 {
			return fmt.Errorf("output 0 is %s, the %s path needs float32", out.Type, path)
		}
		if path == lstmPathHybrid {
			if err := checkHybridQuant(&t, roles, &cfg, nil); err != nil {
				return err
			}
			cell.packHybrid(&t, nil)
		} else {
			cell.packFloat(&t, nil)
		}
	case lstmPathInteger:
		p, err := prepareIntegerLSTM(n, &t, &cfg, out, o.sequence)
		if err != nil {
			return err
		}
		cell.packInteger(&t, p)
	}

	if o.sequence {
		shape := append([]int(nil), t.input.Shape...)
		shape[2] = cfg.nOutput
		out.Shape = shape
	} else {
		out.Shape = []int{cfg.nBatch, cfg.nOutput}
	}
	cell.requestScratch(n)
	k.cell = cell
	k.seq = lstmSeq{timeMajor: cfg.timeMajor, forward: true, maxTime: cfg.maxTime, nBatch: cfg.nBatch}
	k.needIn = t.input.Bytes()
	k.needH = t.outputState.Bytes()
	k.needC = t.cellState.Bytes()
	k.needOut = out.Bytes()
	k.prepared = true
	return nil
}

// prepareIntegerLSTM checks the int8x8_16 path's types and derives its
// parameters.
func prepareIntegerLSTM(n *ops.Node, t *lstmTensors, cfg *lstmConfig, out *ops.Tensor, sequence bool) (*lstmIntegerParams, error) {
	roles := identityRoles(len(n.Inputs))
	if err := checkLSTMTypes(t, roles, cfg, lstmIntegerTypes, true); err != nil {
		return nil, err
	}
	if out.Type != ops.Int8 {
		return nil, fmt.Errorf("output 0 is %s, the integer path needs int8", out.Type)
	}
	for g := 0; g < numGates; g++ {
		if cfg.recurrentDiag[g] {
			return nil, fmt.Errorf("%s is diagonal (rank 1); TFLite's integer LSTM has no diagonal recurrent weights", lstmInputName(recurrentToGateIndex[g]))
		}
	}
	if cfg.peephole && cfg.nOutput > cfg.nCell {
		return nil, fmt.Errorf("integer peephole LSTM with n_output %d > n_cell %d: TFLite reads n_output peephole weights of n_cell", cfg.nOutput, cfg.nCell)
	}
	p, err := lstmIntegerParamsFor(n, t, cfg, sequence)
	if err != nil {
		return nil, err
	}
	// Build the activation tables now rather than in the first Eval.
	sigmoidQ3Table()
	tanhTables[3]()
	if !p.tanhSkipped {
		tanhTables[15+p.cellScale]()
	}
	return p, nil
}

// eval runs the prepared direction over the input, carrying the state
// tensors over from the previous Eval (or their initial values). It
// allocates nothing.
func (k *lstmFullKernel) eval(n *ops.Node) error {
	if !k.prepared {
		return fmt.Errorf("Eval before a successful Prepare")
	}
	in := n.Input(lstmInputTensor)
	h := n.Input(lstmOutputState)
	c := n.Input(lstmCellState)
	out := n.Output(0)
	switch {
	case in == nil || len(in.Data) < k.needIn:
		return fmt.Errorf("%s has no data or fewer than the %d bytes prepared", lstmInputName(lstmInputTensor), k.needIn)
	case h == nil || len(h.Data) < k.needH:
		return fmt.Errorf("%s has no data or fewer than the %d bytes prepared", lstmInputName(lstmOutputState), k.needH)
	case c == nil || len(c.Data) < k.needC:
		return fmt.Errorf("%s has no data or fewer than the %d bytes prepared", lstmInputName(lstmCellState), k.needC)
	case out == nil || len(out.Data) < k.needOut:
		return fmt.Errorf("output 0 has no data or fewer than the %d bytes prepared", k.needOut)
	}
	cell := k.cell
	nOut := cell.cfg.nOutput
	switch cell.path {
	case lstmPathFloat:
		s, ok := cell.floatScratch(n)
		if !ok {
			return errScratch
		}
		cell.passFloat(k.seq, in.Float32s(), nil, h.Float32s(), c.Float32s(), out.Float32s(), nOut, 0, &s)
	case lstmPathHybrid:
		s, ok := cell.hybridScratch(n)
		if !ok {
			return errScratch
		}
		cell.passHybrid(k.seq, in.Float32s(), nil, h.Float32s(), c.Float32s(), out.Float32s(), nOut, 0, &s)
	case lstmPathInteger:
		s, ok := cell.integerScratch(n)
		if !ok {
			return errScratch
		}
		cell.passInteger(k.seq, in.Int8s(), h.Int8s(), c.Int16s(), out.Int8s(), nOut, 0, &s)
	}
	return nil
}
