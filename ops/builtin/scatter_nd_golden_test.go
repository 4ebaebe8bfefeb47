package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of SCATTER_ND: element, slice and sub-tensor scatters into
// outputs whose indexed dimensions have size 4 (random indices in [0, 4),
// so rows repeat and add), every updates type.

func scatterNDModel(indices gIn, updates gIn, shape []int32, outType schema.TensorType, out ...int32) []byte {
	return opModel(schema.BuiltinOperatorSCATTER_ND, 1, nil,
		[]gIn{indices, updates, cst(schema.TensorTypeINT32, optest.I32(shape...), int32(len(shape)))},
		[]gOut{res(outType, out...)})
}

func TestRecordScatterND(t *testing.T) {
	f32, i32 := schema.TensorTypeFLOAT32, schema.TensorTypeINT32
	exact := optest.Case{Exact: true}
	gen := indicesBelow4(0)
	recordGolden(t, "scatter_nd", []goldenModel{
		{variant: "f32_elements", gen: gen, model: scatterNDModel(act(i32, 6, 1), act(f32, 6), []int32{4}, f32, 4)},
		{variant: "f32_slices", gen: gen, model: scatterNDModel(act(i32, 3, 1), act(f32, 3, 4, 4), []int32{4, 4, 4}, f32, 4, 4, 4)},
		{variant: "f32_nd2", gen: gen, model: scatterNDModel(act(i32, 2, 3, 2), act(f32, 2, 3, 5), []int32{4, 4, 5}, f32, 4, 4, 5)},
		{variant: "f32_full_index", gen: gen, model: scatterNDModel(act(i32, 9, 2), act(f32, 9), []int32{4, 4}, f32, 4, 4)},
		{variant: "int32", gen: gen, model: scatterNDModel(act(i32, 5, 1), act(i32, 5, 3), []int32{4, 3}, i32, 4, 3)},
		{variant: "int64", gen: gen, model: scatterNDModel(act(i32, 5, 2), act(schema.TensorTypeINT64, 5, 2), []int32{4, 4, 2}, schema.TensorTypeINT64, 4, 4, 2)},
		{variant: "int8", gen: gen, model: scatterNDModel(act(i32, 8, 1), act(schema.TensorTypeINT8, 8, 3), []int32{4, 3}, schema.TensorTypeINT8, 4, 3), tol: exact},
		{variant: "uint8", gen: gen, model: scatterNDModel(act(i32, 8, 1), act(schema.TensorTypeUINT8, 8, 2), []int32{4, 2}, schema.TensorTypeUINT8, 4, 2), tol: exact},
		{variant: "bool", gen: gen, model: scatterNDModel(act(i32, 6, 1), act(schema.TensorTypeBOOL, 6, 3), []int32{4, 3}, schema.TensorTypeBOOL, 4, 3)},
	})
}

func TestGoldenScatterND(t *testing.T) { checkGolden(t, "scatter_nd") }
