package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// int16 LOGISTIC and TANH against TensorFlow Lite's builtin kernels, bit
// for bit (testdata/int16_act), over the whole int16 input range: input
// scales that are not 2^-12 (TANH: 2^-11) take TFLite's interpolated
// sigmoid-table path (reference_integer_ops::Logistic/Tanh), with right
// shifts from 0 to 31; 2^-12 takes gemmlowp's fixed-point path. TANH at
// scale 7 overflows the int32 rescale for large inputs, as TFLite's does.

func int16ActModel(op schema.BuiltinOperator, inScale float32) func() []byte {
	return func() []byte {
		b := optest.NewBuilder()
		x := b.Tensor("input", schema.TensorTypeINT16, []int32{2, 517}, optest.PerTensor(inScale, 0))
		y := b.Tensor("output", schema.TensorTypeINT16, []int32{2, 517}, optest.PerTensor(1.0/32768, 0))
		return goldSingleOp(b, op, 3, []int32{x}, []int32{y}, []int32{x}, nil)
	}
}

func int16ActVariants() []goldVariant {
	exact := optest.Case{Exact: true}
	lg, th := schema.BuiltinOperatorLOGISTIC, schema.BuiltinOperatorTANH
	return []goldVariant{
		{name: "logistic_0.001", model: int16ActModel(lg, 0.001), tol: exact},
		{name: "logistic_2e-11", model: int16ActModel(lg, 1.0/2048), tol: exact},
		{name: "logistic_3e-4", model: int16ActModel(lg, 0.0003), tol: exact},
		{name: "logistic_1e-9", model: int16ActModel(lg, 1e-9), tol: exact},
		{name: "logistic_2e-12", model: int16ActModel(lg, 1.0/4096), tol: exact},
		{name: "tanh_0.001", model: int16ActModel(th, 0.001), tol: exact},
		{name: "tanh_2e-13", model: int16ActModel(th, 1.0/8192), tol: exact},
		{name: "tanh_0.37", model: int16ActModel(th, 0.37), tol: exact},
		{name: "tanh_7", model: int16ActModel(th, 7), tol: exact},
		{name: "tanh_2e-11", model: int16ActModel(th, 1.0/2048), tol: exact},
	}
}

func TestRecordInt16ActGolden(t *testing.T) {
	goldRecord(t, "int16_act", 6000, int16ActVariants())
}

func TestInt16ActGolden(t *testing.T) {
	goldCheckOrSmoke(t, "int16_act", int16ActVariants())
}
