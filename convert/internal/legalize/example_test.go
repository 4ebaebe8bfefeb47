package legalize_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/legalize"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

// A simplified function of TensorFlow ops becomes TFLite operators; an op
// without a legalisation is an error naming the node.
func ExampleFunc() {
	f := ir.NewFunction("f", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1, 4})
	relu := f.NewNode("relu", "Relu", []*ir.Value{x}, 1)
	relu.Attrs["T"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: ir.Float32.TF()}}
	relu.Outputs[0].DType, relu.Outputs[0].Shape = ir.Float32, ir.Shape{1, 4}
	f.Results = []*ir.Value{relu.Outputs[0]}
	if err := legalize.Func(f); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Nodes[0].OpName(), f.Results[0].Name, f.Results[0].Shape)

	g := ir.NewFunction("g", nil)
	y := g.AddParam("y", ir.Float32, ir.Shape{8})
	fft := g.NewNode("fft", "RFFT", []*ir.Value{y}, 1)
	g.Results = []*ir.Value{fft.Outputs[0]}
	fmt.Println(legalize.Func(g))
	// Output:
	// tfl.RELU relu [1 4]
	// function g: node "fft" (op RFFT): no TFLite legalisation for op RFFT
}
