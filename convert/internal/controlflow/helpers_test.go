package controlflow_test

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/interpreter"
)

// run loads a converted model, feeds float32 inputs in order and returns
// every output.
func run(t *testing.T, model []byte, inputs ...[]float32) [][]float32 {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatalf("interpreter rejects the converted model: %v", err)
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatalf("AllocateTensors: %v", err)
	}
	for i, x := range inputs {
		in := it.Input(i).Float32s()
		if len(in) != len(x) {
			t.Fatalf("input %d has %d elements, test gives %d", i, len(in), len(x))
		}
		copy(in, x)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	var outs [][]float32
	for i := 0; i < it.OutputCount(); i++ {
		outs = append(outs, append([]float32(nil), it.Output(i).Float32s()...))
	}
	return outs
}

// ops lists the converted function's operators ("TANH", ...).
func ops(res *convert.Result) []string {
	var out []string
	for _, n := range res.Entry.Func.Nodes {
		if n.TFL != nil {
			out = append(out, strings.TrimPrefix(n.OpName(), "tfl."))
		}
	}
	return out
}

func near(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if d := math.Abs(float64(got[i]) - want[i]); d > tol || math.IsNaN(float64(got[i])) {
			t.Fatalf("%s[%d] = %g, want %g (|diff| %.3g > %.1g)", what, i, got[i], want[i], d, tol)
		}
	}
}

// rnnReference is h_t = tanh(x_t · w + h_{t-1}) over x [T][2] with
// w = [[0.5, -0.25], [0.75, 1.5]], h_0 = 0, in float64: the sequence and
// the last state.
func rnnReference(x [][2]float64) ([]float64, []float64) {
	w := [2][2]float64{{0.5, -0.25}, {0.75, 1.5}}
	var h [2]float64
	var seq []float64
	for _, xt := range x {
		var n [2]float64
		for j := 0; j < 2; j++ {
			n[j] = math.Tanh(xt[0]*w[0][j] + xt[1]*w[1][j] + h[j])
		}
		h = n
		seq = append(seq, h[0], h[1])
	}
	return seq, h[:]
}
