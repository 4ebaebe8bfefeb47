package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of RANGE: every type, constant and run-time scalars (an
// output sized at Invoke), rising and falling.

func TestRecordRange(t *testing.T) {
	i32, i64, f32 := schema.TensorTypeINT32, schema.TensorTypeINT64, schema.TensorTypeFLOAT32
	m := func(typ schema.TensorType, ins ...gIn) []byte {
		return opModel(schema.BuiltinOperatorRANGE, 1, nil, ins, []gOut{res(typ, 1)})
	}
	// Run-time start in [0, 4], limit in [10, 30], delta in [1, 3].
	gen := genInputs(map[int][2]int{0: {0, 4}, 1: {10, 30}, 2: {1, 3}})
	recordGolden(t, "range", []goldenModel{
		{variant: "int32_const", model: m(i32, cst(i32, optest.I32(-3)), cst(i32, optest.I32(17)), cst(i32, optest.I32(4)))},
		{variant: "int32_falling_const", model: m(i32, cst(i32, optest.I32(9)), cst(i32, optest.I32(-9)), cst(i32, optest.I32(-2)))},
		{variant: "int32_runtime", gen: gen, model: m(i32, act(i32), act(i32), act(i32))},
		{variant: "int64_runtime", gen: gen, model: m(i64, act(i64), act(i64), act(i64))},
		{variant: "float_const", model: m(f32, cst(f32, optest.F32(0.1)), cst(f32, optest.F32(3.3)), cst(f32, optest.F32(0.3)))},
		{variant: "float_runtime_limit", gen: gen, model: m(f32, cst(f32, optest.F32(-1.5)), act(f32), cst(f32, optest.F32(0.7)))},
	})
}

func TestGoldenRange(t *testing.T) { checkGolden(t, "range") }
