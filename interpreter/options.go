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
	}
	return nil, nil
}
