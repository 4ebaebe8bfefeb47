package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of WHERE: the coordinates of random conditions of every
// type and ranks 1 to 4 (an output sized at Invoke).

func TestRecordWhere(t *testing.T) {
	m := func(typ schema.TensorType, shape ...int32) []byte {
		return opModel(schema.BuiltinOperatorWHERE, 1, nil, []gIn{act(typ, shape...)}, []gOut{res(schema.TensorTypeINT64, 1, int32(len(shape)))})
	}
	// Conditions of mostly zeros and some non-zero values.
	gen := genInputs(map[int][2]int{0: {-1, 1}})
	recordGolden(t, "where", []goldenModel{
		{variant: "bool_rank2", model: m(schema.TensorTypeBOOL, 4, 5)},
		{variant: "float_rank3", gen: gen, model: m(schema.TensorTypeFLOAT32, 2, 3, 4)},
		{variant: "int32_rank1", gen: gen, model: m(schema.TensorTypeINT32, 17)},
		{variant: "int64_rank4", gen: gen, model: m(schema.TensorTypeINT64, 2, 1, 3, 2)},
		{variant: "int8", gen: gen, model: m(schema.TensorTypeINT8, 3, 7)},
		{variant: "uint8", gen: gen, model: m(schema.TensorTypeUINT8, 3, 7)},
		{variant: "uint32", gen: gen, model: m(schema.TensorTypeUINT32, 10)},
	})
}

func TestGoldenWhere(t *testing.T) { checkGolden(t, "where") }
