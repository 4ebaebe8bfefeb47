package fusion_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/interpreter"
)

// This file holds independent float64 models of the Keras layers the
// real SavedModels use, computed straight from the checkpoint variables
// with the Keras equations (not from the graph and not through the
// converter), and the helpers the SavedModel tests share.

// shared returns the path of a file under ../shared (relative to the
// repository root), skipping the test when it is absent.
func shared(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not available: %v", p, err)
	}
	return p
}

// tensorData is a checkpoint variable as float64, with its shape.
type tensorData struct {
	v     []float64
	shape []int
}

// variable reads the checkpoint value of the variable whose VarHandleOp
// node is named node.
func variable(t *testing.T, m *tfmodel.Model, node string) tensorData {
	t.Helper()
	vars, err := m.Variables()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vars {
		if v.Node != node {
			continue
		}
		x, err := m.Bundle.Read(v.Key)
		if err != nil {
			t.Fatal(err)
		}
		return tensorData{v: x.Float64s(), shape: x.Shape}
	}
	t.Fatalf("%s has no variable %q", m.Path, node)
	return tensorData{}
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
func relu(x float64) float64    { return math.Max(x, 0) }
func linear(x float64) float64  { return x }

// kerasLSTM runs a Keras LSTM (kernel [n_in, 4u], recurrent kernel [u,
// 4u], bias [4u], gates i, f, c, o; sigmoid gates, tanh) over xs [T][n_in]
// from state (h, c), updating it. It returns every step's output and the
// largest |c| met (the fused operator clips c at 10, Keras does not).
func kerasLSTM(W, R, b tensorData, xs [][]float64, h, c []float64) (outs [][]float64, maxC float64) {
	return kerasLSTMGates(sigmoid, W, R, b, xs, h, c)
}

// kerasLSTMGates is kerasLSTM with another recurrent (gate) activation.
func kerasLSTMGates(gate func(float64) float64, W, R, b tensorData, xs [][]float64, h, c []float64) (outs [][]float64, maxC float64) {
	nIn, u := W.shape[0], W.shape[1]/4
	for _, x := range xs {
		z := make([]float64, 4*u)
		for j := range z {
			s := b.v[j]
			for k := 0; k < nIn; k++ {
				s += x[k] * W.v[k*4*u+j]
			}
			for k := 0; k < u; k++ {
				s += h[k] * R.v[k*4*u+j]
			}
			z[j] = s
		}
		for j := 0; j < u; j++ {
			i, f, g := gate(z[j]), gate(z[u+j]), math.Tanh(z[2*u+j])
			c[j] = f*c[j] + i*g
			maxC = math.Max(maxC, math.Abs(c[j]))
		}
		for j := 0; j < u; j++ {
			h[j] = gate(z[3*u+j]) * math.Tanh(c[j])
		}
		outs = append(outs, append([]float64(nil), h...))
	}
	return outs, maxC
}

// kerasGRU runs a Keras GRU with reset_after=True (kernel [n_in, 3u],
// recurrent kernel [u, 3u], bias [2, 3u] = input and recurrent biases,
// gates z, r, h) over xs from h, updating it.
func kerasGRU(W, R, b tensorData, xs [][]float64, h []float64) [][]float64 {
	nIn, u := W.shape[0], W.shape[1]/3
	var outs [][]float64
	for _, x := range xs {
		xz := make([]float64, 3*u)
		hz := make([]float64, 3*u)
		for j := 0; j < 3*u; j++ {
			xz[j], hz[j] = b.v[j], b.v[3*u+j]
			for k := 0; k < nIn; k++ {
				xz[j] += x[k] * W.v[k*3*u+j]
			}
			for k := 0; k < u; k++ {
				hz[j] += h[k] * R.v[k*3*u+j]
			}
		}
		next := make([]float64, u)
		for j := 0; j < u; j++ {
			z := sigmoid(xz[j] + hz[j])
			r := sigmoid(xz[u+j] + hz[u+j])
			hh := math.Tanh(xz[2*u+j] + r*hz[2*u+j])
			next[j] = z*h[j] + (1-z)*hh
		}
		copy(h, next)
		outs = append(outs, append([]float64(nil), h...))
	}
	return outs
}

// dense is a Keras Dense layer: act(x·K + b), K [n_in, n_out].
func dense(K, b tensorData, x []float64, act func(float64) float64) []float64 {
	nIn, nOut := K.shape[0], K.shape[1]
	out := make([]float64, nOut)
	for j := range out {
		s := b.v[j]
		for k := 0; k < nIn; k++ {
			s += x[k] * K.v[k*nOut+j]
		}
		out[j] = act(s)
	}
	return out
}

// reverse returns xs in reverse order.
func reverse(xs [][]float64) [][]float64 {
	out := make([][]float64, len(xs))
	for i, x := range xs {
		out[len(xs)-1-i] = x
	}
	return out
}

// steps splits a [T·n] row-major sequence (batch 1) into T rows.
func steps(x []float32, T int) [][]float64 {
	n := len(x) / T
	out := make([][]float64, T)
	for t := range out {
		out[t] = make([]float64, n)
		for k := range out[t] {
			out[t][k] = float64(x[t*n+k])
		}
	}
	return out
}

// probeInput is a deterministic input in [-1, 1).
func probeInput(n int, seed float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.Sin(float64(i)*0.731+seed) * math.Cos(float64(i)*0.17+2*seed))
	}
	return v
}

// conversion converts a model with the default rules (or reg) and checks
// that it fused every composite the report lists.
func conversion(t *testing.T, path string, opts convert.Options) *convert.Result {
	t.Helper()
	res, err := convert.ConvertModel(loadModel(t, path), opts)
	if err != nil {
		if res != nil && res.Report != nil {
			t.Log(res.Report.Text())
		}
		t.Fatal(err)
	}
	for _, e := range res.Report.Composites {
		if !e.Fused && !opts.NoFuse {
			t.Errorf("composite %s (%s) not fused: %s", e.Call, e.Implements, e.Reason)
		}
	}
	return res
}

// opCounts counts the operators of a converted model by name.
func opCounts(res *convert.Result) map[string]int {
	c := map[string]int{}
	for _, n := range res.Entry.Func.Nodes {
		if n.TFL != nil {
			c[strings.TrimPrefix(n.OpName(), "tfl.")]++
		}
	}
	return c
}

// runner runs a converted model invoke by invoke.
type runner struct {
	t  *testing.T
	it *interpreter.Interpreter
}

func newRunner(t *testing.T, model []byte) *runner {
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
	return &runner{t: t, it: it}
}

// run sets the inputs, invokes and returns a copy of every output.
func (r *runner) run(inputs ...[]float32) [][]float32 {
	r.t.Helper()
	for i, x := range inputs {
		in := r.it.Input(i).Float32s()
		if len(in) != len(x) {
			r.t.Fatalf("input %d has %d elements, the test gives %d", i, len(in), len(x))
		}
		copy(in, x)
	}
	if err := r.it.Invoke(); err != nil {
		r.t.Fatal(err)
	}
	out := make([][]float32, r.it.OutputCount())
	for i := range out {
		out[i] = append([]float32(nil), r.it.Output(i).Float32s()...)
	}
	return out
}

// maxErr is max |got − want|, failing on a length mismatch.
func maxErr(t *testing.T, got []float32, want []float64) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	d := 0.0
	for i := range want {
		d = math.Max(d, math.Abs(float64(got[i])-want[i]))
	}
	return d
}

func flatten(xs ...[]float64) []float64 {
	var out []float64
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// exactKeras is a registry whose LSTM rules write no cell clip, so that
// the fused model computes exactly Keras's equations whatever the cell
// state reaches.
func exactKeras(t *testing.T) *fusion.Registry {
	t.Helper()
	r := fusion.NewRegistry()
	if err := fusion.RegisterBuiltins(r, fusion.BuiltinOptions{}); err != nil {
		t.Fatal(err)
	}
	return r
}
