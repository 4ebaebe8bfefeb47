package flex_test

import (
	"fmt"
	"log"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/internal/tfnodedef"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// A model with two Flex operators, as TensorFlow's converter writes
// them (custom code "Flex<Op>", custom_options [op name, NodeDef]), runs
// in the default interpreter: TensorListFromTensor splits a [3, 2]
// tensor into a list of three items, TensorListGetItem reads one back.
func Example() {
	b := optest.NewBuilder()
	tensor := b.Tensor("tensor", schema.TensorTypeFLOAT32, []int32{3, 2}, nil)
	index := b.Tensor("index", schema.TensorTypeINT32, []int32{}, nil)
	item := b.Tensor("item", schema.TensorTypeFLOAT32, []int32{2}, nil)
	list := b.Tensor("list", schema.TensorTypeVARIANT, []int32{}, nil)
	elementShape := b.Const("element_shape", schema.TensorTypeINT32, []int32{1}, nil, optest.I32(2))
	b.Inputs(tensor, index)
	b.Outputs(item)
	float := tfnodedef.AttrValue{Kind: tfnodedef.KindType, Type: tfnodedef.DTFloat}
	for _, op := range []struct {
		name    string
		attr    map[string]tfnodedef.AttrValue
		in, out []int32
	}{
		{"TensorListFromTensor", map[string]tfnodedef.AttrValue{"element_dtype": float,
			"shape_type": {Kind: tfnodedef.KindType, Type: tfnodedef.DTInt32}}, []int32{tensor, elementShape}, []int32{list}},
		{"TensorListGetItem", map[string]tfnodedef.AttrValue{"element_dtype": float}, []int32{list, index, elementShape}, []int32{item}},
	} {
		opts, err := tfnodedef.FlexOptions(&tfnodedef.NodeDef{Name: op.name, Op: op.name, Attr: op.attr})
		if err != nil {
			log.Fatal(err)
		}
		b.Custom("Flex"+op.name, op.in, op.out, opts)
	}

	model, err := interpreter.LoadBytes(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	it, err := interpreter.New(model, nil) // DefaultResolver has the Flex TensorList kernels
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		log.Fatal(err)
	}
	it.Input(0).CopyFrom([]float32{1, 2, 3, 4, 5, 6})
	it.Input(1).CopyFrom([]int32{2})
	if err := it.Invoke(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(it.Output(0).Shape, it.Output(0).Float32s())
	it.Input(1).CopyFrom([]int32{3})
	fmt.Println(it.Invoke())
	// Output:
	// [2] [5 6]
	// FlexTensorListGetItem v1 (operator 1, subgraph 0): input 1 (index): trying to access element 3 in a list with 3 elements
}
