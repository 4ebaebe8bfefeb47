package ops

// builtinVersions lists, for each kernel of this package, the operator
// versions it implements: the versions TFLite's BuiltinOpResolver
// registers (tflite/core/kernels/register.cc), minus those whose features
// (per TFLite's op_version.cc) these kernels lack.
var builtinVersions = []struct {
	op     BuiltinOperator
	ranges [][2]int
	newK   func() Kernel
}{
	// TFLite registers 1-14. Missing here: 2 (shuffled weights), 8
	// (sparse weights), 10 and 13 (int4 weights), 14 (int2 weights).
	{OpFullyConnected, [][2]int{{1, 1}, {3, 7}, {9, 9}, {11, 12}}, NewFullyConnected},
	// TFLite 1-3; 3 is int16.
	{OpSoftmax, [][2]int{{1, 2}}, NewSoftmax},
	// TFLite 1-3; 3 is int16.
	{OpLogistic, [][2]int{{1, 2}}, NewLogistic},
	{OpTanh, [][2]int{{1, 2}}, NewTanh},
	{OpRelu, [][2]int{{1, 3}}, NewRelu},
	{OpRelu6, [][2]int{{1, 3}}, NewRelu6},
	{OpReluN1To1, [][2]int{{1, 1}}, NewReluN1To1},
	{OpRelu0To1, [][2]int{{1, 1}}, NewRelu0To1},
	// TFLite 1-5; 5 is non-quantised int16.
	{OpAdd, [][2]int{{1, 4}}, NewAdd},
	{OpSub, [][2]int{{1, 5}}, NewSub},
	// TFLite 1-7; 6 is complex64, 7 non-quantised int16 and uint32.
	{OpMul, [][2]int{{1, 5}}, NewMul},
	{OpReshape, [][2]int{{1, 1}}, NewReshape},
	// TFLite 1-6; 4 and up are int4 (and later) formats.
	{OpQuantize, [][2]int{{1, 3}}, NewQuantize},
	// TFLite 1-8; 4 has no documented meaning in op_version.cc, 6 and up
	// are int4 (and later) formats.
	{OpDequantize, [][2]int{{1, 3}, {5, 5}}, NewDequantize},
	// The kernels below take every version TFLite registers and refuse the
	// type combinations they lack in Prepare, naming them: converters have
	// stamped versions loosely (TensorFlow's own float DS-CNN conversion
	// says CONV_2D v2, nominally the hybrid version) and TFLite runs such
	// models because its kernels, too, dispatch on the tensor types.
	// CONV_2D: hybrid, int16 and int4 filters are refused.
	{OpConv2D, [][2]int{{1, 8}}, NewConv2D},
	// DEPTHWISE_CONV_2D: hybrid, int16 and int4 filters are refused.
	{OpDepthwiseConv2D, [][2]int{{1, 7}}, NewDepthwiseConv2D},
	{OpMaxPool2D, [][2]int{{1, 3}}, NewMaxPool2D},
	{OpAveragePool2D, [][2]int{{1, 3}}, NewAveragePool2D},
	// Data movement and selection kernels: the version ranges TFLite
	// registers; Prepare refuses the types (int4, strings) they lack.
	{OpGather, [][2]int{{1, 7}}, NewGather},
	{OpEqual, [][2]int{{1, 4}}, NewEqual},
	{OpNotEqual, [][2]int{{1, 3}}, NewNotEqual},
	{OpLess, [][2]int{{1, 3}}, NewLess},
	{OpLessEqual, [][2]int{{1, 3}}, NewLessEqual},
	{OpGreater, [][2]int{{1, 3}}, NewGreater},
	{OpGreaterEqual, [][2]int{{1, 3}}, NewGreaterEqual},
	{OpCast, [][2]int{{1, 7}}, NewCast},
	{OpStridedSlice, [][2]int{{1, 8}}, NewStridedSlice},
	{OpTopKV2, [][2]int{{1, 3}}, NewTopKV2},
	{OpMean, [][2]int{{1, 3}}, NewMean},
	{OpConcatenation, [][2]int{{1, 4}}, NewConcatenation},
	{OpPack, [][2]int{{1, 4}}, NewPack},
	{OpUnpack, [][2]int{{1, 4}}, NewUnpack},
	{OpSqueeze, [][2]int{{1, 2}}, NewSqueeze},
	{OpExpandDims, [][2]int{{1, 1}}, NewExpandDims},
	{OpTranspose, [][2]int{{1, 7}}, NewTranspose},
	{OpReverseV2, [][2]int{{1, 3}}, NewReverseV2},
	{OpPad, [][2]int{{1, 5}}, NewPad},
	{OpPadV2, [][2]int{{1, 5}}, NewPad},
	{OpSplit, [][2]int{{1, 4}}, NewSplit},
	{OpSplitV, [][2]int{{1, 2}}, NewSplitV},
	{OpEmbeddingLookup, [][2]int{{1, 4}}, NewEmbeddingLookup},
	// Element-wise math: every version TFLite registers; Prepare refuses
	// the types (quantised int16 tables, uint16) these kernels lack.
	{OpAbs, [][2]int{{1, 5}}, NewAbs},
	{OpNeg, [][2]int{{1, 1}}, NewNeg},
	{OpSquare, [][2]int{{1, 1}}, NewSquare},
	{OpSqrt, [][2]int{{1, 2}}, NewSqrt},
	{OpRsqrt, [][2]int{{1, 3}}, NewRsqrt},
	{OpExp, [][2]int{{1, 2}}, NewExp},
	{OpLog, [][2]int{{1, 2}}, NewLog},
	{OpSin, [][2]int{{1, 1}}, NewSin},
	{OpCos, [][2]int{{1, 1}}, NewCos},
	{OpFloor, [][2]int{{1, 1}}, NewFloor},
	{OpCeil, [][2]int{{1, 1}}, NewCeil},
	{OpRound, [][2]int{{1, 1}}, NewRound},
	{OpSign, [][2]int{{1, 2}}, NewSign},
	{OpLogicalNot, [][2]int{{1, 1}}, NewLogicalNot},
	{OpMaximum, [][2]int{{1, 4}}, NewMaximum},
	{OpMinimum, [][2]int{{1, 4}}, NewMinimum},
	{OpSquaredDifference, [][2]int{{1, 2}}, NewSquaredDifference},
	{OpDiv, [][2]int{{1, 2}}, NewDiv},
	{OpFloorDiv, [][2]int{{1, 3}}, NewFloorDiv},
	{OpFloorMod, [][2]int{{1, 2}}, NewFloorMod},
	{OpPow, [][2]int{{1, 1}}, NewPow},
	// Reductions, index and shape kernels.
	{OpSum, [][2]int{{1, 2}}, NewSum},
	{OpReduceProd, [][2]int{{1, 2}}, NewReduceProd},
	{OpReduceMax, [][2]int{{1, 3}}, NewReduceMax},
	{OpReduceMin, [][2]int{{1, 3}}, NewReduceMin},
	{OpReduceAny, [][2]int{{1, 1}}, NewReduceAny},
	{OpReduceAll, [][2]int{{1, 1}}, NewReduceAll},
	{OpArgMax, [][2]int{{1, 3}}, NewArgMax},
	{OpArgMin, [][2]int{{1, 3}}, NewArgMin},
	{OpSlice, [][2]int{{1, 7}}, NewSlice},
	{OpTile, [][2]int{{1, 3}}, NewTile},
	// BROADCAST_TO version 1 was withdrawn (TFLite registers 2-3).
	{OpBroadcastTo, [][2]int{{2, 3}}, NewBroadcastTo},
	{OpFill, [][2]int{{1, 4}}, NewFill},
	{OpShape, [][2]int{{1, 1}}, NewShape},
	{OpZerosLike, [][2]int{{1, 1}}, NewZerosLike},
	{OpSelect, [][2]int{{1, 4}}, NewSelect},
	{OpSelectV2, [][2]int{{1, 2}}, NewSelectV2},
	// Resizing, activations and the remaining element-wise kernels.
	{OpResizeBilinear, [][2]int{{1, 4}}, NewResizeBilinear},
	{OpResizeNearestNeighbor, [][2]int{{1, 4}}, NewResizeNearestNeighbor},
	{OpLeakyRelu, [][2]int{{1, 2}}, NewLeakyRelu},
	{OpPRelu, [][2]int{{1, 1}}, NewPRelu},
	{OpHardSwish, [][2]int{{1, 1}}, NewHardSwish},
	{OpElu, [][2]int{{1, 1}}, NewElu},
	{OpLogSoftmax, [][2]int{{1, 2}}, NewLogSoftmax},
	{OpAddN, [][2]int{{1, 1}}, NewAddN},
	{OpLogicalAnd, [][2]int{{1, 1}}, NewLogicalAnd},
	{OpLogicalOr, [][2]int{{1, 1}}, NewLogicalOr},
	{OpMirrorPad, [][2]int{{1, 3}}, NewMirrorPad},
}

// RegisterBuiltins adds every kernel of this package to r for the operator
// versions it implements (the builtinVersions table in builtins.go lists
// each operator with its versions). Registering again replaces earlier
// registrations of the same versions.
func RegisterBuiltins(r *Resolver) {
	for _, b := range builtinVersions {
		for _, v := range b.ranges {
			r.AddBuiltin(b.op, v[0], v[1], b.newK)
		}
	}
}
