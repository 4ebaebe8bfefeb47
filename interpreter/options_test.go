package interpreter

import (
	"fmt"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// TestOptionsDecoders pins the builtin options tables Load decoded when
// each operator's package took over its own decoding, and the struct each
// decodes into (operators added since need no entry): every table the
// kernels of DefaultResolver read, decoded by the package that holds the
// kernel. An empty table decodes to the schema defaults, without error.
func TestOptionsDecoders(t *testing.T) {
	want := map[schema.BuiltinOptions]string{
		schema.BuiltinOptionsFullyConnectedOptions:             "*builtin.FullyConnectedOptions",
		schema.BuiltinOptionsSoftmaxOptions:                    "*builtin.SoftmaxOptions",
		schema.BuiltinOptionsAddOptions:                        "*builtin.AddOptions",
		schema.BuiltinOptionsSubOptions:                        "*builtin.SubOptions",
		schema.BuiltinOptionsMulOptions:                        "*builtin.MulOptions",
		schema.BuiltinOptionsReshapeOptions:                    "*builtin.ReshapeOptions",
		schema.BuiltinOptionsLSTMOptions:                       "*fused.LSTMOptions",
		schema.BuiltinOptionsRNNOptions:                        "*fused.RNNOptions",
		schema.BuiltinOptionsSequenceRNNOptions:                "*fused.SequenceRNNOptions",
		schema.BuiltinOptionsBidirectionalSequenceRNNOptions:   "*fused.BidirectionalSequenceRNNOptions",
		schema.BuiltinOptionsSVDFOptions:                       "*fused.SVDFOptions",
		schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions: "*fused.UnidirectionalSequenceLSTMOptions",
		schema.BuiltinOptionsBidirectionalSequenceLSTMOptions:  "*fused.BidirectionalSequenceLSTMOptions",
		schema.BuiltinOptionsConv2DOptions:                     "*builtin.Conv2DOptions",
		schema.BuiltinOptionsDepthwiseConv2DOptions:            "*builtin.DepthwiseConv2DOptions",
		schema.BuiltinOptionsPool2DOptions:                     "*builtin.Pool2DOptions",
		schema.BuiltinOptionsGatherOptions:                     "*builtin.GatherOptions",
		schema.BuiltinOptionsStridedSliceOptions:               "*builtin.StridedSliceOptions",
		schema.BuiltinOptionsReducerOptions:                    "*builtin.ReducerOptions",
		schema.BuiltinOptionsConcatenationOptions:              "*builtin.ConcatenationOptions",
		schema.BuiltinOptionsPackOptions:                       "*builtin.PackOptions",
		schema.BuiltinOptionsUnpackOptions:                     "*builtin.UnpackOptions",
		schema.BuiltinOptionsSqueezeOptions:                    "*builtin.SqueezeOptions",
		schema.BuiltinOptionsSplitOptions:                      "*builtin.SplitOptions",
		schema.BuiltinOptionsSplitVOptions:                     "*builtin.SplitOptions",
		schema.BuiltinOptionsCastOptions:                       "*builtin.CastOptions",
		schema.BuiltinOptionsDivOptions:                        "*builtin.DivOptions",
		schema.BuiltinOptionsResizeBilinearOptions:             "*builtin.ResizeOptions",
		schema.BuiltinOptionsResizeNearestNeighborOptions:      "*builtin.ResizeOptions",
		schema.BuiltinOptionsMirrorPadOptions:                  "*builtin.MirrorPadOptions",
		schema.BuiltinOptionsLeakyReluOptions:                  "*builtin.LeakyReluOptions",
		schema.BuiltinOptionsArgMaxOptions:                     "*builtin.ArgMinMaxOptions",
		schema.BuiltinOptionsArgMinOptions:                     "*builtin.ArgMinMaxOptions",
		schema.BuiltinOptionsShapeOptions:                      "*builtin.ShapeOptions",
	}
	b := flatbuffers.NewBuilder(64)
	b.StartObject(0)
	b.Finish(b.EndObject())
	buf := b.FinishedBytes()
	root := flatbuffers.GetUOffsetT(buf)
	r := optionsDecoders()
	for typ := range schema.EnumNamesBuiltinOptions {
		if typ == schema.BuiltinOptionsNONE {
			continue
		}
		got, err := r.DecodeOptions(ops.OptionsTable{Type: uint8(typ), Bytes: buf, Pos: uint32(root)})
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		if w, ok := want[typ]; ok && fmt.Sprintf("%T", got) != w {
			t.Errorf("%s decodes to %T, want %s", typ, got, w)
		}
	}
}
