package interpreter

import (
	"errors"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
)

// Folding a standalone float RELU, RELU6 or RELU_N1_TO_1 into the
// operator that produces its input. MediaPipe's detectors and segmenters
// (and Keras graphs the converter did not fuse) write CONV_2D → RELU or
// ADD → RELU as two operators, so the activation reads and writes the
// whole tensor once more. TensorFlow Lite's XNNPACK delegate fuses such
// a clamp into the producing operator; here the producer is prepared
// with the activation as its fused one, the activation's output shares
// the producer's output buffer (as an in-place RESHAPE does, plan.go),
// and the activation's kernel becomes a copy that finds both sides the
// same memory and does nothing (or copies, where the planner could not
// share the buffer: the data is already clamped, and clamping it again
// would give the same bits).
//
// A producer is CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB or
// MUL with float32 output, whose output has the activation as its one
// reader and is not a subgraph output; the activation's input and output
// are float32 arena tensors. The producer's fused activation must be
// NONE, the same, or compose into one: RELU after RELU6 or RELU6 after
// RELU is RELU6. The results are the unfused graph's bit for bit,
// except that a RELU folded into a producer without an activation turns
// +Inf into FLT_MAX, as TFLite's fused RELU does (its standalone RELU
// keeps +Inf); NaN stays NaN either way.

// foldActs is off only in tests that compare against the unfolded graph.
var foldActs = true

// actFoldable returns the activation node that reads node i's output
// and i's options with that activation fused, or -1.
func (f *padFold) actFoldable(it *Interpreter, i int, isInput []bool) (int, any) {
	if f == nil || !foldActs {
		return -1, nil
	}
	sg := it.sg
	nd := &sg.nodes[i]
	if len(nd.Outputs) != 1 || nd.Outputs[0] == nil {
		return -1, nil
	}
	t := nd.Outputs[0]
	if t.Type != ops.Float32 || isInput[t.Index] || f.readers[t.Index] != 1 || f.producer[t.Index] != i {
		return -1, nil
	}
	a := f.reader[t.Index]
	if a <= i {
		return -1, nil
	}
	an := &sg.nodes[a]
	var act ops.Activation
	switch an.Op {
	case ops.OpRelu:
		act = ops.ActRelu
	case ops.OpRelu6:
		act = ops.ActRelu6
	case ops.OpReluN1To1:
		act = ops.ActReluN1To1
	default:
		return -1, nil
	}
	if len(an.Inputs) != 1 || an.Inputs[0] != t || len(an.Outputs) != 1 || an.Outputs[0] == nil {
		return -1, nil
	}
	if y := an.Outputs[0]; y == t || y.Type != ops.Float32 || isInput[y.Index] {
		return -1, nil
	}
	for _, in := range nd.Inputs {
		if in == t {
			return -1, nil
		}
	}
	if !actProducers[nd.Op] {
		return -1, nil
	}
	var opts any
	switch o := nd.Options.(type) {
	case *builtin.Conv2DOptions:
		opts = withActivation(o, func(v *builtin.Conv2DOptions) *ops.Activation { return &v.Activation }, act)
	case *builtin.DepthwiseConv2DOptions:
		opts = withActivation(o, func(v *builtin.DepthwiseConv2DOptions) *ops.Activation { return &v.Activation }, act)
	case *builtin.FullyConnectedOptions:
		opts = withActivation(o, func(v *builtin.FullyConnectedOptions) *ops.Activation { return &v.Activation }, act)
	case *builtin.AddOptions:
		opts = withActivation(o, func(v *builtin.AddOptions) *ops.Activation { return &v.Activation }, act)
	case *builtin.SubOptions:
		opts = withActivation(o, func(v *builtin.SubOptions) *ops.Activation { return &v.Activation }, act)
	case *builtin.MulOptions:
		opts = withActivation(o, func(v *builtin.MulOptions) *ops.Activation { return &v.Activation }, act)
	}
	if opts == nil {
		return -1, nil
	}
	return a, opts
}

// actProducers are the operators a standalone activation folds into.
var actProducers = map[ops.BuiltinOperator]bool{
	ops.OpConv2D: true, ops.OpDepthwiseConv2D: true, ops.OpFullyConnected: true,
	ops.OpAdd: true, ops.OpSub: true, ops.OpMul: true,
}

// withActivation returns a copy of the options o with the fused
// activation (the field act points to) followed by a, or nil (an untyped
// nil) when the two do not compose.
func withActivation[O any](o *O, field func(*O) *ops.Activation, a ops.Activation) any {
	if o == nil {
		return nil
	}
	v := *o
	f := field(&v)
	c, ok := composeAct(*f, a)
	if !ok {
		return nil
	}
	*f = c
	return &v
}

// composeAct returns the fused activation that is the producer's fused
// activation p followed by the standalone activation a, when there is
// one.
func composeAct(p, a ops.Activation) (ops.Activation, bool) {
	switch {
	case p == ops.ActNone || p == a:
		return a, true
	case p == ops.ActRelu6 && a == ops.ActRelu, p == ops.ActRelu && a == ops.ActRelu6:
		return ops.ActRelu6, true
	}
	return 0, false
}

// prepareActFolded prepares node i with options opts (activation node
// a's activation fused) and marks a for its copy kernel; when that fails
// or the node would not run as an ordinary kernel, i is prepared as the
// model has it.
func (it *Interpreter) prepareActFolded(i, a int, opts any, isInput []bool, writers []int) error {
	sg := it.sg
	nd := &sg.nodes[i]
	before := it.budget.Used()
	orig := nd.Options
	nd.Options = opts
	err := it.prepareNode(i, isInput, writers)
	if err == nil && fusable(nd) && nd.Outputs[0].Kind == ops.ArenaTensor {
		nd.actRerouted = true
		sg.nodes[a].actFolded = true
		return nil
	}
	it.budget.SetUsed(before)
	nd.Options = orig
	return it.prepareNode(i, isInput, writers)
}

// finishActFold gives prepared activation node a, whose producer applies
// its activation, the copy kernel, unless it does not run as an ordinary
// kernel with its input's shape (it then applies the activation again,
// which changes nothing).
func (it *Interpreter) finishActFold(a int) {
	nd := &it.sg.nodes[a]
	in, out := nd.Inputs[0], nd.Outputs[0]
	if !fusable(nd) || in.Kind != ops.ArenaTensor || out.Kind != ops.ArenaTensor || !slicesEqual(in.Shape, out.Shape) {
		return
	}
	nd.kernel = foldedActKernel{}
}

var errShortFolded = errors.New("folded activation: tensor data is shorter than its shape requires")

// foldedActKernel is a folded activation's kernel: output 0 is input 0.
type foldedActKernel struct{}

func (foldedActKernel) Prepare(n *ops.Node) error { return nil }

func (foldedActKernel) Eval(n *ops.Node) error {
	in, out := n.Inputs[0], n.Outputs[0]
	b := in.Bytes()
	if len(in.Data) < b || len(out.Data) < b {
		return errShortFolded
	}
	if b > 0 && unsafe.SliceData(in.Data) == unsafe.SliceData(out.Data) {
		return nil
	}
	copy(out.Data[:b], in.Data[:b])
	return nil
}
