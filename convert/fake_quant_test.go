package convert

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

// fakeQuant64 is TensorFlow's fake quantisation (Nudge, then clamp,
// quantise, dequantise) in float64, written from the op's definition.
func fakeQuant64(x, min, max float64, bits int, narrow bool) float64 {
	qmin, qmax := 0.0, math.Exp2(float64(bits))-1
	if narrow {
		qmin = 1
	}
	scale := (max - min) / (qmax - qmin)
	zp := math.Round(math.Min(math.Max(qmin-min/scale, qmin), qmax))
	lo, hi := (qmin-zp)*scale, (qmax-zp)*scale
	c := math.Min(math.Max(x, lo), hi)
	return math.Floor((c-lo)/scale+0.5)*scale + lo
}

// TestFakeQuant: quantisation-aware training's fake quantisation — per
// channel on constant weights (narrow range, as TensorFlow's QAT writes
// weights) folds, on a run-time tensor it becomes FAKE_QUANT — matches
// the float64 equations; what TFLite cannot run is refused by name.
func TestFakeQuant(t *testing.T) {
	build := func(narrowOut bool, perChannelOut bool) *graph {
		g := newGraph()
		x := g.placeholder("x", 2, 3)
		w := g.constF("w", ir.Shape{3, 4}, seq(12, 0.8, 0.3))
		wmin := g.constF("wmin", ir.Shape{4}, []float32{-0.7, -0.5, -0.8, -0.2})
		wmax := g.constF("wmax", ir.Shape{4}, []float32{0.6, 0.9, 0.3, 0.8})
		wq := g.op("FakeQuantWithMinMaxVarsPerChannel", "wq", []string{w, wmin, wmax}, attrs{"num_bits": iAttr(8), "narrow_range": bAttr(true)})
		y := g.op("MatMul", "y", []string{x, wq}, nil)
		lo := g.constF("lo", ir.Shape{}, []float32{-2})
		hi := g.constF("hi", ir.Shape{}, []float32{3})
		op := "FakeQuantWithMinMaxVars"
		if perChannelOut {
			lo = g.constF("lo1", ir.Shape{4}, []float32{-2, -2, -2, -2})
			hi = g.constF("hi1", ir.Shape{4}, []float32{3, 3, 3, 3})
			op = "FakeQuantWithMinMaxVarsPerChannel"
		}
		g.op(op, "out", []string{y, lo, hi}, attrs{"num_bits": iAttr(6), "narrow_range": bAttr(narrowOut)})
		// The FakeQuant ops have no T attribute.
		for _, n := range g.g.Node {
			if strings.HasPrefix(n.Op, "FakeQuant") {
				delete(n.Attr, "T")
			}
		}
		return g
	}
	res := build(false, false).mustConvert(t, "FULLY_CONNECTED FAKE_QUANT", "out")
	in := seq(6, 1.5, 1.1)
	got := runModel(t, res.Model, in)
	w := seq(12, 0.8, 0.3)
	wmin := []float64{-0.7, -0.5, -0.8, -0.2}
	wmax := []float64{0.6, 0.9, 0.3, 0.8}
	want := make([]float64, 8)
	for i := 0; i < 2; i++ {
		for j := 0; j < 4; j++ {
			s := 0.0
			for k := 0; k < 3; k++ {
				s += float64(in[i*3+k]) * fakeQuant64(float64(w[k*4+j]), wmin[j], wmax[j], 8, true)
			}
			want[i*4+j] = fakeQuant64(s, -2, 3, 6, false)
		}
	}
	near(t, "fake-quantised output", got, want, 1e-5)

	for _, c := range []struct {
		narrow, perChannel bool
		want               string
	}{
		{true, false, "narrow_range fake quantisation of a run-time tensor"},
		{false, true, "per-channel fake quantisation of a run-time tensor"},
	} {
		_, err := build(c.narrow, c.perChannel).convert(t, "out")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"out"`) {
			t.Errorf("narrow %v per-channel %v: %v, want %q naming the node", c.narrow, c.perChannel, err, c.want)
		}
	}
	// A range that does not hold zero is refused, naming the channel.
	g := newGraph()
	w0 := g.constF("w", ir.Shape{2}, []float32{1, 2})
	g.op("FakeQuantWithMinMaxVarsPerChannel", "q", []string{w0, g.constF("mn", ir.Shape{2}, []float32{-1, 0.5}), g.constF("mx", ir.Shape{2}, []float32{1, 2})}, attrs{})
	g.placeholder("x", 2)
	g.op("AddV2", "out", []string{"x", "q"}, nil)
	if _, err := g.convert(t, "out"); err == nil || !strings.Contains(err.Error(), "channel 1: range [0.5, 2] is not a non-empty range holding 0") {
		t.Errorf("bad range: %v", err)
	}
}
