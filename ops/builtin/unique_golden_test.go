package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of UNIQUE: every value type, both index types, vectors with
// many repeats (an output sized at Invoke).

func TestRecordUnique(t *testing.T) {
	m := func(typ, idx schema.TensorType, n int32) []byte {
		return opModel(schema.BuiltinOperatorUNIQUE, 1,
			&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUniqueOptions, Value: &schema.UniqueOptionsT{IdxOutType: idx}},
			[]gIn{act(typ, n)}, []gOut{res(typ, 1), res(idx, n)})
	}
	gen := genInputs(map[int][2]int{0: {-3, 5}})
	i32, i64 := schema.TensorTypeINT32, schema.TensorTypeINT64
	recordGolden(t, "unique", []goldenModel{
		{variant: "int8", gen: gen, model: m(schema.TensorTypeINT8, i32, 20)},
		{variant: "int16_idx64", gen: gen, model: m(schema.TensorTypeINT16, i64, 20)},
		{variant: "int32", gen: gen, model: m(i32, i32, 31)},
		{variant: "int64_idx64", gen: gen, model: m(i64, i64, 12)},
		{variant: "float", gen: gen, model: m(schema.TensorTypeFLOAT32, i32, 25)},
		{variant: "uint8", model: m(schema.TensorTypeUINT8, i32, 300)},
	})
}

func TestGoldenUnique(t *testing.T) { checkGolden(t, "unique") }
