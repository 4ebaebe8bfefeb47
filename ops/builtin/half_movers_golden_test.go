package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of the float16 versions: SIN and COS v2, TRANSPOSE v9,
// SLICE v8, UNPACK v5, CONCATENATION v6.

func TestRecordHalfVersions(t *testing.T) {
	f16, i32 := schema.TensorTypeFLOAT16, schema.TensorTypeINT32
	unary := func(op schema.BuiltinOperator) []byte {
		return opModel(op, 2, nil, []gIn{act(f16, 4, 25)}, []gOut{res(f16, 4, 25)})
	}
	recordGolden(t, "half_versions", []goldenModel{
		{variant: "sin", model: unary(schema.BuiltinOperatorSIN)},
		{variant: "cos", model: unary(schema.BuiltinOperatorCOS)},
		{variant: "transpose", model: opModel(schema.BuiltinOperatorTRANSPOSE, 9, nil,
			[]gIn{act(f16, 2, 3, 4), cst(i32, optest.I32(2, 0, 1), 3)}, []gOut{res(f16, 4, 2, 3)})},
		{variant: "slice", model: opModel(schema.BuiltinOperatorSLICE, 8, nil,
			[]gIn{act(f16, 3, 5), cst(i32, optest.I32(1, 1), 2), cst(i32, optest.I32(2, 3), 2)}, []gOut{res(f16, 2, 3)})},
		{variant: "unpack", model: opModel(schema.BuiltinOperatorUNPACK, 5,
			&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUnpackOptions, Value: &schema.UnpackOptionsT{Num: 2, Axis: 1}},
			[]gIn{act(f16, 3, 2, 4)}, []gOut{res(f16, 3, 4), res(f16, 3, 4)})},
		{variant: "concatenation", model: opModel(schema.BuiltinOperatorCONCATENATION, 6,
			&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions, Value: &schema.ConcatenationOptionsT{Axis: 1}},
			[]gIn{act(f16, 2, 3), act(f16, 2, 5)}, []gOut{res(f16, 2, 8)})},
	})
}

func TestGoldenHalfVersions(t *testing.T) { checkGolden(t, "half_versions") }
