package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// RNN input indices (TFLite's basic_rnn.cc).
const (
	rnnInput       = 0
	rnnWeights     = 1
	rnnRecurrent   = 2
	rnnBias        = 3
	rnnHiddenState = 4
)

var rnnRoles = ioRoles{"input", "weights", "recurrent_weights", "bias", "hidden_state"}

// RNN is the kernel of TFLite's builtin RNN (basic_rnn.cc), versions 1–3:
// one time step of a fully connected recurrent layer,
//
//	output = act(bias + weights·input + recurrent_weights·h);  h = output
//
// Inputs: 0 input [batch, n_input] float32; 1 weights [units, n_input];
// 2 recurrent_weights [units, units]; 3 bias [units] float32; 4
// hidden_state [batch, units] float32, a variable tensor read and updated
// by every Eval. Output 0: [batch, units] float32. Options:
// *RNNOptions (nil means defaults: activation NONE, symmetric).
//
// Paths: float32 weights (TFLite's EvalFloat), and hybrid int8 weights
// with float activations (EvalHybrid): the input and the hidden state are
// quantised to int8 per batch row at every step, symmetrically or, with
// asymmetric_quantize_inputs, asymmetrically with row-sum corrections;
// the weights need one per-tensor scale and zero point 0. uint8 weights
// are read as int8 bit patterns, as TFLite does (the legacy hybrid form).
//
// The fused activation is applied as TFLite's ApplyActivationToVector
// (NONE, RELU, RELU_N1_TO_1, RELU6, TANH, SIGN_BIT). The state's batch
// dimension follows the input's, so resizing the input's batch re-sizes
// the state at the next AllocateTensors.
type RNN struct {
	prepared bool
	act      ops.Activation
	asym     bool
	batch    int
	cell     rnnCell
	scratch  rnnHybridScratchIDs
	sizes    ioSizes
}

// NewRNN returns a kernel for one RNN node.
func NewRNN() ops.Kernel { return &RNN{} }

// RNNOptions is TFLite's RNNOptions (operator RNN).
type RNNOptions struct {
	Activation ops.Activation
	// AsymmetricQuantizeInputs selects per-batch asymmetric quantisation
	// of the float activations in the hybrid (int8 weights) path.
	AsymmetricQuantizeInputs bool
}

func init() {
	// Versions 1–3 as TFLite registers: float, hybrid, asymmetric hybrid.
	register(ops.OpRNN, NewRNN, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsRNNOptions, decodeRNNOptions)
}

// decodeRNNOptions decodes TFLite's RNNOptions table.
func decodeRNNOptions(t ops.OptionsTable) (any, error) {
	var o schema.RNNOptions
	initTable(&o, t)
	return &RNNOptions{
		Activation:               ops.Activation(o.FusedActivationFunction()),
		AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
	}, nil
}

// Prepare validates the node as TFLite's Prepare does (plus ranks, types of
// every tensor, the state being a variable, and the weights' quantisation
// on the hybrid path), sets the output shape and the state's batch, and
// requests the hybrid scratch. Errors name the input.
func (k *RNN) Prepare(n *ops.Node) error {
	k.prepared = false
	if err := n.CheckIO(5, 5, 1); err != nil {
		return err
	}
	opts := &RNNOptions{}
	if n.Options != nil {
		o, ok := n.Options.(*RNNOptions)
		if !ok {
			return fmt.Errorf("options are %T, need *RNNOptions", n.Options)
		}
		opts = o
	}
	if err := rnnActivation(opts.Activation); err != nil {
		return err
	}
	k.act, k.asym = opts.Activation, opts.AsymmetricQuantizeInputs
	in, err := rnnRoles.require(n, rnnInput)
	if err != nil {
		return err
	}
	if err := rnnRoles.rank(n, rnnInput, 2); err != nil {
		return err
	}
	if err := floatInput(n, rnnRoles, rnnInput); err != nil {
		return err
	}
	wtype, err := weightPath(n, rnnRoles, rnnWeights)
	if err != nil {
		return err
	}
	k.batch = in.Dim(0)
	k.cell = rnnCell{nInput: in.Dim(1), w: rnnWeights, aux: -1, rec: rnnRecurrent, bias: rnnBias}
	if err := prepareCell(n, rnnRoles, &k.cell, wtype); err != nil {
		return err
	}
	u := k.cell.units
	if err := rnnRoles.state(n, rnnHiddenState, k.batch, u); err != nil {
		return err
	}
	if err := rnnRoles.dtype(n, rnnHiddenState, ops.Float32, "float and hybrid"); err != nil {
		return err
	}
	if err := floatOutput(n, 0); err != nil {
		return err
	}
	if _, err := outputShape(n, 0, k.batch, u); err != nil {
		return err
	}
	if wtype != ops.Float32 {
		k.scratch.request(n, k.batch, max(k.cell.nInput, u), u)
	}
	k.sizes.record(n)
	k.prepared = true
	return nil
}

// Eval runs one step, reading and updating the hidden state. It allocates
// nothing.
func (k *RNN) Eval(n *ops.Node) error {
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
	if !c.hybrid {
		c.stepFloat(&v, x, nil, k.batch, k.act, h, out, c.units)
		return nil
	}
	s, err := k.scratch.views(n, k.batch, max(c.nInput, c.units), c.units)
	if err != nil {
		return err
	}
	c.stepHybrid(&v, x, nil, k.batch, k.act, k.asym, h, out, c.units, &s)
	return nil
}
