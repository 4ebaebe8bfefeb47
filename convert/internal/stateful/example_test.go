package stateful_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/stateful"
	"github.com/tflrun/tflrun/convert/ir"
)

// A variable the graph writes (AssignVariableOp) is state the converted
// model keeps across invocations; one it only reads is a constant.
func ExampleMarkState() {
	m := ir.NewModule(nil, nil)
	f := ir.NewFunction("main", m)
	x := f.AddParam("x", ir.Float32, ir.Shape{2})
	handle := func(v *ir.Variable) *ir.Value {
		h := f.NewNode(v.Name, "VarHandleOp", nil, 1)
		h.Outputs[0].DType, h.Outputs[0].Shape, h.Outputs[0].Variable = ir.Resource, ir.Scalar(), v
		return h.Outputs[0]
	}
	state := &ir.Variable{Name: "rnn/state", Key: "s", Value: ir.FromFloat32s(ir.Shape{2}, []float32{0, 0})}
	bias := &ir.Variable{Name: "dense/bias", Key: "b", Value: ir.FromFloat32s(ir.Shape{2}, []float32{1, 1})}
	hs, hb := handle(state), handle(bias)
	read := f.NewNode("read", "ReadVariableOp", []*ir.Value{hb}, 1)
	read.SetAttrType("dtype", ir.Float32)
	add := f.NewNode("add", "AddV2", []*ir.Value{x, read.Outputs[0]}, 1)
	add.SetAttrType("T", ir.Float32)
	assign := f.NewNode("assign", "AssignVariableOp", []*ir.Value{hs, add.Outputs[0]}, 0)
	assign.SetAttrType("dtype", ir.Float32)
	f.Results = []*ir.Value{add.Outputs[0]}

	vars, err := stateful.MarkState(f, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range vars {
		fmt.Println(v.Name, v.State)
	}
	fmt.Println(bias.State)
	// Output:
	// rnn/state true
	// false
}
