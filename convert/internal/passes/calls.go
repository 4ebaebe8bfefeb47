package passes

import "github.com/tflrun/tflrun/convert/ir"

// CallTarget returns the function a node calls: the "f" attribute of
// StatefulPartitionedCall/PartitionedCall, or the op itself when it names
// a library function. ok is false for other nodes.
func CallTarget(m *ir.Module, n *ir.Node) (name string, ok bool, err error) {
	if n.TFL != nil {
		return "", false, nil
	}
	switch n.Op {
	case "StatefulPartitionedCall", "PartitionedCall":
		name, err := n.AttrFunc("f")
		if err != nil {
			return "", true, err
		}
		return name, true, nil
	}
	if m != nil {
		if _, isFn := m.Library[n.Op]; isFn {
			return n.Op, true, nil
		}
	}
	return "", false, nil
}

// Specialize returns a private copy of callee bound to call's inputs:
// each parameter takes the input's type check, shape (merged), constant
// value and resolved variable, and the copy is simplified. Errors name a
// count or type mismatch between the call and the function.
func Specialize(callee *ir.Function, call *ir.Node) (*ir.Function, error) {
	if len(call.Inputs) != len(callee.Params) {
		return nil, call.Errorf("calls %s with %d inputs, the function takes %d", callee.Name, len(call.Inputs), len(callee.Params))
	}
	if len(call.Outputs) != len(callee.Results) {
		return nil, call.Errorf("expects %d outputs from %s, the function returns %d", len(call.Outputs), callee.Name, len(callee.Results))
	}
	g := callee.Clone()
	if call.Func != nil {
		g.Budget = call.Func.Budget // one budget per conversion
	}
	for i, p := range g.Params {
		in := call.Inputs[i]
		if in == nil {
			return nil, call.Errorf("input %d is missing", i)
		}
		if p.DType != ir.Invalid && in.DType != ir.Invalid && p.DType != in.DType {
			return nil, call.Errorf("input %d is %s, function %s declares argument %q as %s", i, in.DType, callee.Name, p.Name, p.DType)
		}
		if p.DType == ir.Invalid {
			p.DType = in.DType
		}
		if s, ok := ir.Merge(in.Shape, p.Shape); ok {
			p.Shape = s
		} else {
			p.Shape = in.Shape.Clone() // the call site is the more specific
		}
		p.Const = in.Const
		p.Variable = in.Variable
	}
	if err := Simplify(g); err != nil {
		return nil, err
	}
	// Call outputs learn types and shapes from the specialised results.
	for i, r := range g.Results {
		o := call.Outputs[i]
		if o.DType == ir.Invalid {
			o.DType = r.DType
		}
		if s, ok := ir.Merge(r.Shape, o.Shape); ok {
			o.Shape = s
		} else {
			o.Shape = r.Shape.Clone()
		}
	}
	return g, nil
}
