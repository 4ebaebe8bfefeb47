package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of SPACE_TO_BATCH_ND: every type npy holds (TFLite copies
// by element size, so each is accepted), 3-D and
// 4-D inputs, unequal block sizes, padding on both sides, negative paddings
// (which TFLite accepts as crops) and quantised types whose zero point is
// the pad value.

// spaceBatchModel is a SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND model with
// constant block shape and pads.
func spaceBatchModel(code schema.BuiltinOperator, version int32, typ schema.TensorType, q *optest.Quant, in []int32, block []int32, pads []int32, out []int32) []byte {
	spatial := int32(len(block))
	return opModel(code, version, nil,
		[]gIn{actQ(typ, q, in...), cst(schema.TensorTypeINT32, optest.I32(block...), spatial), cst(schema.TensorTypeINT32, optest.I32(pads...), spatial, 2)},
		[]gOut{resQ(typ, q, out...)})
}

func spaceToBatchModels() []goldenModel {
	s2b := schema.BuiltinOperatorSPACE_TO_BATCH_ND
	f32, i8, u8, i16 := schema.TensorTypeFLOAT32, schema.TensorTypeINT8, schema.TensorTypeUINT8, schema.TensorTypeINT16
	return []goldenModel{
		{variant: "f32_4d", model: spaceBatchModel(s2b, 1, f32, nil, []int32{1, 5, 4, 3}, []int32{2, 2}, []int32{1, 0, 1, 1}, []int32{4, 3, 3, 3})},
		{variant: "f32_block2x3", model: spaceBatchModel(s2b, 1, f32, nil, []int32{2, 4, 5, 2}, []int32{2, 3}, []int32{0, 2, 1, 0}, []int32{12, 3, 2, 2})},
		{variant: "f32_3d", model: spaceBatchModel(s2b, 3, f32, nil, []int32{2, 5, 3}, []int32{3}, []int32{1, 0}, []int32{6, 2, 3})},
		{variant: "f32_negative_pad", model: spaceBatchModel(s2b, 1, f32, nil, []int32{1, 6, 6, 1}, []int32{2, 2}, []int32{-1, 1, 0, -2}, []int32{4, 3, 2, 1})},
		{variant: "int8_zp", model: spaceBatchModel(s2b, 2, i8, optest.PerTensor(0.05, -5), []int32{1, 3, 3, 4}, []int32{2, 2}, []int32{1, 0, 0, 1}, []int32{4, 2, 2, 4}), tol: optest.Case{Exact: true}},
		{variant: "uint8_zp", model: spaceBatchModel(s2b, 1, u8, optest.PerTensor(0.1, 131), []int32{2, 2, 3, 3}, []int32{2, 2}, []int32{1, 1, 0, 1}, []int32{8, 2, 2, 3}), tol: optest.Case{Exact: true}},
		{variant: "int16", model: spaceBatchModel(s2b, 4, i16, optest.PerTensor(0.01, 0), []int32{1, 4, 4, 3}, []int32{2, 2}, []int32{2, 0, 1, 1}, []int32{4, 3, 3, 3}), tol: optest.Case{Exact: true}},
		{variant: "int32_3d", model: spaceBatchModel(s2b, 3, schema.TensorTypeINT32, nil, []int32{3, 4, 5}, []int32{2}, []int32{1, 1}, []int32{6, 3, 5})},
		{variant: "int64", model: spaceBatchModel(s2b, 1, schema.TensorTypeINT64, nil, []int32{1, 2, 2, 2}, []int32{2, 1}, []int32{0, 0, 1, 0}, []int32{2, 1, 3, 2})},
		{variant: "bool", model: spaceBatchModel(s2b, 1, schema.TensorTypeBOOL, nil, []int32{1, 3, 2, 2}, []int32{3, 2}, []int32{0, 0, 1, 1}, []int32{6, 1, 2, 2})},
		{variant: "uint16", model: spaceBatchModel(s2b, 1, schema.TensorTypeUINT16, nil, []int32{1, 3, 4, 2}, []int32{2, 2}, []int32{1, 0, 0, 2}, []int32{4, 2, 3, 2}), tol: optest.Case{Exact: true}},
		{variant: "uint32", model: spaceBatchModel(s2b, 1, schema.TensorTypeUINT32, nil, []int32{2, 3, 1}, []int32{2}, []int32{0, 1}, []int32{4, 2, 1}), tol: optest.Case{Exact: true}},
		{variant: "f64", model: spaceBatchModel(s2b, 1, schema.TensorTypeFLOAT64, nil, []int32{1, 3, 3, 2}, []int32{2, 2}, []int32{1, 0, 0, 1}, []int32{4, 2, 2, 2}), tol: optest.Case{Exact: true}},
		{variant: "uint64", model: spaceBatchModel(s2b, 1, schema.TensorTypeUINT64, nil, []int32{1, 2, 3, 1}, []int32{1, 3}, []int32{0, 0, 0, 0}, []int32{3, 2, 1, 1}), tol: optest.Case{Exact: true}},
		{variant: "f16_const", runs: 1, model: spaceBatchConstModel(s2b, schema.TensorTypeFLOAT16, halfConsts(11, 24, false), []int32{1, 4, 3, 2}, []int32{2, 2}, []int32{0, 0, 1, 0}, []int32{4, 2, 2, 2}), tol: optest.Case{Exact: true}},
	}
}

// spaceBatchConstModel is spaceBatchModel with a constant input (float16,
// which the case files' random inputs cannot draw).
func spaceBatchConstModel(code schema.BuiltinOperator, typ schema.TensorType, data []byte, in []int32, block []int32, pads []int32, out []int32) []byte {
	spatial := int32(len(block))
	return opModel(code, 1, nil,
		[]gIn{cst(typ, data, in...), cst(schema.TensorTypeINT32, optest.I32(block...), spatial), cst(schema.TensorTypeINT32, optest.I32(pads...), spatial, 2)},
		[]gOut{res(typ, out...)})
}

func TestRecordSpaceToBatchND(t *testing.T) {
	recordGolden(t, "space_to_batch_nd", spaceToBatchModels())
}
func TestGoldenSpaceToBatchND(t *testing.T) { checkGolden(t, "space_to_batch_nd") }
