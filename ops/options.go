package ops

import "strconv"

// This file declares the decoded builtin options tables kernels receive in
// Node.Options. Field meanings and defaults are those of the matching
// tables in TFLite's schema.fbs; the interpreter fills them from the model
// (a missing field takes the schema default).

// Activation is a fused activation function, numbered as TFLite's
// ActivationFunctionType.
type Activation int8

// Fused activations (TFLite ActivationFunctionType numbering).
const (
	ActNone      Activation = 0
	ActRelu      Activation = 1
	ActReluN1To1 Activation = 2
	ActRelu6     Activation = 3
	ActTanh      Activation = 4
	ActSignBit   Activation = 5
)

// String returns the schema name of the activation ("RELU6").
func (a Activation) String() string {
	switch a {
	case ActNone:
		return "NONE"
	case ActRelu:
		return "RELU"
	case ActReluN1To1:
		return "RELU_N1_TO_1"
	case ActRelu6:
		return "RELU6"
	case ActTanh:
		return "TANH"
	case ActSignBit:
		return "SIGN_BIT"
	}
	return "ACTIVATION(" + strconv.Itoa(int(a)) + ")"
}

// FullyConnectedOptions is TFLite's FullyConnectedOptions.
type FullyConnectedOptions struct {
	Activation Activation
	// WeightsFormat is 0 (DEFAULT) or 1 (SHUFFLED4x16INT8).
	WeightsFormat int8
	// KeepNumDims keeps the input's leading dimensions in the output
	// instead of flattening them into one batch dimension.
	KeepNumDims bool
	// AsymmetricQuantizeInputs selects asymmetric input quantisation in
	// the hybrid (float input, int8 weights) path.
	AsymmetricQuantizeInputs bool
	// QuantizedBiasType is the bias type of a quantised FC (Float32 = 0
	// means "the default for the input type").
	QuantizedBiasType DataType
}

// SoftmaxOptions is TFLite's SoftmaxOptions.
type SoftmaxOptions struct {
	Beta float32
}

// AddOptions is TFLite's AddOptions.
type AddOptions struct {
	Activation Activation
	// PotScaleInt16 selects the power-of-two-scale int16 path (schema
	// default true).
	PotScaleInt16 bool
}

// SubOptions is TFLite's SubOptions.
type SubOptions struct {
	Activation    Activation
	PotScaleInt16 bool
}

// MulOptions is TFLite's MulOptions.
type MulOptions struct {
	Activation Activation
}

// ReshapeOptions is TFLite's ReshapeOptions. NewShape is nil when the
// model does not give the field.
type ReshapeOptions struct {
	NewShape []int
}

// LSTMKernelType is TFLite's LSTMKernelType.
type LSTMKernelType int8

// LSTM kernel types.
const (
	LSTMFull  LSTMKernelType = 0
	LSTMBasic LSTMKernelType = 1
)

// LSTMOptions is TFLite's LSTMOptions (operator LSTM).
type LSTMOptions struct {
	Activation               Activation
	CellClip                 float32
	ProjClip                 float32
	KernelType               LSTMKernelType
	AsymmetricQuantizeInputs bool
}

// UnidirectionalSequenceLSTMOptions is TFLite's
// UnidirectionalSequenceLSTMOptions.
type UnidirectionalSequenceLSTMOptions struct {
	Activation Activation
	CellClip   float32
	ProjClip   float32
	// TimeMajor: input is [time, batch, input] when true, [batch, time,
	// input] when false.
	TimeMajor                bool
	AsymmetricQuantizeInputs bool
	// DiagonalRecurrentTensors: recurrent weights are diagonal vectors
	// [n_cell] instead of matrices (version 4).
	DiagonalRecurrentTensors bool
}

// BidirectionalSequenceLSTMOptions is TFLite's
// BidirectionalSequenceLSTMOptions. A model that omits the table gets
// TFLite's zero parameters (TimeMajor false, MergeOutputs false); a table
// that omits time_major gets the schema default, true.
type BidirectionalSequenceLSTMOptions struct {
	Activation Activation
	CellClip   float32
	ProjClip   float32
	// MergeOutputs concatenates the forward and backward outputs into
	// output 0 (the node then has one output).
	MergeOutputs bool
	// TimeMajor: input is [time, batch, input] when true, [batch, time,
	// input] when false.
	TimeMajor                bool
	AsymmetricQuantizeInputs bool
}

// Padding is a convolution or pooling padding scheme, numbered as TFLite's
// schema Padding enum.
type Padding int8

// Padding schemes (TFLite schema numbering).
const (
	// PaddingSame pads so that the output has ceil(input/stride) positions.
	PaddingSame Padding = 0
	// PaddingValid uses only windows that lie fully inside the input.
	PaddingValid Padding = 1
)

// String returns the schema name of the padding ("SAME").
func (p Padding) String() string {
	switch p {
	case PaddingSame:
		return "SAME"
	case PaddingValid:
		return "VALID"
	}
	return "PADDING(" + strconv.Itoa(int(p)) + ")"
}

// Conv2DOptions is TFLite's Conv2DOptions. Dilation factors default to 1.
type Conv2DOptions struct {
	Padding                          Padding
	StrideW, StrideH                 int
	DilationWFactor, DilationHFactor int
	Activation                       Activation
	// QuantizedBiasType is the bias type of an int16 convolution (Float32
	// = 0 means "the default for the input type").
	QuantizedBiasType DataType
}

// DepthwiseConv2DOptions is TFLite's DepthwiseConv2DOptions. TFLite
// derives the depth multiplier from the tensor shapes for float, uint8 and
// int8 inputs; DepthMultiplier is kept for reference.
type DepthwiseConv2DOptions struct {
	Padding                          Padding
	StrideW, StrideH                 int
	DepthMultiplier                  int
	DilationWFactor, DilationHFactor int
	Activation                       Activation
}

// Pool2DOptions is TFLite's Pool2DOptions (MAX_POOL_2D, AVERAGE_POOL_2D,
// L2_POOL_2D).
type Pool2DOptions struct {
	Padding                   Padding
	StrideW, StrideH          int
	FilterWidth, FilterHeight int
	Activation                Activation
}

// GatherOptions is TFLite's GatherOptions. The field name Axis is read by
// reflection in package bench; keep it.
type GatherOptions struct {
	Axis      int
	BatchDims int
}

// StridedSliceOptions is TFLite's StridedSliceOptions: bit i of a mask
// refers to dimension i of the begin/end/strides vectors.
type StridedSliceOptions struct {
	BeginMask, EndMask, EllipsisMask, NewAxisMask, ShrinkAxisMask int32
	// Offset: end is relative to begin (end = begin + end) when true.
	Offset bool
}

// ReducerOptions is TFLite's ReducerOptions (MEAN, SUM, REDUCE_MAX, …).
type ReducerOptions struct {
	KeepDims bool
}

// ConcatenationOptions is TFLite's ConcatenationOptions.
type ConcatenationOptions struct {
	Axis       int
	Activation Activation
}

// PackOptions is TFLite's PackOptions.
type PackOptions struct {
	ValuesCount int
	Axis        int
}

// UnpackOptions is TFLite's UnpackOptions.
type UnpackOptions struct {
	Num  int
	Axis int
}

// SqueezeOptions is TFLite's SqueezeOptions; SqueezeDims empty means
// "every dimension of size 1".
type SqueezeOptions struct {
	SqueezeDims []int
}

// SplitOptions is TFLite's SplitOptions (also used for SPLIT_V's
// SplitVOptions, which has the same single field).
type SplitOptions struct {
	NumSplits int
}

// CastOptions is TFLite's CastOptions. TFLite's kernel reads the types
// from the tensors; the options are informational.
type CastOptions struct {
	InDataType, OutDataType DataType
}

// DivOptions is TFLite's DivOptions (operator DIV).
type DivOptions struct {
	Activation Activation
}

// ResizeOptions is TFLite's ResizeBilinearOptions and
// ResizeNearestNeighborOptions (operators RESIZE_BILINEAR and
// RESIZE_NEAREST_NEIGHBOR), which have the same fields.
type ResizeOptions struct {
	// AlignCorners maps the corner pixels of input and output onto each
	// other (scale (in−1)/(out−1)).
	AlignCorners bool
	// HalfPixelCenters samples at pixel centres (x+0.5)·scale − 0.5.
	HalfPixelCenters bool
}

// MirrorPadMode is TFLite's MirrorPadMode.
type MirrorPadMode int8

// Mirror padding modes (TFLite schema numbering).
const (
	// MirrorPadReflect mirrors without repeating the edge element.
	MirrorPadReflect MirrorPadMode = 0
	// MirrorPadSymmetric mirrors including the edge element.
	MirrorPadSymmetric MirrorPadMode = 1
)

// MirrorPadOptions is TFLite's MirrorPadOptions (operator MIRROR_PAD).
type MirrorPadOptions struct {
	Mode MirrorPadMode
}

// LeakyReluOptions is TFLite's LeakyReluOptions (operator LEAKY_RELU).
type LeakyReluOptions struct {
	Alpha float32
}

// ArgMinMaxOptions is TFLite's ArgMaxOptions and ArgMinOptions
// (operators ARG_MAX and ARG_MIN): the type of the index output.
type ArgMinMaxOptions struct {
	OutputType DataType
}

// ShapeOptions is TFLite's ShapeOptions (operator SHAPE): the type of the
// output, int32 or int64.
type ShapeOptions struct {
	OutType DataType
}

// RNNOptions is TFLite's RNNOptions (operator RNN).
type RNNOptions struct {
	Activation Activation
	// AsymmetricQuantizeInputs selects per-batch asymmetric quantisation
	// of the float activations in the hybrid (int8 weights) path.
	AsymmetricQuantizeInputs bool
}

// SequenceRNNOptions is TFLite's SequenceRNNOptions (operator
// UNIDIRECTIONAL_SEQUENCE_RNN).
type SequenceRNNOptions struct {
	// TimeMajor: input is [time, batch, input] when true, [batch, time,
	// input] when false.
	TimeMajor                bool
	Activation               Activation
	AsymmetricQuantizeInputs bool
}

// BidirectionalSequenceRNNOptions is TFLite's
// BidirectionalSequenceRNNOptions (operator BIDIRECTIONAL_SEQUENCE_RNN).
type BidirectionalSequenceRNNOptions struct {
	TimeMajor  bool
	Activation Activation
	// MergeOutputs concatenates the forward and backward outputs into one
	// output tensor (last dimension fw_units + bw_units).
	MergeOutputs             bool
	AsymmetricQuantizeInputs bool
}

// SVDFOptions is TFLite's SVDFOptions (operator SVDF).
type SVDFOptions struct {
	// Rank is the number of filters per output unit.
	Rank                     int
	Activation               Activation
	AsymmetricQuantizeInputs bool
}
