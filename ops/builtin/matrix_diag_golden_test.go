package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of MATRIX_DIAG and MATRIX_SET_DIAG: every type, batched and
// single, square and not (MATRIX_SET_DIAG).

func TestRecordMatrixDiag(t *testing.T) {
	m := func(typ schema.TensorType, shape ...int32) []byte {
		return opModel(schema.BuiltinOperatorMATRIX_DIAG, 1, nil, []gIn{act(typ, shape...)},
			[]gOut{res(typ, append(append([]int32{}, shape...), shape[len(shape)-1])...)})
	}
	recordGolden(t, "matrix_diag", []goldenModel{
		{variant: "f32", model: m(schema.TensorTypeFLOAT32, 2, 3)},
		{variant: "f32_vector", model: m(schema.TensorTypeFLOAT32, 5)},
		{variant: "int8", model: m(schema.TensorTypeINT8, 2, 2, 3)},
		{variant: "uint8", model: m(schema.TensorTypeUINT8, 4)},
		{variant: "int16", model: m(schema.TensorTypeINT16, 3, 2)},
		{variant: "int32", model: m(schema.TensorTypeINT32, 1, 4)},
		{variant: "int64", model: m(schema.TensorTypeINT64, 3)},
	})
}

func TestRecordMatrixSetDiag(t *testing.T) {
	m := func(typ schema.TensorType, diag []int32, shape ...int32) []byte {
		return opModel(schema.BuiltinOperatorMATRIX_SET_DIAG, 1, nil, []gIn{act(typ, shape...), act(typ, diag...)},
			[]gOut{res(typ, shape...)})
	}
	recordGolden(t, "matrix_set_diag", []goldenModel{
		{variant: "f32_wide", model: m(schema.TensorTypeFLOAT32, []int32{2, 3}, 2, 3, 4)},
		{variant: "f32_tall", model: m(schema.TensorTypeFLOAT32, []int32{2}, 5, 2)},
		{variant: "int8", model: m(schema.TensorTypeINT8, []int32{3, 3}, 3, 3, 3)},
		{variant: "uint8", model: m(schema.TensorTypeUINT8, []int32{1, 2}, 1, 2, 2)},
		{variant: "int16", model: m(schema.TensorTypeINT16, []int32{4}, 4, 4)},
		{variant: "int32", model: m(schema.TensorTypeINT32, []int32{2, 1}, 2, 1, 3)},
		{variant: "int64", model: m(schema.TensorTypeINT64, []int32{3}, 3, 4)},
	})
}

func TestGoldenMatrixDiag(t *testing.T)    { checkGolden(t, "matrix_diag") }
func TestGoldenMatrixSetDiag(t *testing.T) { checkGolden(t, "matrix_set_diag") }
