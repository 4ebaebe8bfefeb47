package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

var sequenceRNNRoles = ioRoles{"input", "weights", "recurrent_weights", "bias", "hidden_state"}

// UnidirectionalSequenceRNN is the kernel of TFLite's
// UNIDIRECTIONAL_SEQUENCE_RNN (unidirectional_sequence_rnn.cc), versions
// 1–3: the RNN cell of RNN applied over a whole sequence.
//
// Inputs: 0 input [max_time, batch, n_input] when time_major, else [batch,
// max_time, n_input], float32; 1 weights [units, n_input]; 2
// recurrent_weights [units, units]; 3 bias [units] float32; 4 hidden_state
// [batch, units] float32, a variable tensor carried from step to step and
// from one Eval to the next. Output 0: the input's shape with the last
// dimension units, float32. Options: *SequenceRNNOptions (nil means
// batch-major, activation NONE, symmetric).
//
// Paths as RNN: float32 weights, or hybrid int8 weights with float
// activations (symmetric or asymmetric dynamic input quantisation). As in
// TFLite, time-major input runs each step over the whole batch at once
// (the all-zero test that skips a product looks at the whole batch) and
// batch-major input runs each sequence on its own; both give each row the
// same result.
type UnidirectionalSequenceRNN struct {
	prepared         bool
	act              ops.Activation
	asym, timeMajor  bool
	batch, maxTime   int
	cell             rnnCell
	scratch          rnnHybridScratchIDs
	sizes            ioSizes
	scratchRows      int
	scratchRowsWidth int
}

// NewUnidirectionalSequenceRNN returns a kernel for one
// UNIDIRECTIONAL_SEQUENCE_RNN node.
func NewUnidirectionalSequenceRNN() ops.Kernel { return &UnidirectionalSequenceRNN{} }

// SequenceRNNOptions is TFLite's SequenceRNNOptions (operator
// UNIDIRECTIONAL_SEQUENCE_RNN).
type SequenceRNNOptions struct {
	// TimeMajor: input is [time, batch, input] when true, [batch, time,
	// input] when false.
	TimeMajor                bool
	Activation               ops.Activation
	AsymmetricQuantizeInputs bool
}

func init() {
	// Versions 1–3 as TFLite registers: float, hybrid, asymmetric hybrid.
	register(ops.OpUnidirectionalSequenceRNN, NewUnidirectionalSequenceRNN, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsSequenceRNNOptions, decodeSequenceRNNOptions)
}

// decodeSequenceRNNOptions decodes TFLite's SequenceRNNOptions table.
func decodeSequenceRNNOptions(t ops.OptionsTable) (any, error) {
	var o schema.SequenceRNNOptions
	initTable(&o, t)
	return &SequenceRNNOptions{
		TimeMajor:                o.TimeMajor(),
		Activation:               ops.Activation(o.FusedActivationFunction()),
		AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
	}, nil
}

// Prepare validates the node (TFLite's checks plus types, the state being
// a variable and the weights' quantisation), sets the output shape and the
// state's batch, and requests the hybrid scratch. Errors name the input.
func (k *UnidirectionalSequenceRNN) Prepare(n *ops.Node) error {
	k.prepared = false
	if err := n.CheckIO(5, 5, 1); err != nil {
		return err
	}
	opts := &SequenceRNNOptions{}
	if n.Options != nil {
		o, ok := n.Options.(*SequenceRNNOptions)
		if !ok {
			return fmt.Errorf("options are %T, need *SequenceRNNOptions", n.Options)
		}
		opts = o
	}
	if err := rnnActivation(opts.Activation); err != nil {
		return err
	}
	k.act, k.asym, k.timeMajor = opts.Activation, opts.AsymmetricQuantizeInputs, opts.TimeMajor
	roles := sequenceRNNRoles
	in, err := roles.require(n, rnnInput)
	if err != nil {
		return err
	}
	if err := roles.rank(n, rnnInput, 3); err != nil {
		return err
	}
	if err := floatInput(n, roles, rnnInput); err != nil {
		return err
	}
	if k.timeMajor {
		k.maxTime, k.batch = in.Dim(0), in.Dim(1)
	} else {
		k.batch, k.maxTime = in.Dim(0), in.Dim(1)
	}
	wtype, err := weightPath(n, roles, rnnWeights)
	if err != nil {
		return err
	}
	k.cell = rnnCell{nInput: in.Dim(2), w: rnnWeights, aux: -1, rec: rnnRecurrent, bias: rnnBias}
	if err := prepareCell(n, roles, &k.cell, wtype); err != nil {
		return err
	}
	u := k.cell.units
	if err := checkSteps(k.maxTime, k.batch, k.cell.nInput, u); err != nil {
		return err
	}
	if err := roles.state(n, rnnHiddenState, k.batch, u); err != nil {
		return err
	}
	if err := roles.dtype(n, rnnHiddenState, ops.Float32, "float and hybrid"); err != nil {
		return err
	}
	if err := floatOutput(n, 0); err != nil {
		return err
	}
	if _, err := outputShape(n, 0, in.Dim(0), in.Dim(1), u); err != nil {
		return err
	}
	if wtype != ops.Float32 {
		// Time-major steps quantise the whole batch; batch-major ones a
		// single row.
		k.scratchRows = 1
		if k.timeMajor {
			k.scratchRows = k.batch
		}
		k.scratchRowsWidth = max(k.cell.nInput, u)
		k.scratch.request(n, k.scratchRows, k.scratchRowsWidth, u)
	}
	k.sizes.record(n)
	k.prepared = true
	return nil
}

// Eval runs the sequence, carrying the hidden state over from the previous
// Eval. It allocates nothing.
func (k *UnidirectionalSequenceRNN) Eval(n *ops.Node) error {
	if !k.prepared {
		return errUnprepared
	}
	if err := k.sizes.check(n); err != nil {
		return err
	}
	c := &k.cell
	v := c.views(n)
	x := n.Inputs[rnnInput].Float32s()
	h := n.Inputs[rnnHiddenState].Float32s()
	out := n.Outputs[0].Float32s()
	var s rnnHybridScratch
	if c.hybrid {
		var err error
		if s, err = k.scratch.views(n, k.scratchRows, k.scratchRowsWidth, c.units); err != nil {
			return err
		}
	}
	nIn, u, batch := c.nInput, c.units, k.batch
	step := func(x []float32, rows int, h, out []float32) {
		if c.hybrid {
			c.stepHybrid(&v, x, nil, rows, k.act, k.asym, h, out, u, &s)
		} else {
			c.stepFloat(&v, x, nil, rows, k.act, h, out, u)
		}
	}
	if batch == 0 {
		return nil // no row to advance (time-major would loop over empty steps)
	}
	if k.timeMajor {
		for t := 0; t < k.maxTime; t++ {
			step(x[t*batch*nIn:], batch, h, out[t*batch*u:])
		}
		return nil
	}
	for b := 0; b < batch; b++ {
		for t := 0; t < k.maxTime; t++ {
			at := b*k.maxTime + t
			step(x[at*nIn:], 1, h[b*u:], out[at*u:])
		}
	}
	return nil
}
