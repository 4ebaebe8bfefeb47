package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of RANK: inputs of rank 0, 1 and 4.

func TestRecordRank(t *testing.T) {
	m := func(typ schema.TensorType, shape ...int32) []byte {
		return opModel(schema.BuiltinOperatorRANK, 1, nil, []gIn{act(typ, shape...)}, []gOut{res(schema.TensorTypeINT32)})
	}
	recordGolden(t, "rank", []goldenModel{
		{variant: "scalar", runs: 1, model: m(schema.TensorTypeFLOAT32)},
		{variant: "vector_int8", runs: 1, model: m(schema.TensorTypeINT8, 5)},
		{variant: "4d", runs: 1, model: m(schema.TensorTypeFLOAT32, 1, 2, 3, 4)},
	})
}

func TestGoldenRank(t *testing.T) { checkGolden(t, "rank") }
