package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and MULTINOMIAL
// recorded from TensorFlow Lite's builtin kernels: the Philox streams for
// given seeds (both seeds set, or only one), even and odd output sizes
// (RANDOM_STANDARD_NORMAL's Box–Muller pairs), shapes over several Philox
// blocks, and MULTINOMIAL's categorical draws (int32 and int64 outputs,
// rows with very negative logits) after its fixed skip of the stream.

// multinomialModel is a MULTINOMIAL model: logits [batch, classes] as the
// model input, a constant num_samples.
func multinomialModel(seed, seed2 int64, out schema.TensorType, batch, classes, samples int32) []byte {
	return opModel(schema.BuiltinOperatorMULTINOMIAL, 1, randomOpts(seed, seed2),
		[]gIn{act(schema.TensorTypeFLOAT32, batch, classes), cst(schema.TensorTypeINT32, optest.I32(samples))},
		[]gOut{res(out, batch, samples)})
}

func TestRecordRandom(t *testing.T) {
	u, n := schema.BuiltinOperatorRANDOM_UNIFORM, schema.BuiltinOperatorRANDOM_STANDARD_NORMAL
	one := optest.Case{}
	exact := optest.Case{Exact: true}
	logits := func(lo, hi float64) optest.InputGen {
		return func(r *rand.Rand, _ int, _ ops.DataType) float64 { return lo + (hi-lo)*r.Float64() }
	}
	recordGolden(t, "random", []goldenModel{
		{variant: "uniform_2x3x5", model: randomShapeModel(u, 7, 11, 2, 3, 5), runs: 1, tol: one},
		{variant: "uniform_17_seed_only", model: randomShapeModel(u, 123456789, 0, 17), runs: 1, tol: one},
		{variant: "uniform_1x1000", model: randomShapeModel(u, -3, 99, 1, 1000), runs: 1, tol: one},
		{variant: "normal_4x4", model: randomShapeModel(n, 7, 11, 4, 4), runs: 1, tol: one},
		{variant: "normal_odd_7", model: randomShapeModel(n, 0, 42, 7), runs: 1, tol: one},
		{variant: "normal_3x333", model: randomShapeModel(n, 2026, 12, 3, 333), runs: 1, tol: one},
		{variant: "multinomial_i64_2x3x50", model: multinomialModel(3, 4, schema.TensorTypeINT64, 2, 3, 50), gen: logits(-2, 2), tol: exact},
		{variant: "multinomial_i32_5x10x7", model: multinomialModel(17, 1, schema.TensorTypeINT32, 5, 10, 7), gen: logits(-5, 5), tol: exact},
		{variant: "multinomial_i64_1x100x257", model: multinomialModel(9, 9, schema.TensorTypeINT64, 1, 100, 257), gen: logits(-1, 1), tol: exact},
	})
}

func TestGoldenRandom(t *testing.T) { checkGolden(t, "random") }
