package schema_test

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/schema"
)

// Build a model with the object API, verify the bytes before reading them
// with the generated accessors, and see a truncated copy refused.
func ExampleVerifyModel() {
	m := &schema.ModelT{
		Version:     3,
		Description: "one tensor",
		Buffers:     []*schema.BufferT{{}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{{Name: "x", Shape: []int32{1, 4}, Type: schema.TensorTypeFLOAT32}},
			Inputs:  []int32{0},
			Outputs: []int32{0},
		}},
	}
	b := flatbuffers.NewBuilder(256)
	b.FinishWithFileIdentifier(m.Pack(b), []byte(schema.ModelIdentifier))
	buf := b.FinishedBytes()

	if err := schema.VerifyModel(buf); err != nil {
		fmt.Println(err)
		return
	}
	model := schema.GetRootAsModel(buf, 0)
	var sg schema.SubGraph
	model.Subgraphs(&sg, 0)
	var t schema.Tensor
	sg.Tensors(&t, 0)
	fmt.Printf("%s: tensor %q %s\n", model.Description(), t.Name(), t.Type())

	fmt.Println(schema.VerifyModel(buf[:len(buf)/2]) != nil)
	// Output:
	// one tensor: tensor "x" FLOAT32
	// true
}
