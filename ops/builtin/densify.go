package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Densify is the kernel of TFLite's DENSIFY operator: it turns a sparse
// constant (a weight stored with SparsityParameters, see package
// internal/sparse) into the dense tensor of the same shape and type.
// TFLite expands the sparse buffer at the first Eval and keeps the result
// in a persistent output (densify.cc). A sparse constant that only DENSIFY
// operators read reaches this kernel still sparse (ops.Tensor.Densify set)
// and Eval expands it; the interpreter runs that Eval once, at
// AllocateTensors (a precomputed output). Any other sparse constant was
// expanded when the model was loaded, and Eval copies it. Types as
// TFLite's Eval: float32, float16 and int8; the input must be a constant,
// as there. Version 1, as TFLite's register.cc.
type Densify struct {
	bytes int
}

// NewDensify returns a DENSIFY kernel for one node.
func NewDensify() ops.Kernel { return &Densify{} }

func init() { register(ops.OpDensify, NewDensify, [2]int{1, 1}) }

// Prepare validates the node and sets the output shape.
func (k *Densify) Prepare(n *ops.Node) error {
	k.bytes = 0
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Float16, ops.Int8); err != nil {
		return err
	}
	if !in.IsConstant() && !(in.Kind == ops.ConstTensor && in.Densify != nil) {
		return fmt.Errorf("input 0: %s is not a constant; DENSIFY expands constant (sparse) weights only", in)
	}
	setShape(out, in.Shape)
	k.bytes = in.Bytes()
	return nil
}

// Eval copies the dense weights to the output.
func (k *Densify) Eval(n *ops.Node) error {
	if n.Input(0) == nil || n.Output(0) == nil {
		return errors.New("DENSIFY: input or output missing at Eval")
	}
	if in := n.Input(0); in.Densify != nil {
		out := n.Output(0)
		if len(out.Data) < k.bytes {
			return errShortData
		}
		if err := in.Densify(out.Data[:k.bytes]); err != nil {
			return fmt.Errorf("input 0: %w", err)
		}
		return nil
	}
	return copyEval(n, k.bytes)
}
