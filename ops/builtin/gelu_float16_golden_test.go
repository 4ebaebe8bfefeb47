package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of float16 GELU (version 3), exact and approximate, with
// the inputs of softmax_float16_golden_test.go.

func geluHalfVariants() []goldVariant {
	f16 := schema.TensorTypeFLOAT16
	g := func(approx bool) func() []byte {
		return func() []byte {
			return opModel(schema.BuiltinOperatorGELU, 3,
				&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsGeluOptions, Value: &schema.GeluOptionsT{Approximate: approx}},
				[]gIn{act(f16, 4, 64)}, []gOut{res(f16, 4, 64)})
		}
	}
	exact := optest.Case{Exact: true}
	return []goldVariant{
		{name: "exact", model: g(false), gen: wideHalfGen, tol: exact},
		{name: "approximate", model: g(true), gen: wideHalfGen, tol: exact},
	}
}

func TestRecordGeluFloat16Golden(t *testing.T) { goldRecord(t, "gelu_f16", 4500, geluHalfVariants()) }

func TestGeluFloat16Golden(t *testing.T) { goldCheckOrSmoke(t, "gelu_f16", geluHalfVariants()) }
