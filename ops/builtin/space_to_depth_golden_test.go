package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of SPACE_TO_DEPTH: every type it takes, block sizes 1-3,
// depths that are not multiples of 8.

func spaceToDepthModel(version int32, typ schema.TensorType, q *optest.Quant, block int32, in, out []int32) []byte {
	return opModel(schema.BuiltinOperatorSPACE_TO_DEPTH, version,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSpaceToDepthOptions, Value: &schema.SpaceToDepthOptionsT{BlockSize: block}},
		[]gIn{actQ(typ, q, in...)}, []gOut{resQ(typ, q, out...)})
}

func TestRecordSpaceToDepth(t *testing.T) {
	exact := optest.Case{Exact: true}
	recordGolden(t, "space_to_depth", []goldenModel{
		{variant: "f32_b2", model: spaceToDepthModel(1, schema.TensorTypeFLOAT32, nil, 2, []int32{1, 4, 6, 3}, []int32{1, 2, 3, 12})},
		{variant: "f32_b1", model: spaceToDepthModel(1, schema.TensorTypeFLOAT32, nil, 1, []int32{2, 3, 3, 2}, []int32{2, 3, 3, 2})},
		{variant: "uint8_b3", model: spaceToDepthModel(1, schema.TensorTypeUINT8, optest.PerTensor(0.02, 128), 3, []int32{2, 6, 3, 5}, []int32{2, 2, 1, 45}), tol: exact},
		{variant: "int8_b2", model: spaceToDepthModel(2, schema.TensorTypeINT8, optest.PerTensor(0.1, -3), 2, []int32{1, 2, 4, 7}, []int32{1, 1, 2, 28}), tol: exact},
		{variant: "int32_b2", model: spaceToDepthModel(1, schema.TensorTypeINT32, nil, 2, []int32{3, 2, 2, 1}, []int32{3, 1, 1, 4})},
		{variant: "int64_b2", model: spaceToDepthModel(1, schema.TensorTypeINT64, nil, 2, []int32{1, 4, 2, 3}, []int32{1, 2, 1, 12})},
	})
}

func TestGoldenSpaceToDepth(t *testing.T) { checkGolden(t, "space_to_depth") }
