package tfpb_test

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// The TensorFlow protos are ordinary protobuf messages: a NodeDef with a
// type attribute survives a round trip through its wire form.
func ExampleNodeDef() {
	n := &tfpb.NodeDef{
		Name: "relu", Op: "Relu", Input: []string{"x"},
		Attr: map[string]*tfpb.AttrValue{"T": {Value: &tfpb.AttrValue_Type{Type: tfpb.DataType_DT_FLOAT}}},
	}
	b, err := proto.Marshal(n)
	if err != nil {
		fmt.Println(err)
		return
	}
	var back tfpb.NodeDef
	if err := proto.Unmarshal(b, &back); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.GetName(), back.GetOp(), back.GetInput(), back.GetAttr()["T"].GetType())
	// Output:
	// relu Relu [x] DT_FLOAT
}
