package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of ONE_HOT: every output type, int32 and int64 indices
// (some outside [0, depth)), the new axis first, inside and last.

func oneHotModel(typ schema.TensorType, on, off []byte, idxType schema.TensorType, axis, depth int32, idx []int32, out ...int32) []byte {
	return opModel(schema.BuiltinOperatorONE_HOT, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsOneHotOptions, Value: &schema.OneHotOptionsT{Axis: axis}},
		[]gIn{act(idxType, idx...), cst(schema.TensorTypeINT32, optest.I32(depth)), cst(typ, on), cst(typ, off)},
		[]gOut{res(typ, out...)})
}

func TestRecordOneHot(t *testing.T) {
	i32, i64 := schema.TensorTypeINT32, schema.TensorTypeINT64
	gen := genInputs(map[int][2]int{0: {-1, 4}})
	recordGolden(t, "one_hot", []goldenModel{
		{variant: "f32_last", gen: gen, model: oneHotModel(schema.TensorTypeFLOAT32, optest.F32(1.5), optest.F32(-0.25), i32, -1, 4, []int32{3, 2}, 3, 2, 4)},
		{variant: "f32_axis0", gen: gen, model: oneHotModel(schema.TensorTypeFLOAT32, optest.F32(1), optest.F32(0), i32, 0, 5, []int32{6}, 5, 6)},
		{variant: "int32_axis1_int64_indices", gen: gen, model: oneHotModel(i32, optest.I32(7), optest.I32(-3), i64, 1, 3, []int32{2, 4}, 2, 3, 4)},
		{variant: "int64", gen: gen, model: oneHotModel(i64, optest.I64(1<<40), optest.I64(5), i32, -1, 4, []int32{5}, 5, 4)},
		{variant: "int8", gen: gen, model: oneHotModel(schema.TensorTypeINT8, optest.I8(-7), optest.I8(100), i32, -1, 4, []int32{2, 3}, 2, 3, 4)},
		{variant: "uint8", gen: gen, model: oneHotModel(schema.TensorTypeUINT8, []byte{255}, []byte{3}, i32, 1, 2, []int32{3, 2}, 3, 2, 2)},
		{variant: "bool", gen: gen, model: oneHotModel(schema.TensorTypeBOOL, []byte{1}, []byte{0}, i32, -1, 4, []int32{6}, 6, 4)},
	})
}

func TestGoldenOneHot(t *testing.T) { checkGolden(t, "one_hot") }
