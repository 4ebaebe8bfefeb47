package ir

import (
	"strings"

	"github.com/tflrun/tflrun/convert/tfpb"
)

// builtinOutputs gives the output arguments of common TensorFlow ops, for
// graphs that carry no op list (frozen GraphDefs, hand-written .pbtxt) or
// whose list leaves out the ops used inside functions (SavedModels written
// by TensorFlow 2.2–2.4 strip only the main graph's ops). FunctionDef
// bodies name tensors "node:output_arg:index", so the argument names and
// sizes are needed to find the flat output index.
//
// Each entry is a space-separated list of "name:TYPE" where TYPE is
//
//	=dtype          a fixed type (=int32, =bool, =resource, =variant, ...)
//	attr            the type in attribute attr
//	attr=dtype      the same, with that default when the attribute is absent
//	TYPE*numattr    a list of numattr tensors of that type
//	[listattr]      a list of tensors whose types are in attribute listattr
//
// The names and layouts are those of TensorFlow's op registrations.
var builtinOutputs = map[string]string{
	"Const": "output:dtype", "Placeholder": "output:dtype", "PlaceholderWithDefault": "output:dtype",
	"Identity": "output:T", "IdentityN": "output:[T]", "StopGradient": "output:T", "Snapshot": "output:T",
	"PreventGradient": "output:T", "CheckNumerics": "output:T", "EnsureShape": "output:T",
	"NoOp": "", "AssignVariableOp": "", "AssignAddVariableOp": "", "AssignSubVariableOp": "",
	"DisableCopyOnRead": "", "SaveV2": "", "MergeV2Checkpoints": "",
	"ReadVariableOp": "value:dtype", "VarHandleOp": "resource:=resource", "VariableV2": "ref:dtype",
	"ResourceGather": "output:dtype", "GatherV2": "output:Tparams", "Gather": "output:Tparams",
	"MatMul": "product:T", "BatchMatMul": "output:T", "BatchMatMulV2": "output:T", "BatchMatMulV3": "output:Tout",
	"BiasAdd": "output:T", "BiasAddV1": "output:T", "Einsum": "output:T",
	"Conv2D": "output:T", "DepthwiseConv2dNative": "output:T", "Conv1D": "output:T",
	"MaxPool": "output:T", "MaxPoolV2": "output:T", "AvgPool": "output:T",
	"Relu": "activations:T", "Relu6": "activations:T", "Elu": "activations:T", "Selu": "activations:T",
	"LeakyRelu": "activations:T", "Softplus": "activations:T", "Softsign": "activations:T",
	"Sigmoid": "y:T", "Tanh": "y:T", "Softmax": "softmax:T", "LogSoftmax": "logsoftmax:T",
	"Neg": "y:T", "Abs": "y:T", "Sqrt": "y:T", "Rsqrt": "y:T", "Exp": "y:T", "Log": "y:T", "Log1p": "y:T",
	"Square": "y:T", "Floor": "y:T", "Ceil": "y:T", "Round": "y:T", "Sin": "y:T", "Cos": "y:T",
	"Reciprocal": "y:T", "Inv": "y:T", "Sign": "y:T", "Erf": "y:T", "ZerosLike": "y:T", "OnesLike": "y:T",
	"Add": "z:T", "AddV2": "z:T", "Sub": "z:T", "Mul": "z:T", "RealDiv": "z:T", "Div": "z:T",
	"DivNoNan": "z:T", "Maximum": "z:T", "Minimum": "z:T", "Pow": "z:T", "SquaredDifference": "z:T",
	"FloorDiv": "z:T", "FloorMod": "z:T", "MulNoNan": "z:T",
	"Less": "z:=bool", "LessEqual": "z:=bool", "Greater": "z:=bool", "GreaterEqual": "z:=bool",
	"Equal": "z:=bool", "NotEqual": "z:=bool", "LogicalAnd": "z:=bool", "LogicalOr": "z:=bool",
	"LogicalNot": "y:=bool",
	"Select":     "output:T", "SelectV2": "output:T", "AddN": "sum:T", "ClipByValue": "output:T",
	"Reshape": "output:T", "Squeeze": "output:T", "ExpandDims": "output:T",
	"ConcatV2": "output:T", "Concat": "output:T", "Pack": "output:T", "Unpack": "output:T*num",
	"Split": "output:T*num_split", "SplitV": "output:T*num_split",
	"StridedSlice": "output:T", "Slice": "output:T", "Transpose": "y:T", "ReverseV2": "output:T",
	"Mean": "output:T", "Sum": "output:T", "Max": "output:T", "Min": "output:T", "Prod": "output:T",
	"All": "output:=bool", "Any": "output:=bool",
	"ArgMax": "output:output_type=int64", "ArgMin": "output:output_type=int64",
	"Pad": "output:T", "PadV2": "output:T", "MirrorPad": "output:T",
	"Cast": "y:DstT", "Shape": "output:out_type=int32", "ShapeN": "output:out_type=int32*N",
	"Size": "output:out_type=int32", "Rank": "output:=int32",
	"Fill": "output:T", "Range": "output:Tidx=int32", "Tile": "output:T", "BroadcastTo": "output:T",
	"BroadcastArgs": "r0:T", "OneHot": "output:T", "Where": "index:=int64", "Cumsum": "out:T",
	"TopKV2":           "values:T indices:index_type=int32",
	"FusedBatchNorm":   "y:T batch_mean:T batch_variance:T reserve_space_1:T reserve_space_2:T",
	"FusedBatchNormV2": "y:T batch_mean:U batch_variance:U reserve_space_1:U reserve_space_2:U",
	"FusedBatchNormV3": "y:T batch_mean:U batch_variance:U reserve_space_1:U reserve_space_2:U reserve_space_3:U",
	"ResizeBilinear":   "resized_images:=float", "ResizeNearestNeighbor": "resized_images:T",
	"StatefulPartitionedCall": "output:[Tout]", "PartitionedCall": "output:[Tout]",
	"While": "output:[T]", "StatelessWhile": "output:[T]", "If": "output:[Tout]", "StatelessIf": "output:[Tout]",
	"TensorListReserve": "handle:=variant", "TensorListFromTensor": "output_handle:=variant",
	"TensorListStack": "tensor:element_dtype", "TensorListGetItem": "item:element_dtype",
	"TensorListSetItem": "output_handle:=variant", "TensorListLength": "length:=int32",
	"TensorListGather": "values:element_dtype", "TensorListElementShape": "element_shape:shape_type",
	"TensorListPushBack": "output_handle:=variant", "TensorListPopBack": "output_handle:=variant tensor:element_dtype",
	"TensorArrayV3": "handle:=resource flow:=float", "TensorArrayScatterV3": "flow_out:=float",
	"TensorArrayWriteV3": "flow_out:=float", "TensorArrayReadV3": "value:dtype",
	"TensorArrayGatherV3": "value:dtype", "TensorArraySizeV3": "size:=int32",
	"RestoreV2": "tensors:[dtypes]", "ShardedFilename": "filename:=string", "StringJoin": "output:=string",
	"StaticRegexFullMatch": "output:=bool", "RandomUniform": "output:dtype",
	"RFFT": "output:Tcomplex=complex64", "IRFFT": "output:Treal=float", "ComplexAbs": "y:Tout=float",
	"Angle": "output:Tout=float", "Complex": "out:Tout=complex64", "Real": "output:Tout=float", "Imag": "output:Tout=float",
	"Merge": "output:T value_index:=int32", "Switch": "output_false:T output_true:T",
	"Enter": "output:T", "Exit": "output:T", "NextIteration": "output:T", "LoopCond": "output:=bool",
	"Mfcc": "output:=float", "AudioSpectrogram": "spectrogram:=float", "DecodeWav": "audio:=float sample_rate:=int32",
}

var dtypeNames = map[string]tfpb.DataType{
	"float": tfpb.DataType_DT_FLOAT, "double": tfpb.DataType_DT_DOUBLE, "int32": tfpb.DataType_DT_INT32,
	"int64": tfpb.DataType_DT_INT64, "bool": tfpb.DataType_DT_BOOL, "string": tfpb.DataType_DT_STRING,
	"resource": tfpb.DataType_DT_RESOURCE, "variant": tfpb.DataType_DT_VARIANT, "complex64": tfpb.DataType_DT_COMPLEX64,
}

// builtinOpDef returns the OpDef of a builtin-table op (outputs and type
// attribute defaults only), or nil.
func builtinOpDef(op string) *tfpb.OpDef {
	spec, ok := builtinOutputs[op]
	if !ok {
		return nil
	}
	od := &tfpb.OpDef{Name: op}
	for _, field := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(field, ":")
		arg := &tfpb.OpDef_ArgDef{Name: name}
		if t, num, ok := strings.Cut(typ, "*"); ok {
			arg.NumberAttr = num
			typ = t
		}
		switch {
		case strings.HasPrefix(typ, "["):
			arg.TypeListAttr = strings.Trim(typ, "[]")
		case strings.HasPrefix(typ, "="):
			arg.Type = dtypeNames[typ[1:]]
		default:
			attr, def, hasDef := strings.Cut(typ, "=")
			arg.TypeAttr = attr
			if hasDef {
				od.Attr = append(od.Attr, &tfpb.OpDef_AttrDef{Name: attr, Type: "type",
					DefaultValue: &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: dtypeNames[def]}}})
			}
		}
		od.OutputArg = append(od.OutputArg, arg)
	}
	return od
}

// OpDef returns the definition of op: from the model's op list when it has
// one, else from tflrun's built-in table; nil when neither knows it.
func (m *Module) OpDef(op string) *tfpb.OpDef {
	if m != nil {
		if od, ok := m.OpDefs[op]; ok {
			return od
		}
	}
	return builtinOpDef(op)
}
