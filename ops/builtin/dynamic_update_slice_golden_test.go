package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of DYNAMIC_UPDATE_SLICE: random starts in [-2, 6] (clamped
// so the update fits), int32 and int64 starts, several element sizes, the
// update as large as the operand, every type npy holds (TFLite copies by
// element size) and float16 (constant operand and update).

func dusModel(version int32, typ schema.TensorType, opIn, upd gIn, startType schema.TensorType, shape ...int32) []byte {
	return opModel(schema.BuiltinOperatorDYNAMIC_UPDATE_SLICE, version, nil,
		[]gIn{opIn, upd, act(startType, int32(len(shape)))}, []gOut{res(typ, shape...)})
}

func TestRecordDynamicUpdateSlice(t *testing.T) {
	f32, i32 := schema.TensorTypeFLOAT32, schema.TensorTypeINT32
	starts := func(i int) optest.InputGen { return genInputs(map[int][2]int{i: {-2, 6}}) }
	recordGolden(t, "dynamic_update_slice", []goldenModel{
		{variant: "f32_2d", gen: starts(2), model: dusModel(1, f32, act(f32, 5, 6), act(f32, 2, 3), i32, 5, 6)},
		{variant: "f32_4d", gen: starts(2), model: dusModel(1, f32, act(f32, 2, 3, 4, 5), act(f32, 1, 2, 2, 3), i32, 2, 3, 4, 5)},
		{variant: "f32_whole", gen: starts(2), model: dusModel(1, f32, act(f32, 3, 2), act(f32, 3, 2), i32, 3, 2)},
		{variant: "int64_starts", gen: starts(2), model: dusModel(2, f32, act(f32, 4, 4), act(f32, 3, 1), schema.TensorTypeINT64, 4, 4)},
		{variant: "int8", gen: starts(2), model: dusModel(1, schema.TensorTypeINT8, act(schema.TensorTypeINT8, 6, 3), act(schema.TensorTypeINT8, 2, 2), i32, 6, 3)},
		{variant: "int16", gen: starts(2), model: dusModel(4, schema.TensorTypeINT16, act(schema.TensorTypeINT16, 7), act(schema.TensorTypeINT16, 3), i32, 7)},
		{variant: "int32_3d", gen: starts(2), model: dusModel(1, i32, act(i32, 3, 3, 3), act(i32, 2, 1, 3), i32, 3, 3, 3)},
		{variant: "uint8", gen: starts(2), model: dusModel(1, schema.TensorTypeUINT8, act(schema.TensorTypeUINT8, 3, 6), act(schema.TensorTypeUINT8, 1, 4), i32, 3, 6), tol: optest.Case{Exact: true}},
		{variant: "uint16", gen: starts(2), model: dusModel(1, schema.TensorTypeUINT16, act(schema.TensorTypeUINT16, 5, 2), act(schema.TensorTypeUINT16, 2, 1), i32, 5, 2), tol: optest.Case{Exact: true}},
		{variant: "uint32", gen: starts(2), model: dusModel(1, schema.TensorTypeUINT32, act(schema.TensorTypeUINT32, 6), act(schema.TensorTypeUINT32, 4), i32, 6), tol: optest.Case{Exact: true}},
		{variant: "int64", gen: starts(2), model: dusModel(1, schema.TensorTypeINT64, act(schema.TensorTypeINT64, 4, 3), act(schema.TensorTypeINT64, 2, 2), schema.TensorTypeINT64, 4, 3), tol: optest.Case{Exact: true}},
		{variant: "f64", gen: starts(2), model: dusModel(1, schema.TensorTypeFLOAT64, act(schema.TensorTypeFLOAT64, 3, 4), act(schema.TensorTypeFLOAT64, 3, 2), i32, 3, 4), tol: optest.Case{Exact: true}},
		{variant: "uint64", gen: starts(2), model: dusModel(1, schema.TensorTypeUINT64, act(schema.TensorTypeUINT64, 2, 5), act(schema.TensorTypeUINT64, 1, 3), i32, 2, 5), tol: optest.Case{Exact: true}},
		{variant: "bool", gen: starts(2), model: dusModel(1, schema.TensorTypeBOOL, act(schema.TensorTypeBOOL, 4, 5), act(schema.TensorTypeBOOL, 2, 2), i32, 4, 5)},
		{variant: "f16_const", gen: starts(0), model: dusModel(3, schema.TensorTypeFLOAT16,
			cst(schema.TensorTypeFLOAT16, halfConsts(7, 20, false), 4, 5), cst(schema.TensorTypeFLOAT16, halfConsts(8, 6, false), 2, 3), i32, 4, 5)},
	})
}

func TestGoldenDynamicUpdateSlice(t *testing.T) { checkGolden(t, "dynamic_update_slice") }
