package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of the StableHLO element-wise operators and
// STABLEHLO_SHIFT_LEFT: each over the types models use.

func TestRecordStablehloElementwise(t *testing.T) {
	m := func(op schema.BuiltinOperator, typ schema.TensorType, shape ...int32) []byte {
		return opModel(op, 1, nil, []gIn{act(typ, shape...), act(typ, shape...)}, []gOut{res(typ, shape...)})
	}
	f16, f32, i8, i16, i32, i64 := schema.TensorTypeFLOAT16, schema.TensorTypeFLOAT32, schema.TensorTypeINT8, schema.TensorTypeINT16, schema.TensorTypeINT32, schema.TensorTypeINT64
	u8, b := schema.TensorTypeUINT8, schema.TensorTypeBOOL
	var models []goldenModel
	for _, op := range []struct {
		name string
		code schema.BuiltinOperator
	}{
		{"add", schema.BuiltinOperatorSTABLEHLO_ADD}, {"multiply", schema.BuiltinOperatorSTABLEHLO_MULTIPLY},
		{"maximum", schema.BuiltinOperatorSTABLEHLO_MAXIMUM}, {"minimum", schema.BuiltinOperatorSTABLEHLO_MINIMUM},
	} {
		for _, ty := range []struct {
			name string
			typ  schema.TensorType
		}{{"f16", f16}, {"f32", f32}, {"int8", i8}, {"int16", i16}, {"int32", i32}, {"int64", i64}, {"uint8", u8}, {"bool", b}} {
			models = append(models, goldenModel{variant: op.name + "_" + ty.name, model: m(op.code, ty.typ, 3, 5)})
		}
	}
	for _, ty := range []struct {
		name string
		typ  schema.TensorType
	}{{"int8", i8}, {"int32", i32}, {"uint8", u8}, {"bool", b}} {
		models = append(models, goldenModel{variant: "and_" + ty.name, model: m(schema.BuiltinOperatorSTABLEHLO_AND, ty.typ, 4, 4)})
	}
	gen := genInputs(map[int][2]int{1: {0, 31}})
	for _, ty := range []struct {
		name string
		typ  schema.TensorType
	}{{"int8", i8}, {"int16", i16}, {"int32", i32}} {
		models = append(models, goldenModel{variant: "shift_left_" + ty.name, gen: gen, model: m(schema.BuiltinOperatorSTABLEHLO_SHIFT_LEFT, ty.typ, 2, 9)})
	}
	recordGolden(t, "stablehlo_elementwise", models)
}

func TestGoldenStablehloElementwise(t *testing.T) { checkGolden(t, "stablehlo_elementwise") }
