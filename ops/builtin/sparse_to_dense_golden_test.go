package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of SPARSE_TO_DENSE: every value type, vector and matrix
// indices (repeats overwrite), scalar values, int64 indices and shape.
// Output dimensions are all 4, so random indices in [0, 4) are in range.

func sparseToDenseModel(version int32, idx gIn, shape []byte, shapeType schema.TensorType, rank int32, vals gIn, def gIn, typ schema.TensorType, out ...int32) []byte {
	return opModel(schema.BuiltinOperatorSPARSE_TO_DENSE, version,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSparseToDenseOptions, Value: &schema.SparseToDenseOptionsT{}},
		[]gIn{idx, cst(shapeType, shape, rank), vals, def}, []gOut{res(typ, out...)})
}

func TestRecordSparseToDense(t *testing.T) {
	f32, i32, i64 := schema.TensorTypeFLOAT32, schema.TensorTypeINT32, schema.TensorTypeINT64
	gen := genInputs(map[int][2]int{0: {0, 3}})
	recordGolden(t, "sparse_to_dense", []goldenModel{
		{variant: "f32_3d", gen: gen, model: sparseToDenseModel(1, act(i32, 5, 3), optest.I32(4, 4, 4), i32, 3, act(f32, 5), cst(f32, optest.F32(-1)), f32, 4, 4, 4)},
		{variant: "f32_vector", gen: gen, model: sparseToDenseModel(1, act(i32, 3), optest.I32(4), i32, 1, act(f32, 3), cst(f32, optest.F32(0.5)), f32, 4)},
		{variant: "f32_scalar_value", gen: gen, model: sparseToDenseModel(1, act(i32, 6, 2), optest.I32(4, 4), i32, 2, cst(f32, optest.F32(9)), cst(f32, optest.F32(0)), f32, 4, 4)},
		{variant: "int32_int64_indices", gen: gen, model: sparseToDenseModel(1, act(i64, 4, 4), optest.I64(4, 4, 4, 4), i64, 4, act(i32, 4), cst(i32, optest.I32(3)), i32, 4, 4, 4, 4)},
		{variant: "int64", gen: gen, model: sparseToDenseModel(2, act(i32, 2, 2), optest.I32(4, 4), i32, 2, act(i64, 2), cst(i64, optest.I64(-5)), i64, 4, 4)},
		{variant: "int8", gen: gen, model: sparseToDenseModel(3, act(i32, 3, 2), optest.I32(4, 4), i32, 2, act(schema.TensorTypeINT8, 3), cst(schema.TensorTypeINT8, optest.I8(-128)), schema.TensorTypeINT8, 4, 4)},
		{variant: "uint8", gen: gen, model: sparseToDenseModel(3, act(i32, 2), optest.I32(4), i32, 1, act(schema.TensorTypeUINT8, 2), cst(schema.TensorTypeUINT8, []byte{17}), schema.TensorTypeUINT8, 4)},
	})
}

func TestGoldenSparseToDense(t *testing.T) { checkGolden(t, "sparse_to_dense") }
