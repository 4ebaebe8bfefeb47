package optimize_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/optimize"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// A RELU after a FULLY_CONNECTED becomes the fully connected layer's fused
// activation, and a per-channel MUL after it scales its weights and bias.
func ExampleFunc() {
	f := ir.NewFunction("f", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1, 2})
	w := f.NewConst("w", ir.FromFloat32s(ir.Shape{3, 2}, []float32{1, 2, 3, 4, 5, 6}))
	b := f.NewConst("b", ir.FromFloat32s(ir.Shape{3}, []float32{1, 1, 1}))
	out := ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{1, 3}}
	fc := f.NewTFL("fc", &ir.TFLOp{Builtin: schema.BuiltinOperatorFULLY_CONNECTED, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}}},
		[]*ir.Value{x, w, b}, out)
	scale := f.NewConst("scale", ir.FromFloat32s(ir.Shape{3}, []float32{2, 2, 2}))
	mul := f.NewTFL("mul", &ir.TFLOp{Builtin: schema.BuiltinOperatorMUL, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}},
		[]*ir.Value{fc.Outputs[0], scale}, out)
	relu := f.NewTFL("relu", &ir.TFLOp{Builtin: schema.BuiltinOperatorRELU, Version: 1}, []*ir.Value{mul.Outputs[0]}, out)
	f.Results = []*ir.Value{relu.Outputs[0]}

	if err := optimize.Func(f); err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range f.Nodes {
		if n.TFL != nil {
			o := n.TFL.Options.Value.(*schema.FullyConnectedOptionsT)
			fmt.Println(n.OpName(), o.FusedActivationFunction, n.Inputs[1].Const, n.Inputs[2].Const)
		}
	}
	// Output:
	// tfl.FULLY_CONNECTED RELU float32[3 2] = [2 4 6 8 10 12] float32[3] = [2 2 2]
}
