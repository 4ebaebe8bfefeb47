package controlflow_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/controlflow"
	"github.com/tflrun/tflrun/convert/ir"
)

// A TensorFlow 1 loop (Enter/Merge/Switch/NextIteration/Exit nodes) is what
// FunctionalizeV1 rewrites into a While; HasV1Loops finds one.
func ExampleHasV1Loops() {
	f := ir.NewFunction("f", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1})
	enter := f.NewNode("while/Enter", "Enter", []*ir.Value{x}, 1)
	f.Results = []*ir.Value{enter.Outputs[0]}
	fmt.Println(controlflow.HasV1Loops(f))
	fmt.Println(controlflow.IsListOp("TensorListReserve"), controlflow.IsListOp("MatMul"))
	// Output:
	// true
	// true false
}
