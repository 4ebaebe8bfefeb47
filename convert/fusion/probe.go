package fusion

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/ir"
)

// The built-in rules recognise a composite by what it computes, not by
// how its graph happens to be spelled: they evaluate pieces of the
// function (the loop body, the code before and after the loop) on probe
// values, with the converter's own constant folding, and compare the
// results with the equations of the operator they would emit. Keras
// versions differ in op order, BiasAdd versus AddV2, Split versus
// StridedSlice, identities and variable reads; the numbers do not.

// binding is what a value is fixed to in a probe: a constant tensor, or
// (for a resource handle) a resolved variable.
type binding struct {
	t *ir.Tensor
	v *ir.Variable
}

// evaluate runs a private copy of f with the given values bound and
// returns the constant values of want (nil where folding could not reach
// one). bind and want refer to values of f itself (parameters or node
// outputs); f is not modified. Errors come from simplification (a
// malformed graph).
func evaluate(f *ir.Function, bind map[*ir.Value]binding, want []*ir.Value) ([]*ir.Tensor, error) {
	g := f.Clone()
	vm := make(map[*ir.Value]*ir.Value, len(f.Params)+len(f.Nodes))
	for i, p := range f.Params {
		vm[p] = g.Params[i]
	}
	for i, n := range f.Nodes {
		for j, o := range n.Outputs {
			vm[o] = g.Nodes[i].Outputs[j]
		}
	}
	// Results first, so that binding a wanted value rewires it too.
	g.Results = make([]*ir.Value, len(want))
	g.ResultNames = make([]string, len(want))
	for i, v := range want {
		w, ok := vm[v]
		if !ok {
			return nil, fmt.Errorf("probe of %s: wanted value %s is not in the function", f.Name, v)
		}
		g.Results[i] = w
	}
	for v, b := range bind {
		w, ok := vm[v]
		if !ok {
			return nil, fmt.Errorf("probe of %s: value %s is not in the function", f.Name, v)
		}
		if b.v != nil {
			w.Variable = b.v
			continue
		}
		if w.IsParam() {
			w.Const, w.DType, w.Shape = b.t, b.t.DType, b.t.Shape.Clone()
			continue
		}
		c := g.NewConst(w.Name+"/probe", b.t)
		g.ReplaceAllUses(w, c)
	}
	if err := passes.Simplify(g); err != nil {
		return nil, err
	}
	out := make([]*ir.Tensor, len(want))
	for i, r := range g.Results {
		out[i] = r.Const
	}
	return out, nil
}

// probeRand is a small deterministic generator for probe values (a
// 64-bit LCG), so that a refusal or fusion does not depend on the run.
type probeRand struct{ s uint64 }

func (r *probeRand) next() float64 {
	r.s = r.s*6364136223846793005 + 1442695040888963407
	return float64(r.s>>11) / (1 << 53)
}

// uniform fills a float32 tensor of the shape with values in [lo, hi).
func (r *probeRand) uniform(shape ir.Shape, lo, hi float64) *ir.Tensor {
	n, _ := shape.NumElements()
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*r.next())
	}
	return ir.FromFloat32s(shape, v)
}

// ramp is a float32 tensor whose element i is i+1: a probe whose values
// say where each element came from after pure data movement.
func ramp(shape ir.Shape) *ir.Tensor {
	n, _ := shape.NumElements()
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i + 1)
	}
	return ir.FromFloat32s(shape, v)
}

// maxDiff is the largest |a−b| over two equally long vectors (+Inf when
// the lengths differ).
func maxDiff(a []float64, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		x := math.Abs(a[i] - b[i])
		if math.IsNaN(x) {
			return math.Inf(1)
		}
		d = math.Max(d, x)
	}
	return d
}

// sameValues reports whether t holds exactly the values want (in row-major
// order) with the given shape.
func sameValues(t *ir.Tensor, shape ir.Shape, want []float64) bool {
	if t == nil || !t.Shape.Equal(shape) {
		return false
	}
	return maxDiff(t.Float64s(), want) == 0
}

// constValue returns the value a weight input has at conversion time: its
// constant, or the checkpoint value of the variable a resource handle
// refers to. nil when it is computed at run time.
func constValue(v *ir.Value) *ir.Tensor {
	if v == nil {
		return nil
	}
	if v.Const != nil {
		return v.Const
	}
	if v.Variable != nil {
		return v.Variable.Value
	}
	return nil
}

// allZero reports whether every element of t is zero.
func allZero(t *ir.Tensor) bool {
	for _, x := range t.Float64s() {
		if x != 0 {
			return false
		}
	}
	return true
}
