// Package optimize is the converter's peephole pass over legalised
// functions (TFLite operators): the rewrites TensorFlow Lite's converter
// applies after legalisation (its tfl-optimize pass) that tflrun needs to
// write the same models, namely folding per-channel affine constants into
// a preceding convolution or fully connected layer and fusing RELU, RELU6
// and RELU_N1_TO_1 into the producing operator's fused activation.
package optimize

import (
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Func applies TFLite-converter peephole optimisations to a legalised
// function (package legalize), repeating until nothing changes:
//
//   - MUL by a per-output-channel constant directly after CONV_2D,
//     DEPTHWISE_CONV_2D or FULLY_CONNECTED (constant weights and bias, no
//     fused activation, no other user) scales the weights and bias
//     instead; ADD or SUB of such a constant is added to the bias. This is
//     how batch normalisation and BiasAdd disappear into convolutions.
//   - RELU, RELU6 and RELU_N1_TO_1 directly after an operator with a
//     fused-activation option (and no other user) become that option.
//
// The arithmetic is float32, as TensorFlow's converter folds.
func Func(f *ir.Function) error {
	if err := f.TopoSort(); err != nil {
		return err
	}
	defer f.TrackUses()()
	// The rewrites are found in topological order, each (n, next) pair
	// where next is n's only user; a rewrite at n may enable another at n
	// (FULLY_CONNECTED, ADD, RELU), never one at a node before it, so one
	// pass over the order finds them all. At most maxRewrites are made,
	// as the converter always has (lifting the bound changes models).
	dead := map[*ir.Node]bool{}
	rewrites := 0
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if dead[n] {
			continue
		}
		for {
			next := soleUser(f, n, dead)
			if next == nil {
				break
			}
			if rewrites == maxRewrites-1 {
				// The last rewrite is made on the graph sorted again, and
				// the constants it makes stay at the end, as they did when
				// each rewrite was followed by a fresh sort.
				f.RemoveNodes(dead)
				if err := f.TopoSort(); err != nil {
					return err
				}
				if !rewrite(f, n, next) {
					break
				}
				f.RemoveUnused()
				return nil
			}
			if !rewrite(f, n, next) {
				break
			}
			dead[next] = true
			rewrites++
		}
	}
	f.RemoveNodes(dead)
	if err := f.TopoSort(); err != nil {
		return err
	}
	f.RemoveUnused()
	return nil
}

// maxRewrites bounds the rewrites of one Func.
const maxRewrites = 64

// soleUser returns the TFLite operator that is the only user of n's one
// output (which is not a result), or nil.
func soleUser(f *ir.Function, n *ir.Node, dead map[*ir.Node]bool) *ir.Node {
	if n.TFL == nil || len(n.Outputs) != 1 || f.IsResult(n.Outputs[0]) {
		return nil
	}
	var next *ir.Node
	count := 0
	for _, u := range f.Users(n.Outputs[0]) {
		if !dead[u] {
			next = u
			count++
		}
	}
	if count != 1 || next.TFL == nil {
		return nil
	}
	return next
}

// rewrite folds next into n (see Func), reporting whether it did.
func rewrite(f *ir.Function, n, next *ir.Node) bool {
	return foldAffine(f, n, next) || fuseActivation(f, n, next)
}

// channelAxis is the output-channel axis of an operator's weights, or -1
// when the operator cannot absorb a per-channel scale.
func channelAxis(n *ir.Node) int {
	switch n.TFL.Builtin {
	case schema.BuiltinOperatorCONV_2D, schema.BuiltinOperatorFULLY_CONNECTED:
		return 0
	case schema.BuiltinOperatorDEPTHWISE_CONV_2D:
		return 3
	}
	return -1
}

// activationOf returns the fused activation of an operator's options
// (ok=false when it has none).
func activationOf(n *ir.Node) (schema.ActivationFunctionType, bool) {
	if n.TFL.Options == nil {
		return 0, false
	}
	switch o := n.TFL.Options.Value.(type) {
	case *schema.Conv2DOptionsT:
		return o.FusedActivationFunction, true
	case *schema.DepthwiseConv2DOptionsT:
		return o.FusedActivationFunction, true
	case *schema.FullyConnectedOptionsT:
		return o.FusedActivationFunction, true
	case *schema.AddOptionsT:
		return o.FusedActivationFunction, true
	case *schema.SubOptionsT:
		return o.FusedActivationFunction, true
	case *schema.MulOptionsT:
		return o.FusedActivationFunction, true
	case *schema.DivOptionsT:
		return o.FusedActivationFunction, true
	case *schema.Pool2DOptionsT:
		return o.FusedActivationFunction, true
	case *schema.ConcatenationOptionsT:
		return o.FusedActivationFunction, true
	}
	return 0, false
}

func setActivation(n *ir.Node, a schema.ActivationFunctionType) {
	switch o := n.TFL.Options.Value.(type) {
	case *schema.Conv2DOptionsT:
		o.FusedActivationFunction = a
	case *schema.DepthwiseConv2DOptionsT:
		o.FusedActivationFunction = a
	case *schema.FullyConnectedOptionsT:
		o.FusedActivationFunction = a
	case *schema.AddOptionsT:
		o.FusedActivationFunction = a
	case *schema.SubOptionsT:
		o.FusedActivationFunction = a
	case *schema.MulOptionsT:
		o.FusedActivationFunction = a
	case *schema.DivOptionsT:
		o.FusedActivationFunction = a
	case *schema.Pool2DOptionsT:
		o.FusedActivationFunction = a
	case *schema.ConcatenationOptionsT:
		o.FusedActivationFunction = a
	}
}

var activations = map[schema.BuiltinOperator]schema.ActivationFunctionType{
	schema.BuiltinOperatorRELU:         schema.ActivationFunctionTypeRELU,
	schema.BuiltinOperatorRELU6:        schema.ActivationFunctionTypeRELU6,
	schema.BuiltinOperatorRELU_N1_TO_1: schema.ActivationFunctionTypeRELU_N1_TO_1,
}

func fuseActivation(f *ir.Function, n, next *ir.Node) bool {
	act, ok := activations[next.TFL.Builtin]
	if !ok || next.Inputs[0] != n.Outputs[0] {
		return false
	}
	cur, has := activationOf(n)
	if !has || cur != schema.ActivationFunctionTypeNONE || !n.Outputs[0].DType.IsFloat() {
		return false
	}
	setActivation(n, act)
	out := next.Outputs[0]
	n.Outputs[0].Name = out.Name
	f.ReplaceAllUses(out, n.Outputs[0])
	return true
}

// perChannel returns the constant operand of a binary op after n as one
// float32 value per output channel (k channels), broadcasting a scalar;
// ok is false for any other shape.
func perChannel(next *ir.Node, n *ir.Node, k int) ([]float32, bool) {
	if len(next.Inputs) != 2 {
		return nil, false
	}
	var c *ir.Value
	switch {
	case next.Inputs[0] == n.Outputs[0]:
		c = next.Inputs[1]
	case next.Inputs[1] == n.Outputs[0] && next.TFL.Builtin != schema.BuiltinOperatorSUB:
		c = next.Inputs[0]
	default:
		return nil, false
	}
	if c == nil || c.Const == nil || c.Const.DType != ir.Float32 {
		return nil, false
	}
	total := c.Const.NumElements()
	for i, d := range c.Const.Shape {
		if i < len(c.Const.Shape)-1 && d != 1 {
			return nil, false // varies along a non-channel axis
		}
	}
	v := c.Const.Float32s()
	switch total {
	case k:
		return v, true
	case 1:
		out := make([]float32, k)
		for i := range out {
			out[i] = v[0]
		}
		return out, true
	}
	return nil, false
}

func foldAffine(f *ir.Function, n, next *ir.Node) bool {
	axis := channelAxis(n)
	if axis < 0 || len(n.Inputs) < 3 {
		return false
	}
	if act, _ := activationOf(n); act != schema.ActivationFunctionTypeNONE {
		return false
	}
	w, b := n.Inputs[1], n.Inputs[2]
	if w == nil || w.Const == nil || w.Const.DType != ir.Float32 {
		return false
	}
	if next.TFL.Options != nil {
		if act, _ := activationOf(next); act != schema.ActivationFunctionTypeNONE {
			return false
		}
	}
	ws := w.Const.Shape
	k := ws[axis]
	out := n.Outputs[0].Shape
	if len(out) == 0 || out[len(out)-1] != k || !next.Outputs[0].Shape.Equal(out) {
		return false
	}
	var bias []float32
	if b == nil {
		bias = make([]float32, k)
	} else if b.Const != nil && b.Const.DType == ir.Float32 && b.Const.NumElements() == k {
		bias = b.Const.Float32s()
	} else {
		return false
	}
	vals, ok := perChannel(next, n, k)
	if !ok {
		return false
	}
	switch next.TFL.Builtin {
	case schema.BuiltinOperatorMUL:
		wv := w.Const.Float32s()
		inner := 1
		for _, d := range ws[axis+1:] {
			inner *= d
		}
		for i := range wv {
			wv[i] *= vals[(i/inner)%k]
		}
		for i := range bias {
			bias[i] *= vals[i]
		}
		f.SetInput(n, 1, f.NewConst(w.Name, ir.FromFloat32s(ws, wv)))
	case schema.BuiltinOperatorADD:
		for i := range bias {
			bias[i] += vals[i]
		}
	case schema.BuiltinOperatorSUB:
		for i := range bias {
			bias[i] -= vals[i]
		}
	default:
		return false
	}
	name := n.Name + "/bias"
	if b != nil {
		name = b.Name
	}
	f.SetInput(n, 2, f.NewConst(name, ir.FromFloat32s(ir.Shape{k}, bias)))
	o := next.Outputs[0]
	n.Outputs[0].Name = o.Name
	f.ReplaceAllUses(o, n.Outputs[0])
	return true
}
