package tflite_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Write a legalised function (one FULLY_CONNECTED) as a .tflite model and
// run it through its signature.
func ExampleWrite() {
	f := ir.NewFunction("main", nil)
	x := f.AddParam("x:0", ir.Float32, ir.Shape{1, 2})
	w := f.NewConst("w", ir.FromFloat32s(ir.Shape{2, 2}, []float32{1, 2, 3, 4}))
	b := f.NewConst("b", ir.FromFloat32s(ir.Shape{2}, []float32{0.5, -0.5}))
	fc := f.NewTFL("fc", &ir.TFLOp{Builtin: schema.BuiltinOperatorFULLY_CONNECTED, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}}},
		[]*ir.Value{x, w, b}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{1, 2}})
	f.Results = []*ir.Value{fc.Outputs[0]}
	f.ResultNames = []string{"Identity:0"}
	data, err := tflite.Write(f, tflite.Signature{Key: "serving_default", InputNames: []string{"x"}, OutputNames: []string{"y"}}, "example")
	if err != nil {
		fmt.Println(err)
		return
	}

	model, err := interpreter.LoadBytes(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := interpreter.NewSignatureRunner(model, "serving_default", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	if err := r.AllocateTensors(); err != nil {
		fmt.Println(err)
		return
	}
	in, _ := r.Input("x")
	if err := in.CopyFrom([]float32{1, 1}); err != nil {
		fmt.Println(err)
		return
	}
	if err := r.Invoke(); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := r.Output("y")
	fmt.Println(out.Name, out.Float32s())
	// Output:
	// Identity:0 [3.5 6.5]
}
