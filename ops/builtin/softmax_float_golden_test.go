package builtin_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Float SOFTMAX against TensorFlow Lite's outputs (builtin kernels, x86:
// one Eigen expression over the tensor, packet exponential for the first
// size&^3 elements and expf for the rest, each row's sum in Eigen's
// vectorised column order), bit for bit (testdata/softmax_float): rows
// whose starts fall at every offset mod 4, rows shorter than a packet,
// β ≠ 1, and logits spread far enough (−200 … 60) that some exponents
// fall below Eigen's −87 fast path and its −104 cut-off, and masked
// logits (−Inf).

func softmaxFloatModel(beta float32, shape ...int32) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("input", schema.TensorTypeFLOAT32, shape, nil)
	y := b.Tensor("output", schema.TensorTypeFLOAT32, shape, nil)
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSoftmaxOptions, Value: &schema.SoftmaxOptionsT{Beta: beta}}
	return goldSingleOp(b, schema.BuiltinOperatorSOFTMAX, 1, []int32{x}, []int32{y}, []int32{x}, opts)
}

func softmaxFloatGen(r *rand.Rand, _ int, _ ops.DataType) float64 {
	switch r.IntN(16) {
	case 0:
		return math.Inf(-1)
	case 1, 2:
		return 260*r.Float64() - 200
	}
	return 16*r.Float64() - 8
}

func softmaxFloatVariants() []goldVariant {
	exact := optest.Case{Exact: true}
	return []goldVariant{
		{name: "rows37", model: func() []byte { return softmaxFloatModel(1, 1, 5, 37) }, gen: softmaxFloatGen, tol: exact},
		{name: "rows1000_beta", model: func() []byte { return softmaxFloatModel(0.7, 3, 1001) }, gen: softmaxFloatGen, tol: exact},
		{name: "rows3", model: func() []byte { return softmaxFloatModel(2, 2, 7, 3) }, gen: softmaxFloatGen, tol: exact},
		{name: "rows16", model: func() []byte { return softmaxFloatModel(1, 1, 4, 6, 16) }, gen: softmaxFloatGen, tol: exact},
	}
}

func TestRecordSoftmaxFloatGolden(t *testing.T) {
	goldRecord(t, "softmax_float", 6000, softmaxFloatVariants())
}

func TestSoftmaxFloatGolden(t *testing.T) {
	goldCheckOrSmoke(t, "softmax_float", softmaxFloatVariants())
}
