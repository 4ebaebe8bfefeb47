package interpreter

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// maxReshapeDims is the most dimensions ReshapeOptions.new_shape may have
// (TFLite's TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT).
const maxReshapeDims = 8

// maxSqueezeDims is the most entries SqueezeOptions.squeeze_dims may have
// (the size of TfLiteSqueezeParams.squeeze_dims).
const maxSqueezeDims = 8

// decodeOptions turns the builtin options table of an operator into the
// ops.*Options struct its kernel reads. Tables tflrun has no kernel for
// decode to nil (the operator is refused at AllocateTensors anyway).
// Option values TFLite's own parser rejects are errors here too. The
// structural verifier has already checked the table, so reads are safe.
func decodeOptions(typ schema.BuiltinOptions, tbl flatbuffers.Table) (any, error) {
	switch typ {
	case schema.BuiltinOptionsFullyConnectedOptions:
		var o schema.FullyConnectedOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.FullyConnectedOptions{
			Activation:               ops.Activation(o.FusedActivationFunction()),
			WeightsFormat:            int8(o.WeightsFormat()),
			KeepNumDims:              o.KeepNumDims(),
			AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
			QuantizedBiasType:        ops.DataType(o.QuantizedBiasType()),
		}, nil
	case schema.BuiltinOptionsSoftmaxOptions:
		var o schema.SoftmaxOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.SoftmaxOptions{Beta: o.Beta()}, nil
	case schema.BuiltinOptionsAddOptions:
		var o schema.AddOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.AddOptions{Activation: ops.Activation(o.FusedActivationFunction()), PotScaleInt16: o.PotScaleInt16()}, nil
	case schema.BuiltinOptionsSubOptions:
		var o schema.SubOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.SubOptions{Activation: ops.Activation(o.FusedActivationFunction()), PotScaleInt16: o.PotScaleInt16()}, nil
	case schema.BuiltinOptionsMulOptions:
		var o schema.MulOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.MulOptions{Activation: ops.Activation(o.FusedActivationFunction())}, nil
	case schema.BuiltinOptionsReshapeOptions:
		var o schema.ReshapeOptions
		o.Init(tbl.Bytes, tbl.Pos)
		r := &ops.ReshapeOptions{}
		if n := o.NewShapeLength(); n > maxReshapeDims {
			// TFLite's parser copies new_shape into a fixed array of 8.
			return nil, fmt.Errorf("new_shape has %d dimensions, at most %d are allowed", n, maxReshapeDims)
		}
		if o.NewShapeLength() > 0 {
			r.NewShape = intList(o.NewShapeLength(), o.NewShape)
		}
		return r, nil
	case schema.BuiltinOptionsLSTMOptions:
		var o schema.LSTMOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.LSTMOptions{
			Activation:               ops.Activation(o.FusedActivationFunction()),
			CellClip:                 o.CellClip(),
			ProjClip:                 o.ProjClip(),
			KernelType:               ops.LSTMKernelType(o.KernelType()),
			AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
		}, nil
	case schema.BuiltinOptionsRNNOptions:
		var o schema.RNNOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.RNNOptions{
			Activation:               ops.Activation(o.FusedActivationFunction()),
			AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
		}, nil
	case schema.BuiltinOptionsSequenceRNNOptions:
		var o schema.SequenceRNNOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.SequenceRNNOptions{
			TimeMajor:                o.TimeMajor(),
			Activation:               ops.Activation(o.FusedActivationFunction()),
			AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
		}, nil
	case schema.BuiltinOptionsBidirectionalSequenceRNNOptions:
		var o schema.BidirectionalSequenceRNNOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.BidirectionalSequenceRNNOptions{
			TimeMajor:                o.TimeMajor(),
			Activation:               ops.Activation(o.FusedActivationFunction()),
			MergeOutputs:             o.MergeOutputs(),
			AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
		}, nil
	case schema.BuiltinOptionsSVDFOptions:
		var o schema.SVDFOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.SVDFOptions{
			Rank:                     int(o.Rank()),
			Activation:               ops.Activation(o.FusedActivationFunction()),
			AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
		}, nil
	case schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions:
		var o schema.UnidirectionalSequenceLSTMOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.UnidirectionalSequenceLSTMOptions{
			Activation:               ops.Activation(o.FusedActivationFunction()),
			CellClip:                 o.CellClip(),
			ProjClip:                 o.ProjClip(),
			TimeMajor:                o.TimeMajor(),
			AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
			DiagonalRecurrentTensors: o.DiagonalRecurrentTensors(),
		}, nil
	case schema.BuiltinOptionsBidirectionalSequenceLSTMOptions:
		var o schema.BidirectionalSequenceLSTMOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.BidirectionalSequenceLSTMOptions{
			Activation:               ops.Activation(o.FusedActivationFunction()),
			CellClip:                 o.CellClip(),
			ProjClip:                 o.ProjClip(),
			MergeOutputs:             o.MergeOutputs(),
			TimeMajor:                o.TimeMajor(),
			AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
		}, nil
	case schema.BuiltinOptionsConv2DOptions:
		var o schema.Conv2DOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.Conv2DOptions{
			Padding:           ops.Padding(o.Padding()),
			StrideW:           int(o.StrideW()),
			StrideH:           int(o.StrideH()),
			DilationWFactor:   int(o.DilationWFactor()),
			DilationHFactor:   int(o.DilationHFactor()),
			Activation:        ops.Activation(o.FusedActivationFunction()),
			QuantizedBiasType: ops.DataType(o.QuantizedBiasType()),
		}, nil
	case schema.BuiltinOptionsDepthwiseConv2DOptions:
		var o schema.DepthwiseConv2DOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.DepthwiseConv2DOptions{
			Padding:         ops.Padding(o.Padding()),
			StrideW:         int(o.StrideW()),
			StrideH:         int(o.StrideH()),
			DepthMultiplier: int(o.DepthMultiplier()),
			DilationWFactor: int(o.DilationWFactor()),
			DilationHFactor: int(o.DilationHFactor()),
			Activation:      ops.Activation(o.FusedActivationFunction()),
		}, nil
	case schema.BuiltinOptionsPool2DOptions:
		var o schema.Pool2DOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.Pool2DOptions{
			Padding:      ops.Padding(o.Padding()),
			StrideW:      int(o.StrideW()),
			StrideH:      int(o.StrideH()),
			FilterWidth:  int(o.FilterWidth()),
			FilterHeight: int(o.FilterHeight()),
			Activation:   ops.Activation(o.FusedActivationFunction()),
		}, nil
	case schema.BuiltinOptionsGatherOptions:
		var o schema.GatherOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.GatherOptions{Axis: int(o.Axis()), BatchDims: int(o.BatchDims())}, nil
	case schema.BuiltinOptionsStridedSliceOptions:
		var o schema.StridedSliceOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.StridedSliceOptions{
			BeginMask:      o.BeginMask(),
			EndMask:        o.EndMask(),
			EllipsisMask:   o.EllipsisMask(),
			NewAxisMask:    o.NewAxisMask(),
			ShrinkAxisMask: o.ShrinkAxisMask(),
			Offset:         o.Offset(),
		}, nil
	case schema.BuiltinOptionsReducerOptions:
		var o schema.ReducerOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.ReducerOptions{KeepDims: o.KeepDims()}, nil
	case schema.BuiltinOptionsConcatenationOptions:
		var o schema.ConcatenationOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.ConcatenationOptions{Axis: int(o.Axis()), Activation: ops.Activation(o.FusedActivationFunction())}, nil
	case schema.BuiltinOptionsPackOptions:
		var o schema.PackOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.PackOptions{ValuesCount: int(o.ValuesCount()), Axis: int(o.Axis())}, nil
	case schema.BuiltinOptionsUnpackOptions:
		var o schema.UnpackOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.UnpackOptions{Num: int(o.Num()), Axis: int(o.Axis())}, nil
	case schema.BuiltinOptionsSqueezeOptions:
		var o schema.SqueezeOptions
		o.Init(tbl.Bytes, tbl.Pos)
		if n := o.SqueezeDimsLength(); n > maxSqueezeDims {
			// TFLite's parser copies squeeze_dims into a fixed array of 8.
			return nil, fmt.Errorf("squeeze_dims has %d entries, at most %d are allowed", n, maxSqueezeDims)
		}
		return &ops.SqueezeOptions{SqueezeDims: intList(o.SqueezeDimsLength(), o.SqueezeDims)}, nil
	case schema.BuiltinOptionsSplitOptions:
		var o schema.SplitOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.SplitOptions{NumSplits: int(o.NumSplits())}, nil
	case schema.BuiltinOptionsSplitVOptions:
		var o schema.SplitVOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.SplitOptions{NumSplits: int(o.NumSplits())}, nil
	case schema.BuiltinOptionsCastOptions:
		var o schema.CastOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.CastOptions{InDataType: ops.DataType(o.InDataType()), OutDataType: ops.DataType(o.OutDataType())}, nil
	case schema.BuiltinOptionsDivOptions:
		var o schema.DivOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.DivOptions{Activation: ops.Activation(o.FusedActivationFunction())}, nil
	case schema.BuiltinOptionsResizeBilinearOptions:
		var o schema.ResizeBilinearOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.ResizeOptions{AlignCorners: o.AlignCorners(), HalfPixelCenters: o.HalfPixelCenters()}, nil
	case schema.BuiltinOptionsResizeNearestNeighborOptions:
		var o schema.ResizeNearestNeighborOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.ResizeOptions{AlignCorners: o.AlignCorners(), HalfPixelCenters: o.HalfPixelCenters()}, nil
	case schema.BuiltinOptionsMirrorPadOptions:
		var o schema.MirrorPadOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.MirrorPadOptions{Mode: ops.MirrorPadMode(o.Mode())}, nil
	case schema.BuiltinOptionsLeakyReluOptions:
		var o schema.LeakyReluOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.LeakyReluOptions{Alpha: o.Alpha()}, nil
	case schema.BuiltinOptionsArgMaxOptions:
		var o schema.ArgMaxOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.ArgMinMaxOptions{OutputType: ops.DataType(o.OutputType())}, nil
	case schema.BuiltinOptionsArgMinOptions:
		var o schema.ArgMinOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.ArgMinMaxOptions{OutputType: ops.DataType(o.OutputType())}, nil
	case schema.BuiltinOptionsShapeOptions:
		var o schema.ShapeOptions
		o.Init(tbl.Bytes, tbl.Pos)
		return &ops.ShapeOptions{OutType: ops.DataType(o.OutType())}, nil
	}
	return nil, nil
}
