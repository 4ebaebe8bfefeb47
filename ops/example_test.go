package ops_test

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// squarePlusOne is a custom kernel: out = x² + 1 on float32 tensors.
type squarePlusOne struct{}

func (squarePlusOne) Prepare(n *ops.Node) error {
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if in.Type != ops.Float32 || n.Outputs[0].Type != ops.Float32 {
		return errors.New("input 0 and output 0 must be float32")
	}
	n.Outputs[0].Shape = append([]int(nil), in.Shape...)
	return nil
}

func (squarePlusOne) Eval(n *ops.Node) error {
	in, out := n.Inputs[0].Float32s(), n.Outputs[0].Float32s()
	for i, x := range in {
		out[i] = x*x + 1
	}
	return nil
}

// Example registers a custom kernel and runs one node of it by hand, as
// the interpreter does for a model whose operator has that custom code
// (pass the resolver in interpreter.Options.Resolver).
func Example() {
	r := ops.NewResolver()
	r.AddCustom("SquarePlusOne", func() ops.Kernel { return squarePlusOne{} })
	reg, err := r.FindCustom("SquarePlusOne")
	if err != nil {
		fmt.Println(err)
		return
	}
	in := &ops.Tensor{Type: ops.Float32, Shape: []int{3}, Data: make([]byte, 12)}
	if err := in.CopyFrom([]float32{1, 2, 3}); err != nil {
		fmt.Println(err)
		return
	}
	out := &ops.Tensor{Type: ops.Float32}
	n := &ops.Node{OpName: "SquarePlusOne", Op: ops.BuiltinCustom, Version: 1,
		Inputs: []*ops.Tensor{in}, Outputs: []*ops.Tensor{out}}
	k := reg.New()
	if err := k.Prepare(n); err != nil {
		fmt.Println(err)
		return
	}
	out.Data = make([]byte, out.Bytes())
	if err := k.Eval(n); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Shape, out.Float32s())
	// Output: [3] [2 5 10]
}
