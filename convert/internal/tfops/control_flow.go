package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
)

// controlFlowOps are the loops, conditionals, TF1 loop frames and the
// TensorList/TensorArray ops of loop bodies that package controlflow
// functionalises, unrolls, resolves and lowers before legalisation; their
// records give the importer their outputs.
var controlFlowOps = []struct {
	name, outputs string
	minInputs     int
}{
	{"While", "output:[T]", 0},
	{"StatelessWhile", "output:[T]", 0},
	{"If", "output:[Tout]", 1},
	{"StatelessIf", "output:[Tout]", 1},
	{"Enter", "output:T", 1},
	{"Exit", "output:T", 1},
	{"Merge", "output:T value_index:=int32", 1},
	{"Switch", "output_false:T output_true:T", 2},
	{"NextIteration", "output:T", 1},
	{"LoopCond", "output:=bool", 1},
	{"TensorListReserve", "handle:=variant", 2},
	{"TensorListFromTensor", "output_handle:=variant", 2},
	{"TensorListStack", "tensor:element_dtype", 2},
	{"TensorListGetItem", "item:element_dtype", 3},
	{"TensorListSetItem", "output_handle:=variant", 3},
	{"TensorListLength", "length:=int32", 1},
	{"TensorListGather", "values:element_dtype", 3},
	{"TensorListElementShape", "element_shape:shape_type", 1},
	{"TensorListPushBack", "output_handle:=variant", 2},
	{"TensorListPopBack", "output_handle:=variant tensor:element_dtype", 2},
	{"TensorArrayV3", "handle:=resource flow:=float", 1},
	{"TensorArrayScatterV3", "flow_out:=float", 4},
	{"TensorArrayWriteV3", "flow_out:=float", 4},
	{"TensorArrayReadV3", "value:dtype", 3},
	{"TensorArrayGatherV3", "value:dtype", 3},
	{"TensorArraySizeV3", "size:=int32", 2},
}

func init() {
	for _, op := range controlFlowOps {
		ir.RegisterOp(ir.OpRecord{Name: op.name, Outputs: op.outputs, MinInputs: op.minInputs, NoLegalize: byControlFlow})
	}
}
