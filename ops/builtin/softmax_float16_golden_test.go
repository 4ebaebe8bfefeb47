package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of float16 SOFTMAX (version 4) and GELU (version 3),
// inputs over [−6, 6) so that GELU's erfc takes both of its branches.
// Until they are recorded (no native runner on the project's machines)
// the check runs the models through the interpreter only.

func wideHalfGen(r *rand.Rand, _ int, _ ops.DataType) float64 { return 12*r.Float64() - 6 }

func softmaxHalfVariants() []goldVariant {
	f16 := schema.TensorTypeFLOAT16
	sm := func(beta float32, shape ...int32) func() []byte {
		return func() []byte {
			return opModel(schema.BuiltinOperatorSOFTMAX, 4,
				&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSoftmaxOptions, Value: &schema.SoftmaxOptionsT{Beta: beta}},
				[]gIn{act(f16, shape...)}, []gOut{res(f16, shape...)})
		}
	}
	exact := optest.Case{Exact: true}
	return []goldVariant{
		{name: "beta1", model: sm(1, 3, 17), gen: wideHalfGen, tol: exact},
		{name: "beta0.25_rank4", model: sm(0.25, 2, 2, 3, 9), gen: wideHalfGen, tol: exact},
		{name: "beta3_long_rows", model: sm(3, 2, 300), gen: wideHalfGen, tol: exact},
	}
}

func TestRecordSoftmaxFloat16Golden(t *testing.T) {
	goldRecord(t, "softmax_f16", 4400, softmaxHalfVariants())
}

func TestSoftmaxFloat16Golden(t *testing.T) {
	goldCheckOrSmoke(t, "softmax_f16", softmaxHalfVariants())
}
