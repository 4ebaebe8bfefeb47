package builtin_test

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
)

// Example runs one ADD node by hand, the way the interpreter does: look the
// kernel up in a resolver, Prepare (which sets the output shape), give the
// output and the requested scratch their memory, then Eval.
func Example() {
	r := ops.NewResolver()
	builtin.RegisterBuiltins(r)
	reg, err := r.FindBuiltin(ops.OpAdd, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	a := &ops.Tensor{Name: "a", Type: ops.Float32, Shape: []int{2, 2}, Data: make([]byte, 16)}
	b := &ops.Tensor{Name: "b", Type: ops.Float32, Shape: []int{2}, Data: make([]byte, 8)}
	out := &ops.Tensor{Name: "sum", Type: ops.Float32}
	if err := a.CopyFrom([]float32{1, 2, 3, 4}); err != nil {
		fmt.Println(err)
		return
	}
	if err := b.CopyFrom([]float32{10, 20}); err != nil {
		fmt.Println(err)
		return
	}
	n := &ops.Node{OpName: "ADD", Op: ops.OpAdd, Version: 1, Inputs: []*ops.Tensor{a, b}, Outputs: []*ops.Tensor{out}}
	k := reg.New()
	if err := k.Prepare(n); err != nil {
		fmt.Println(err)
		return
	}
	out.Data = make([]byte, out.Bytes())
	for _, size := range n.ScratchSizes() {
		n.Scratch = append(n.Scratch, make([]byte, size))
	}
	if err := k.Eval(n); err != nil {
		fmt.Println(err)
		return
	}
	sum := make([]float32, out.NumElements())
	if err := out.CopyTo(sum); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Shape, sum)
	// Output: [2 2] [11 22 13 24]
}
