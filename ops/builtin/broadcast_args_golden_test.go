package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of BROADCAST_ARGS: int32 and int64 shapes of different
// lengths against all-ones (any sizes broadcast), and two constants.

func TestRecordBroadcastArgs(t *testing.T) {
	i32, i64 := schema.TensorTypeINT32, schema.TensorTypeINT64
	m := func(typ schema.TensorType, a, b gIn, n int32) []byte {
		return opModel(schema.BuiltinOperatorBROADCAST_ARGS, 1, nil, []gIn{a, b}, []gOut{res(typ, n)})
	}
	ones := genInputs(map[int][2]int{1: {1, 1}})
	recordGolden(t, "broadcast_args", []goldenModel{
		{variant: "int32", gen: ones, model: m(i32, act(i32, 3), act(i32, 5), 5)},
		{variant: "int64", gen: ones, model: m(i64, act(i64, 4), act(i64, 2), 4)},
		{variant: "int32_const", runs: 1, model: m(i32, cst(i32, optest.I32(1, 4, 1), 3), cst(i32, optest.I32(2, 3, 1, 6), 4), 4)},
	})
}

func TestGoldenBroadcastArgs(t *testing.T) { checkGolden(t, "broadcast_args") }
