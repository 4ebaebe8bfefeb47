package passes_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/ir"
)

// Simplify infers shapes, bypasses identities and drops the nodes no
// result needs.
func ExampleSimplify() {
	f := ir.NewFunction("f", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{2, 3})
	id := f.NewNode("id", "Identity", []*ir.Value{x}, 1)
	id.SetAttrType("T", ir.Float32)
	relu := f.NewNode("relu", "Relu", []*ir.Value{id.Outputs[0]}, 1)
	relu.SetAttrType("T", ir.Float32)
	unused := f.NewNode("unused", "Neg", []*ir.Value{x}, 1)
	unused.SetAttrType("T", ir.Float32)
	f.Results = []*ir.Value{relu.Outputs[0]}

	if err := passes.Simplify(f); err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range f.Nodes {
		fmt.Println(n.Name, n.Op, n.Outputs[0].Shape)
	}
	// Output:
	// relu Relu [2 3]
}
