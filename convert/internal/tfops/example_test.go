package tfops_test

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tfops"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

// An op's record drives shape inference and constant folding: AddV2 of a
// [2, 1] and a [3] constant broadcasts to [2, 3] and folds.
func Example() {
	f := ir.NewFunction("f", nil)
	a := f.NewConst("a", ir.FromFloat32s(ir.Shape{2, 1}, []float32{1, 2}))
	b := f.NewConst("b", ir.FromFloat32s(ir.Shape{3}, []float32{10, 20, 30}))
	add := f.NewNode("add", "AddV2", []*ir.Value{a, b}, 1)
	add.Attrs["T"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: ir.Float32.TF()}}

	r, _ := ir.LookupOp("AddV2")
	fmt.Println(r.Name, r.Outputs, r.MinInputs, r.Legalize != nil)
	if err := tfops.Infer(add); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(add.Outputs[0].DType, add.Outputs[0].Shape)
	out, err := tfops.Fold(add)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0])
	// Output:
	// AddV2 z:T 2 true
	// float32 [2 3]
	// float32[2 3] = [11 21 31 12 22 32]
}
