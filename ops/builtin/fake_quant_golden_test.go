package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Golden cases of FAKE_QUANT: symmetric, one-sided and asymmetric ranges
// (nudged zero points), 4, 8 and 16 bits, inputs beyond the range.
// Results are float32 operations TFLite computes exactly, so the cases are
// exact.

func fakeQuantModel(min, max float32, bits int32, shape ...int32) []byte {
	return opModel(schema.BuiltinOperatorFAKE_QUANT, 1,
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFakeQuantOptions, Value: &schema.FakeQuantOptionsT{Min: min, Max: max, NumBits: bits}},
		[]gIn{act(schema.TensorTypeFLOAT32, shape...)}, []gOut{res(schema.TensorTypeFLOAT32, shape...)})
}

func TestRecordFakeQuant(t *testing.T) {
	recordGolden(t, "fake_quant", []goldenModel{
		{variant: "sym8", model: fakeQuantModel(-0.9, 0.9, 8, 4, 8)},
		{variant: "pos8", model: fakeQuantModel(0, 1, 8, 33)},
		{variant: "asym8", model: fakeQuantModel(-0.37, 0.61, 8, 2, 3, 5)},
		{variant: "asym4", model: fakeQuantModel(-0.2, 0.7, 4, 40)},
		{variant: "neg16", model: fakeQuantModel(-2, 0.5, 16, 3, 7)},
	})
}

func TestGoldenFakeQuant(t *testing.T) { checkGolden(t, "fake_quant") }
