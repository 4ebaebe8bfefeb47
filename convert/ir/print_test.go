package ir_test

import (
	"os"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func typeAttr(d ir.DType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: d.TF()}}
}

// A function of TensorFlow nodes and TFLite operators, printed.
func ExampleFunction_Print() {
	f := ir.NewFunction("serving_default", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1, 3})
	w := f.NewConst("w", ir.FromFloat32s(ir.Shape{3, 2}, []float32{0.5, -1, 2, 0.25, 3, 1e-3}))
	mm := f.NewNode("dense/MatMul", "MatMul", []*ir.Value{x, w}, 1)
	mm.Attrs["T"] = typeAttr(ir.Float32)
	mm.Attrs["transpose_b"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: false}}
	mm.Attrs["_output_shapes"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{}}}
	mm.Outputs[0].DType, mm.Outputs[0].Shape = ir.Float32, ir.Shape{1, 2}
	fc := f.NewTFL("dense/fc", &ir.TFLOp{Builtin: schema.BuiltinOperatorFULLY_CONNECTED, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions,
			Value: &schema.FullyConnectedOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeRELU, KeepNumDims: true}}},
		[]*ir.Value{x, w, nil}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{1, 2}})
	f.Results, f.ResultNames = []*ir.Value{mm.Outputs[0], fc.Outputs[0]}, []string{"output_0", "output_1"}
	if err := f.Print(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// func serving_default(%x: float32[1 3]) -> (output_0, output_1) {
	//   %w = Const : float32[3 2] {0.5, -1, 2, 0.25, …}
	//   %dense/MatMul = MatMul(%x, %w) {T: float32, transpose_b: false} : float32[1 2]
	//   %dense/fc = tfl.FULLY_CONNECTED(%x, %w, -) {v1, FusedActivationFunction: RELU, KeepNumDims: true} : float32[1 2]
	//   return %dense/MatMul, %dense/fc
	// }
}

// TestPrintValues: multiple outputs, names that need quoting, variables,
// quantisation, string and list attributes, and a function left as it was.
func TestPrintValues(t *testing.T) {
	f := ir.NewFunction("f", nil)
	h := f.NewNode("var handle", "VarHandleOp", nil, 1)
	h.Outputs[0].DType, h.Outputs[0].Shape = ir.Resource, ir.Shape{}
	h.Outputs[0].Variable = &ir.Variable{Name: "lstm/Variable", State: true}
	h.Attrs["shared_name"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(strings.Repeat("a", 40))}}
	sp := f.NewNode("split", "Split", []*ir.Value{h.Outputs[0]}, 2)
	sp.Attrs["num_split"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: 2}}
	sp.Attrs["sizes"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{I: []int64{1, 2, 3, 4, 5, 6, 7}}}}
	q := f.NewConst("q", ir.FromInt32s(ir.Shape{2}, []int32{3, -4}))
	q.Quant = &ir.Quantization{Scale: []float32{0.125}, ZeroPoint: []int64{-1}}
	f.Results, f.ResultNames = []*ir.Value{sp.Outputs[1], q}, []string{"a", "b"}
	before := append([]*ir.Node(nil), f.Nodes...)
	var b strings.Builder
	if err := f.Print(&b); err != nil {
		t.Fatal(err)
	}
	want := `func f() -> (a, b) {
  %"var handle" = VarHandleOp {shared_name: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"…} : resource[] var "lstm/Variable" (state)
  %split, %split:1 = Split(%"var handle") {num_split: 2, sizes: [1, 2, 3, 4, 5, 6, … (7)]} : invalid[*], invalid[*]
  %q = Const : int32[2] {3, -4} q(scale 0.125, zero point -1)
  return %split:1, %q
}
`
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
	for i, n := range f.Nodes {
		if n != before[i] {
			t.Fatalf("Print reordered the nodes")
		}
	}
}
