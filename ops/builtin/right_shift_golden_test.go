package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of RIGHT_SHIFT: every type, shifts from -2 to two past the
// width (clamped), broadcasting.

func TestRecordRightShift(t *testing.T) {
	m := func(typ schema.TensorType, a, b, out []int32) []byte {
		return opModel(schema.BuiltinOperatorRIGHT_SHIFT, 1, nil, []gIn{act(typ, a...), act(typ, b...)}, []gOut{res(typ, out...)})
	}
	s := func(v ...int32) []int32 { return v }
	shifts := func(lo, hi int) map[int][2]int { return map[int][2]int{1: {lo, hi}} }
	recordGolden(t, "right_shift", []goldenModel{
		{variant: "int8", gen: genInputs(shifts(-2, 9)), model: m(schema.TensorTypeINT8, s(4, 5), s(4, 5), s(4, 5))},
		{variant: "uint8_broadcast", gen: genInputs(shifts(0, 9)), model: m(schema.TensorTypeUINT8, s(3, 4), s(4), s(3, 4))},
		{variant: "int16", gen: genInputs(shifts(-2, 17)), model: m(schema.TensorTypeINT16, s(12), s(12), s(12))},
		{variant: "uint16", gen: genInputs(shifts(0, 17)), model: m(schema.TensorTypeUINT16, s(2, 6), s(2, 6), s(2, 6))},
		{variant: "int32", gen: genInputs(map[int][2]int{0: {-100000, 100000}, 1: {-2, 33}}), model: m(schema.TensorTypeINT32, s(3, 5), s(3, 5), s(3, 5))},
		{variant: "uint32_broadcast", gen: genInputs(map[int][2]int{0: {0, 1 << 30}, 1: {0, 33}}), model: m(schema.TensorTypeUINT32, s(2, 1), s(1, 8), s(2, 8))},
	})
}

func TestGoldenRightShift(t *testing.T) { checkGolden(t, "right_shift") }
