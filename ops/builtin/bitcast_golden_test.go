package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of BITCAST: same size, narrowing and widening.

func TestRecordBitcast(t *testing.T) {
	m := func(in schema.TensorType, inShape []int32, out schema.TensorType, outShape ...int32) []byte {
		return opModel(schema.BuiltinOperatorBITCAST, 1, nil, []gIn{act(in, inShape...)}, []gOut{res(out, outShape...)})
	}
	recordGolden(t, "bitcast", []goldenModel{
		{variant: "f32_to_int32", model: m(schema.TensorTypeFLOAT32, []int32{3, 4}, schema.TensorTypeINT32, 3, 4)},
		{variant: "int32_to_uint8", model: m(schema.TensorTypeINT32, []int32{2, 3}, schema.TensorTypeUINT8, 2, 3, 4)},
		{variant: "int8_to_int16", model: m(schema.TensorTypeINT8, []int32{5, 2}, schema.TensorTypeINT16, 5)},
		{variant: "f32_to_int64", model: m(schema.TensorTypeFLOAT32, []int32{3, 2}, schema.TensorTypeINT64, 3)},
	})
}

func TestGoldenBitcast(t *testing.T) { checkGolden(t, "bitcast") }
