package convert

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

// TestIsNan: IsNan becomes NOT_EQUAL(x, x); a NaN guard (SelectV2 of
// IsNan, as Keras preprocessing writes) replaces exactly the NaNs.
func TestIsNan(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", 4)
	isNan := g.node("IsNan", "nan", []string{x}, attrs{"T": tAttr(ir.Float32)})
	zero := g.constF("zero", ir.Shape{}, []float32{0})
	g.op("SelectV2", "out", []string{isNan, zero, x}, nil)
	res := g.mustConvert(t, "NOT_EQUAL SELECT_V2", "out")
	nan := float32(math.NaN())
	got := runModel(t, res.Model, []float32{1, nan, -2, nan})
	near(t, "guarded", got, []float64{1, 0, -2, 0}, 0)
}
