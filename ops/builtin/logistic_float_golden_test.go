package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Float LOGISTIC against TensorFlow Lite's outputs (builtin kernels, x86:
// Eigen's packet logistic, the scalar form for the last size%4 elements),
// bit for bit (testdata/logistic_float), on inputs in [-110, 20): below
// Eigen's cut-off of -104, through the range whose results are
// subnormal (flushed to 0 by the reference), and above its clamp at
// 16.64.

func logisticFloatModel(shape ...int32) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("input", schema.TensorTypeFLOAT32, shape, nil)
	y := b.Tensor("output", schema.TensorTypeFLOAT32, shape, nil)
	return goldSingleOp(b, schema.BuiltinOperatorLOGISTIC, 1, []int32{x}, []int32{y}, []int32{x}, nil)
}

func logisticFloatGen(r *rand.Rand, _ int, _ ops.DataType) float64 {
	return 130*r.Float64() - 110
}

func logisticFloatVariants() []goldVariant {
	exact := optest.Case{Exact: true}
	return []goldVariant{
		{name: "packets", model: func() []byte { return logisticFloatModel(1, 8, 9, 7) }, gen: logisticFloatGen, tol: exact},
		{name: "tail3", model: func() []byte { return logisticFloatModel(3, 333) }, gen: logisticFloatGen, tol: exact},
		{name: "tail1", model: func() []byte { return logisticFloatModel(5) }, gen: logisticFloatGen, tol: exact},
	}
}

func TestRecordLogisticFloatGolden(t *testing.T) {
	goldRecord(t, "logistic_float", 5000, logisticFloatVariants())
}

func TestLogisticFloatGolden(t *testing.T) {
	goldCheckOrSmoke(t, "logistic_float", logisticFloatVariants())
}
