package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Squeeze is the kernel of TFLite's SQUEEZE operator: input 0's data under
// its shape with size-1 dimensions removed, either those listed in
// SqueezeOptions.SqueezeDims (negative counting from the end; each must
// have size 1) or, when the list is empty, all of them. Any fixed-size
// element type. Matches TFLite's squeeze.cc; the data is copied.
type Squeeze struct{ bytes int }

// NewSqueeze returns a SQUEEZE kernel for one node.
func NewSqueeze() ops.Kernel { return &Squeeze{} }

// Prepare validates the node and sets the output shape.
func (k *Squeeze) Prepare(n *ops.Node) error {
	*k = Squeeze{}
	var opts ops.SqueezeOptions
	if o, ok := n.Options.(*ops.SqueezeOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *SqueezeOptions", n.Options)
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	rank := in.Rank()
	drop := make([]bool, rank)
	if len(opts.SqueezeDims) == 0 {
		for i, d := range in.Shape {
			drop[i] = d == 1
		}
	}
	for _, sd := range opts.SqueezeDims {
		d := sd
		if d < 0 {
			d += rank
		}
		if d < 0 || d >= rank {
			return fmt.Errorf("options: squeeze dimension %d is outside an input of rank %d", sd, rank)
		}
		if in.Shape[d] != 1 {
			return fmt.Errorf("options: squeeze dimension %d has size %d, need 1", sd, in.Shape[d])
		}
		drop[d] = true
	}
	shape := []int{}
	for i, d := range in.Shape {
		if !drop[i] {
			shape = append(shape, d)
		}
	}
	out.Shape = shape
	k.bytes = in.Bytes()
	return nil
}

// unaryCopyIO is the common Prepare of the kernels that only rearrange
// their single data input: one input of a fixed-size type (extra inputs,
// such as an axis, are allowed), one output of the same type.
func unaryCopyIO(n *ops.Node) (in, out *ops.Tensor, err error) {
	if len(n.Outputs) != 1 {
		return nil, nil, fmt.Errorf("has %d outputs, needs 1", len(n.Outputs))
	}
	if in, err = n.RequireInput(0); err != nil {
		return nil, nil, err
	}
	if out = n.Output(0); out == nil {
		return nil, nil, errors.New("output 0 is missing")
	}
	if in.Type.Size() == 0 {
		return nil, nil, fmt.Errorf("input 0: type %s is not supported", in.Type)
	}
	if out.Type != in.Type {
		return nil, nil, fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// copyEval copies n bytes from input 0 to output 0.
func copyEval(n *ops.Node, bytes int) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil || len(in.Data) < bytes || len(out.Data) < bytes {
		return errShortData
	}
	copy(out.Data[:bytes], in.Data[:bytes])
	return nil
}

// Eval copies the data.
func (k *Squeeze) Eval(n *ops.Node) error { return copyEval(n, k.bytes) }
