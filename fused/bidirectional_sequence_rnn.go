package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// BIDIRECTIONAL_SEQUENCE_RNN input indices (TFLite's
// bidirectional_sequence_rnn.cc).
const (
	birnnInput        = 0
	birnnFwWeights    = 1
	birnnFwRecurrent  = 2
	birnnFwBias       = 3
	birnnFwHidden     = 4
	birnnBwWeights    = 5
	birnnBwRecurrent  = 6
	birnnBwBias       = 7
	birnnBwHidden     = 8
	birnnAuxInput     = 9
	birnnFwAuxWeights = 10
	birnnBwAuxWeights = 11
	birnnInputCount   = 12
)

var birnnRoles = ioRoles{"input",
	"fw_weights", "fw_recurrent_weights", "fw_bias", "fw_hidden_state",
	"bw_weights", "bw_recurrent_weights", "bw_bias", "bw_hidden_state",
	"aux_input", "fw_aux_weights", "bw_aux_weights"}

// BidirectionalSequenceRNN is the kernel of TFLite's
// BIDIRECTIONAL_SEQUENCE_RNN (bidirectional_sequence_rnn.cc), versions
// 1–3: a forward RNN over the sequence and a backward RNN over it in
// reverse, each the cell of RNN.
//
// Inputs (12): 0 input [max_time, batch, n_input] (time_major) or [batch,
// max_time, n_input], float32; 1–4 the forward weights [fw_units,
// n_input], recurrent weights [fw_units, fw_units], bias [fw_units] and
// hidden state [batch, fw_units] (a variable tensor); 5–8 the same for the
// backward direction (bw_units); 9 aux_input (optional), with the input's
// first two dimensions; 10, 11 fw_aux_weights [fw_units, n_aux] and
// bw_aux_weights [bw_units, n_aux] (optional, both or neither).
//
// The auxiliary input has TFLite's two meanings: with the aux weights
// (stacking with cross links, tf.contrib.rnn.stack_bidirectional_rnn) both
// directions add aux_weights·aux_input; without them (stacking without
// cross links, tf.nn.static_bidirectional_rnn) the backward direction reads
// aux_input instead of input, which then must have the input's shape.
//
// Outputs: with merge_outputs one tensor whose last dimension is fw_units +
// bw_units (forward then backward values per step), else the forward
// [..., fw_units] and backward [..., bw_units] outputs; the leading
// dimensions are the input's. Options: *BidirectionalSequenceRNNOptions.
//
// Paths: float32 weights and hybrid int8 weights (every weight int8, per
// tensor, zero point 0) with float activations, symmetric or asymmetric
// dynamic quantisation.
//
// Where TFLite's kernel misbehaves, tflrun computes the operator as
// specified instead: TFLite's hybrid time-major path runs the whole
// sequence max_time times over without resetting the state (an extra
// loop), its batch-major paths read input instead of aux_input in the
// backward direction without cross links, and several paths step through
// aux_input by n_input instead of n_aux. The tests check the correct
// results against a float64 model.
type BidirectionalSequenceRNN struct {
	prepared        bool
	act             ops.Activation
	asym, timeMajor bool
	merge           bool
	// bwFromAux: the backward direction reads aux_input (no cross links).
	bwFromAux      bool
	batch, maxTime int
	nInput, nAux   int
	fw, bw         rnnCell
	scratch        rnnHybridScratchIDs
	scratchRows    int
	scratchWidth   int
	sizes          ioSizes
}

// NewBidirectionalSequenceRNN returns a kernel for one
// BIDIRECTIONAL_SEQUENCE_RNN node.
func NewBidirectionalSequenceRNN() ops.Kernel { return &BidirectionalSequenceRNN{} }

// BidirectionalSequenceRNNOptions is TFLite's
// BidirectionalSequenceRNNOptions (operator BIDIRECTIONAL_SEQUENCE_RNN).
type BidirectionalSequenceRNNOptions struct {
	TimeMajor  bool
	Activation ops.Activation
	// MergeOutputs concatenates the forward and backward outputs into one
	// output tensor (last dimension fw_units + bw_units).
	MergeOutputs             bool
	AsymmetricQuantizeInputs bool
}

func init() {
	// Versions 1–3 as TFLite registers: float, hybrid, asymmetric hybrid.
	register(ops.OpBidirectionalSequenceRNN, NewBidirectionalSequenceRNN, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsBidirectionalSequenceRNNOptions, decodeBidirectionalSequenceRNNOptions)
}

// decodeBidirectionalSequenceRNNOptions decodes TFLite's BidirectionalSequenceRNNOptions table.
func decodeBidirectionalSequenceRNNOptions(t ops.OptionsTable) (any, error) {
	var o schema.BidirectionalSequenceRNNOptions
	initTable(&o, t)
	return &BidirectionalSequenceRNNOptions{
		TimeMajor:                o.TimeMajor(),
		Activation:               ops.Activation(o.FusedActivationFunction()),
		MergeOutputs:             o.MergeOutputs(),
		AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
	}, nil
}

// Prepare validates the node (TFLite's checks, plus the backward
// recurrent weights' full shape, ranks, types, the states being
// variables, the aux input's presence and shape, and the weights'
// quantisation on the hybrid path), sets the output shapes and the states'
// batch, and requests the hybrid scratch. Errors name the input.
func (k *BidirectionalSequenceRNN) Prepare(n *ops.Node) error {
	k.prepared = false
	opts := &BidirectionalSequenceRNNOptions{}
	if n.Options != nil {
		o, ok := n.Options.(*BidirectionalSequenceRNNOptions)
		if !ok {
			return fmt.Errorf("options are %T, need *BidirectionalSequenceRNNOptions", n.Options)
		}
		opts = o
	}
	outs := 2
	if opts.MergeOutputs {
		outs = 1
	}
	if err := n.CheckIO(birnnInputCount, birnnInputCount, outs); err != nil {
		return fmt.Errorf("%v (merge_outputs=%v)", err, opts.MergeOutputs)
	}
	if err := rnnActivation(opts.Activation); err != nil {
		return err
	}
	k.act, k.asym, k.timeMajor, k.merge = opts.Activation, opts.AsymmetricQuantizeInputs, opts.TimeMajor, opts.MergeOutputs
	roles := birnnRoles
	in, err := roles.require(n, birnnInput)
	if err != nil {
		return err
	}
	if err := roles.rank(n, birnnInput, 3); err != nil {
		return err
	}
	if err := floatInput(n, roles, birnnInput); err != nil {
		return err
	}
	if k.timeMajor {
		k.maxTime, k.batch = in.Dim(0), in.Dim(1)
	} else {
		k.batch, k.maxTime = in.Dim(0), in.Dim(1)
	}
	k.nInput = in.Dim(2)

	// Auxiliary input: weights both or neither; weights need the input.
	aux := n.Input(birnnAuxInput)
	fwAux, bwAux := n.Input(birnnFwAuxWeights), n.Input(birnnBwAuxWeights)
	if (fwAux == nil) != (bwAux == nil) {
		return fmt.Errorf("%s and %s must be both given or both omitted", roles.label(n, birnnFwAuxWeights), roles.label(n, birnnBwAuxWeights))
	}
	crossLinks := fwAux != nil
	if crossLinks && aux == nil {
		return fmt.Errorf("%s is required when the aux weights are given", roles.label(n, birnnAuxInput))
	}
	k.bwFromAux = aux != nil && !crossLinks
	k.nAux = 0
	if aux != nil {
		if err := roles.rank(n, birnnAuxInput, 3); err != nil {
			return err
		}
		if err := floatInput(n, roles, birnnAuxInput); err != nil {
			return err
		}
		if aux.Dim(0) != in.Dim(0) || aux.Dim(1) != in.Dim(1) {
			return fmt.Errorf("%s has shape %v; its first two dimensions must be the input's %v", roles.label(n, birnnAuxInput), aux.Shape, in.Shape[:2])
		}
		if k.bwFromAux && aux.Dim(2) != k.nInput {
			return fmt.Errorf("%s has shape %v; without aux weights it is the backward input and needs the input's shape %v", roles.label(n, birnnAuxInput), aux.Shape, in.Shape)
		}
		if crossLinks {
			k.nAux = aux.Dim(2)
		}
	}

	wtype, err := weightPath(n, roles, birnnFwWeights)
	if err != nil {
		return err
	}
	k.fw = rnnCell{nInput: k.nInput, nAux: k.nAux, w: birnnFwWeights, aux: -1, rec: birnnFwRecurrent, bias: birnnFwBias}
	k.bw = rnnCell{nInput: k.nInput, nAux: k.nAux, w: birnnBwWeights, aux: -1, rec: birnnBwRecurrent, bias: birnnBwBias}
	if crossLinks {
		k.fw.aux, k.bw.aux = birnnFwAuxWeights, birnnBwAuxWeights
	}
	if err := prepareCell(n, roles, &k.fw, wtype); err != nil {
		return err
	}
	if err := prepareCell(n, roles, &k.bw, wtype); err != nil {
		return err
	}
	for _, c := range []*rnnCell{&k.fw, &k.bw} {
		if err := checkSteps(k.maxTime, k.batch, c.nInput+c.nAux, c.units); err != nil {
			return err
		}
	}
	for _, s := range []struct {
		idx   int
		units int
	}{{birnnFwHidden, k.fw.units}, {birnnBwHidden, k.bw.units}} {
		if err := roles.state(n, s.idx, k.batch, s.units); err != nil {
			return err
		}
		if err := roles.dtype(n, s.idx, ops.Float32, "float and hybrid"); err != nil {
			return err
		}
	}

	fwWidth := k.fw.units
	if k.merge {
		fwWidth += k.bw.units
	}
	if err := floatOutput(n, 0); err != nil {
		return err
	}
	if _, err := outputShape(n, 0, in.Dim(0), in.Dim(1), fwWidth); err != nil {
		return err
	}
	if !k.merge {
		if err := floatOutput(n, 1); err != nil {
			return err
		}
		if _, err := outputShape(n, 1, in.Dim(0), in.Dim(1), k.bw.units); err != nil {
			return err
		}
	}
	if wtype != ops.Float32 {
		k.scratchRows = 1
		if k.timeMajor {
			k.scratchRows = k.batch
		}
		k.scratchWidth = max(k.nInput, k.nAux, k.fw.units, k.bw.units)
		k.scratch.request(n, k.scratchRows, k.scratchWidth, max(k.fw.units, k.bw.units))
	}
	k.sizes.record(n)
	k.prepared = true
	return nil
}

// Eval runs the forward direction over the sequence and then the backward
// one over the reversed sequence, carrying both hidden states over from
// the previous Eval. It allocates nothing.
func (k *BidirectionalSequenceRNN) Eval(n *ops.Node) error {
	if !k.prepared {
		return errUnprepared
	}
	if err := k.sizes.check(n); err != nil {
		return err
	}
	if k.batch == 0 || k.maxTime == 0 {
		// An empty sequence or batch: no step runs and the hidden states
		// keep their values (the merged output has no row to slice).
		return nil
	}
	var s rnnHybridScratch
	if k.fw.hybrid {
		var err error
		s, err = k.scratch.views(n, k.scratchRows, k.scratchWidth, max(k.fw.units, k.bw.units))
		if err != nil {
			return err
		}
	}
	x := n.Inputs[birnnInput].Float32s()
	var aux []float32
	if a := n.Inputs[birnnAuxInput]; a != nil {
		aux = a.Float32s()
	}
	bwX, cellAux := x, aux
	if k.bwFromAux {
		bwX, cellAux = aux, nil
	}
	fwOut := n.Outputs[0].Float32s()
	fwStep, bwStep := k.fw.units, k.bw.units
	var bwOut []float32
	if k.merge {
		fwStep += k.bw.units
		bwStep = fwStep
		bwOut = fwOut[k.fw.units:]
	} else {
		bwOut = n.Outputs[1].Float32s()
	}
	k.direction(n, &k.fw, x, cellAux, n.Inputs[birnnFwHidden].Float32s(), fwOut, fwStep, false, &s)
	k.direction(n, &k.bw, bwX, cellAux, n.Inputs[birnnBwHidden].Float32s(), bwOut, bwStep, true, &s)
	return nil
}

// direction runs one cell over the sequence (reversed when backward),
// writing each step's rows into out with row stride outStep.
func (k *BidirectionalSequenceRNN) direction(n *ops.Node, c *rnnCell, x, aux, h, out []float32, outStep int, backward bool, s *rnnHybridScratch) {
	v := c.views(n)
	nIn, nAux, u, batch, T := k.nInput, k.nAux, c.units, k.batch, k.maxTime
	step := func(x, aux []float32, rows int, h, out []float32) {
		if c.hybrid {
			c.stepHybrid(&v, x, aux, rows, k.act, k.asym, h, out, outStep, s)
		} else {
			c.stepFloat(&v, x, aux, rows, k.act, h, out, outStep)
		}
	}
	auxAt := func(i int) []float32 {
		if c.aux < 0 {
			return nil
		}
		return aux[i*nAux:]
	}
	order := func(i int) int {
		if backward {
			return T - 1 - i
		}
		return i
	}
	if k.timeMajor {
		for i := 0; i < T; i++ {
			t := order(i)
			step(x[t*batch*nIn:], auxAt(t*batch), batch, h, out[t*batch*outStep:])
		}
		return
	}
	for b := 0; b < batch; b++ {
		for i := 0; i < T; i++ {
			at := b*T + order(i)
			step(x[at*nIn:], auxAt(at), 1, h[b*u:], out[at*outStep:])
		}
	}
}
