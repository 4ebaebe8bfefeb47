package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of BATCH_TO_SPACE_ND: 3-D and 4-D inputs, unequal block
// sizes, crops on both sides, quantised types, and every other type npy
// holds (TFLite copies by element size, so each is accepted).

func batchToSpaceModels() []goldenModel {
	b2s := schema.BuiltinOperatorBATCH_TO_SPACE_ND
	f32, i8, u8, i16 := schema.TensorTypeFLOAT32, schema.TensorTypeINT8, schema.TensorTypeUINT8, schema.TensorTypeINT16
	return []goldenModel{
		{variant: "f32_4d", model: spaceBatchModel(b2s, 1, f32, nil, []int32{4, 2, 3, 3}, []int32{2, 2}, []int32{0, 1, 1, 0}, []int32{1, 3, 5, 3})},
		{variant: "f32_block2x3", model: spaceBatchModel(b2s, 1, f32, nil, []int32{12, 2, 2, 1}, []int32{2, 3}, []int32{0, 0, 0, 0}, []int32{2, 4, 6, 1})},
		{variant: "f32_3d", model: spaceBatchModel(b2s, 3, f32, nil, []int32{3, 4, 2}, []int32{3}, []int32{1, 2}, []int32{1, 9, 2})},
		{variant: "int8", model: spaceBatchModel(b2s, 2, i8, optest.PerTensor(0.05, -5), []int32{8, 2, 2, 3}, []int32{2, 2}, []int32{1, 1, 0, 3}, []int32{2, 2, 1, 3}), tol: optest.Case{Exact: true}},
		{variant: "uint8", model: spaceBatchModel(b2s, 1, u8, optest.PerTensor(0.1, 131), []int32{4, 3, 3, 2}, []int32{2, 2}, []int32{0, 2, 2, 0}, []int32{1, 4, 4, 2}), tol: optest.Case{Exact: true}},
		{variant: "int16", model: spaceBatchModel(b2s, 4, i16, optest.PerTensor(0.01, 0), []int32{4, 2, 2, 5}, []int32{2, 2}, []int32{0, 0, 0, 0}, []int32{1, 4, 4, 5}), tol: optest.Case{Exact: true}},
		{variant: "int32_3d", model: spaceBatchModel(b2s, 3, schema.TensorTypeINT32, nil, []int32{4, 3, 2}, []int32{4}, []int32{3, 1}, []int32{1, 8, 2})},
		{variant: "int64", model: spaceBatchModel(b2s, 1, schema.TensorTypeINT64, nil, []int32{6, 1, 2, 2}, []int32{3, 2}, []int32{1, 0, 0, 1}, []int32{1, 2, 3, 2})},
		{variant: "bool", model: spaceBatchModel(b2s, 1, schema.TensorTypeBOOL, nil, []int32{4, 2, 2, 1}, []int32{2, 2}, []int32{1, 0, 0, 1}, []int32{1, 3, 3, 1}), tol: optest.Case{Exact: true}},
		{variant: "uint16", model: spaceBatchModel(b2s, 1, schema.TensorTypeUINT16, nil, []int32{4, 1, 3, 2}, []int32{2, 2}, []int32{0, 1, 1, 0}, []int32{1, 1, 5, 2}), tol: optest.Case{Exact: true}},
		{variant: "uint32", model: spaceBatchModel(b2s, 1, schema.TensorTypeUINT32, nil, []int32{4, 3, 1}, []int32{2}, []int32{1, 0}, []int32{2, 5, 1}), tol: optest.Case{Exact: true}},
		{variant: "f64", model: spaceBatchModel(b2s, 1, schema.TensorTypeFLOAT64, nil, []int32{4, 2, 2, 2}, []int32{2, 2}, []int32{0, 1, 0, 0}, []int32{1, 3, 4, 2}), tol: optest.Case{Exact: true}},
		{variant: "uint64", model: spaceBatchModel(b2s, 1, schema.TensorTypeUINT64, nil, []int32{3, 2, 1, 1}, []int32{1, 3}, []int32{0, 0, 1, 0}, []int32{1, 2, 2, 1}), tol: optest.Case{Exact: true}},
		{variant: "f16_const", runs: 1, model: spaceBatchConstModel(b2s, schema.TensorTypeFLOAT16, halfConsts(12, 24, false), []int32{4, 2, 3, 1}, []int32{2, 2}, []int32{0, 1, 1, 0}, []int32{1, 3, 5, 1}), tol: optest.Case{Exact: true}},
	}
}

func TestRecordBatchToSpaceND(t *testing.T) {
	recordGolden(t, "batch_to_space_nd", batchToSpaceModels())
}
func TestGoldenBatchToSpaceND(t *testing.T) { checkGolden(t, "batch_to_space_nd") }
