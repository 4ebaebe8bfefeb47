package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of BITWISE_XOR: every type, equal shapes and broadcasts.

func TestRecordBitwiseXor(t *testing.T) {
	m := func(typ schema.TensorType, a, b, out []int32) []byte {
		return opModel(schema.BuiltinOperatorBITWISE_XOR, 1, nil, []gIn{act(typ, a...), act(typ, b...)}, []gOut{res(typ, out...)})
	}
	s := func(v ...int32) []int32 { return v }
	recordGolden(t, "bitwise_xor", []goldenModel{
		{variant: "int8", model: m(schema.TensorTypeINT8, s(3, 5), s(3, 5), s(3, 5))},
		{variant: "uint8_broadcast", model: m(schema.TensorTypeUINT8, s(2, 1, 4), s(3, 1), s(2, 3, 4))},
		{variant: "int16", model: m(schema.TensorTypeINT16, s(7), s(1), s(7))},
		{variant: "uint16", model: m(schema.TensorTypeUINT16, s(2, 3), s(2, 3), s(2, 3))},
		{variant: "int32_broadcast", model: m(schema.TensorTypeINT32, s(4, 1), s(1, 5), s(4, 5))},
		{variant: "uint32", model: m(schema.TensorTypeUINT32, s(6), s(6), s(6))},
	})
}

func TestGoldenBitwiseXor(t *testing.T) { checkGolden(t, "bitwise_xor") }
