package builtin

import "github.com/tflrun/tflrun/ops"

// builtinVersions lists, for each kernel of this package, the operator
// versions it implements: the versions TFLite's BuiltinOpResolver
// registers (tflite/core/kernels/register.cc), minus those whose features
// (per TFLite's op_version.cc) these kernels lack.
var builtinVersions = []struct {
	op     ops.BuiltinOperator
	ranges [][2]int
	newK   func() ops.Kernel
}{
	// TFLite registers 1-14. Missing here: 2 (shuffled weights), 8
	// (sparse weights), 10 and 13 (int4 weights), 14 (int2 weights).
	{ops.OpFullyConnected, [][2]int{{1, 1}, {3, 7}, {9, 9}, {11, 12}}, NewFullyConnected},
	// TFLite 1-3; 3 is int16.
	{ops.OpSoftmax, [][2]int{{1, 2}}, NewSoftmax},
	// TFLite 1-3; 3 is int16.
	{ops.OpLogistic, [][2]int{{1, 2}}, NewLogistic},
	{ops.OpTanh, [][2]int{{1, 2}}, NewTanh},
	{ops.OpRelu, [][2]int{{1, 3}}, NewRelu},
	{ops.OpRelu6, [][2]int{{1, 3}}, NewRelu6},
	{ops.OpReluN1To1, [][2]int{{1, 1}}, NewReluN1To1},
	{ops.OpRelu0To1, [][2]int{{1, 1}}, NewRelu0To1},
	// TFLite 1-5; 5 is non-quantised int16.
	{ops.OpAdd, [][2]int{{1, 4}}, NewAdd},
	{ops.OpSub, [][2]int{{1, 5}}, NewSub},
	// TFLite 1-7; 6 is complex64, 7 non-quantised int16 and uint32.
	{ops.OpMul, [][2]int{{1, 5}}, NewMul},
	{ops.OpReshape, [][2]int{{1, 1}}, NewReshape},
	// TFLite 1-6; 4 and up are int4 (and later) formats.
	{ops.OpQuantize, [][2]int{{1, 3}}, NewQuantize},
	// TFLite 1-8; 4 has no documented meaning in op_version.cc, 6 and up
	// are int4 (and later) formats.
	{ops.OpDequantize, [][2]int{{1, 3}, {5, 5}}, NewDequantize},
	// The kernels below take every version TFLite registers and refuse the
	// type combinations they lack in Prepare, naming them: converters have
	// stamped versions loosely (TensorFlow's own float DS-CNN conversion
	// says CONV_2D v2, nominally the hybrid version) and TFLite runs such
	// models because its kernels, too, dispatch on the tensor types.
	// CONV_2D: hybrid, int16 and int4 filters are refused.
	{ops.OpConv2D, [][2]int{{1, 8}}, NewConv2D},
	// DEPTHWISE_CONV_2D: hybrid, int16 and int4 filters are refused.
	{ops.OpDepthwiseConv2D, [][2]int{{1, 7}}, NewDepthwiseConv2D},
	{ops.OpMaxPool2D, [][2]int{{1, 3}}, NewMaxPool2D},
	{ops.OpAveragePool2D, [][2]int{{1, 3}}, NewAveragePool2D},
	// Data movement and selection kernels: the version ranges TFLite
	// registers; Prepare refuses the types (int4, strings) they lack.
	{ops.OpGather, [][2]int{{1, 7}}, NewGather},
	{ops.OpEqual, [][2]int{{1, 4}}, NewEqual},
	{ops.OpNotEqual, [][2]int{{1, 3}}, NewNotEqual},
	{ops.OpLess, [][2]int{{1, 3}}, NewLess},
	{ops.OpLessEqual, [][2]int{{1, 3}}, NewLessEqual},
	{ops.OpGreater, [][2]int{{1, 3}}, NewGreater},
	{ops.OpGreaterEqual, [][2]int{{1, 3}}, NewGreaterEqual},
	{ops.OpCast, [][2]int{{1, 7}}, NewCast},
	{ops.OpStridedSlice, [][2]int{{1, 8}}, NewStridedSlice},
	{ops.OpTopKV2, [][2]int{{1, 3}}, NewTopKV2},
	{ops.OpMean, [][2]int{{1, 3}}, NewMean},
	{ops.OpConcatenation, [][2]int{{1, 4}}, NewConcatenation},
	{ops.OpPack, [][2]int{{1, 4}}, NewPack},
	{ops.OpUnpack, [][2]int{{1, 4}}, NewUnpack},
	{ops.OpSqueeze, [][2]int{{1, 2}}, NewSqueeze},
	{ops.OpExpandDims, [][2]int{{1, 1}}, NewExpandDims},
	{ops.OpTranspose, [][2]int{{1, 7}}, NewTranspose},
	{ops.OpReverseV2, [][2]int{{1, 3}}, NewReverseV2},
	{ops.OpPad, [][2]int{{1, 5}}, NewPad},
	{ops.OpPadV2, [][2]int{{1, 5}}, NewPad},
	{ops.OpSplit, [][2]int{{1, 4}}, NewSplit},
	{ops.OpSplitV, [][2]int{{1, 2}}, NewSplitV},
	{ops.OpEmbeddingLookup, [][2]int{{1, 4}}, NewEmbeddingLookup},
	// Element-wise math: every version TFLite registers; Prepare refuses
	// the types (quantised int16 tables, uint16) these kernels lack.
	{ops.OpAbs, [][2]int{{1, 5}}, NewAbs},
	{ops.OpNeg, [][2]int{{1, 1}}, NewNeg},
	{ops.OpSquare, [][2]int{{1, 1}}, NewSquare},
	{ops.OpSqrt, [][2]int{{1, 2}}, NewSqrt},
	{ops.OpRsqrt, [][2]int{{1, 3}}, NewRsqrt},
	{ops.OpExp, [][2]int{{1, 2}}, NewExp},
	{ops.OpLog, [][2]int{{1, 2}}, NewLog},
	{ops.OpSin, [][2]int{{1, 1}}, NewSin},
	{ops.OpCos, [][2]int{{1, 1}}, NewCos},
	{ops.OpFloor, [][2]int{{1, 1}}, NewFloor},
	{ops.OpCeil, [][2]int{{1, 1}}, NewCeil},
	{ops.OpRound, [][2]int{{1, 1}}, NewRound},
	{ops.OpSign, [][2]int{{1, 2}}, NewSign},
	{ops.OpLogicalNot, [][2]int{{1, 1}}, NewLogicalNot},
	{ops.OpMaximum, [][2]int{{1, 4}}, NewMaximum},
	{ops.OpMinimum, [][2]int{{1, 4}}, NewMinimum},
	{ops.OpSquaredDifference, [][2]int{{1, 2}}, NewSquaredDifference},
	{ops.OpDiv, [][2]int{{1, 2}}, NewDiv},
	{ops.OpFloorDiv, [][2]int{{1, 3}}, NewFloorDiv},
	{ops.OpFloorMod, [][2]int{{1, 2}}, NewFloorMod},
	{ops.OpPow, [][2]int{{1, 1}}, NewPow},
	// Reductions, index and shape kernels.
	{ops.OpSum, [][2]int{{1, 2}}, NewSum},
	{ops.OpReduceProd, [][2]int{{1, 2}}, NewReduceProd},
	{ops.OpReduceMax, [][2]int{{1, 3}}, NewReduceMax},
	{ops.OpReduceMin, [][2]int{{1, 3}}, NewReduceMin},
	{ops.OpReduceAny, [][2]int{{1, 1}}, NewReduceAny},
	{ops.OpReduceAll, [][2]int{{1, 1}}, NewReduceAll},
	{ops.OpArgMax, [][2]int{{1, 3}}, NewArgMax},
	{ops.OpArgMin, [][2]int{{1, 3}}, NewArgMin},
	{ops.OpSlice, [][2]int{{1, 7}}, NewSlice},
	{ops.OpTile, [][2]int{{1, 3}}, NewTile},
	// BROADCAST_TO version 1 was withdrawn (TFLite registers 2-3).
	{ops.OpBroadcastTo, [][2]int{{2, 3}}, NewBroadcastTo},
	{ops.OpFill, [][2]int{{1, 4}}, NewFill},
	{ops.OpShape, [][2]int{{1, 1}}, NewShape},
	{ops.OpZerosLike, [][2]int{{1, 1}}, NewZerosLike},
	{ops.OpSelect, [][2]int{{1, 4}}, NewSelect},
	{ops.OpSelectV2, [][2]int{{1, 2}}, NewSelectV2},
	// Resizing, activations and the remaining element-wise kernels.
	{ops.OpResizeBilinear, [][2]int{{1, 4}}, NewResizeBilinear},
	{ops.OpResizeNearestNeighbor, [][2]int{{1, 4}}, NewResizeNearestNeighbor},
	{ops.OpLeakyRelu, [][2]int{{1, 2}}, NewLeakyRelu},
	{ops.OpPRelu, [][2]int{{1, 1}}, NewPRelu},
	{ops.OpHardSwish, [][2]int{{1, 1}}, NewHardSwish},
	{ops.OpElu, [][2]int{{1, 1}}, NewElu},
	{ops.OpLogSoftmax, [][2]int{{1, 2}}, NewLogSoftmax},
	{ops.OpAddN, [][2]int{{1, 1}}, NewAddN},
	{ops.OpLogicalAnd, [][2]int{{1, 1}}, NewLogicalAnd},
	{ops.OpLogicalOr, [][2]int{{1, 1}}, NewLogicalOr},
	{ops.OpMirrorPad, [][2]int{{1, 3}}, NewMirrorPad},
}

// RegisterBuiltins adds every kernel of this package to r for the operator
// versions it implements (the builtinVersions table in register.go lists
// each operator with its versions). Registering again replaces earlier
// registrations of the same versions.
func RegisterBuiltins(r *ops.Resolver) {
	for _, b := range builtinVersions {
		for _, v := range b.ranges {
			r.AddBuiltin(b.op, v[0], v[1], b.newK)
		}
	}
}
