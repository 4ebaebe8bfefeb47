package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of CUMSUM: every type, each axis of a 3-D input including a
// negative one, exclusive and reverse.

func cumsumModel(typ schema.TensorType, axis int32, exclusive, reverse bool, shape ...int32) []byte {
	return opModel(schema.BuiltinOperatorCUMSUM, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsCumsumOptions, Value: &schema.CumsumOptionsT{Exclusive: exclusive, Reverse: reverse}},
		[]gIn{act(typ, shape...), cst(schema.TensorTypeINT32, optest.I32(axis))}, []gOut{res(typ, shape...)})
}

func TestRecordCumsum(t *testing.T) {
	f32 := schema.TensorTypeFLOAT32
	recordGolden(t, "cumsum", []goldenModel{
		{variant: "f32_axis0", model: cumsumModel(f32, 0, false, false, 5, 3, 4)},
		{variant: "f32_axis1", model: cumsumModel(f32, 1, false, false, 3, 7, 2)},
		{variant: "f32_axis_last_exclusive", model: cumsumModel(f32, -1, true, false, 2, 3, 9)},
		{variant: "f32_reverse", model: cumsumModel(f32, 1, false, true, 2, 6, 3)},
		{variant: "f32_exclusive_reverse", model: cumsumModel(f32, 0, true, true, 6, 5)},
		{variant: "int32", model: cumsumModel(schema.TensorTypeINT32, 1, false, false, 4, 11)},
		{variant: "int32_exclusive_reverse", model: cumsumModel(schema.TensorTypeINT32, -2, true, true, 3, 4, 2)},
		{variant: "int64", model: cumsumModel(schema.TensorTypeINT64, 0, false, true, 7)},
	})
}

func TestGoldenCumsum(t *testing.T) { checkGolden(t, "cumsum") }
