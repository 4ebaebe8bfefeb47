package convert

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
)

// signatures returns the shape_signature of every input and output of a
// written model's first subgraph.
func signatures(t *testing.T, model []byte) (ins, outs [][]int) {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatal(err)
	}
	sg := m.Subgraphs[0]
	for _, i := range sg.Inputs {
		ins = append(ins, sg.Tensors[i].Signature)
	}
	for _, i := range sg.Outputs {
		outs = append(outs, sg.Tensors[i].Signature)
	}
	return ins, outs
}

// TestDynamicBatchKept converts a dense layer over a [-1, 3] input: the
// model is written at batch 1 with shape_signature [-1, 3] / [-1, 2], and
// after ResizeInputTensor to batch 4 every row is the layer of that row.
func TestDynamicBatchKept(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", -1, 3)
	w := g.constF("w", ir.Shape{3, 2}, []float32{0.5, -1, 0.25, 2, -0.75, 0.125})
	b := g.constF("b", ir.Shape{2}, []float32{0.1, -0.2})
	mm := g.op("MatMul", "mm", []string{x, w}, nil)
	g.op("Relu", "out", []string{g.op("BiasAdd", "ba", []string{mm, b}, nil)}, nil)
	res, err := g.convert(t, "out")
	if err != nil {
		t.Fatal(err)
	}
	ins, outs := signatures(t, res.Model)
	if len(ins) != 1 || !equalInts(ins[0], []int{-1, 3}) || len(outs) != 1 || !equalInts(outs[0], []int{-1, 2}) {
		t.Fatalf("shape signatures %v → %v, want [-1 3] → [-1 2]", ins, outs)
	}
	if len(res.Report.Notes) != 0 {
		t.Errorf("notes %q", res.Report.Notes)
	}
	m, _ := interpreter.LoadBytes(res.Model)
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.ResizeInputTensorStrict(0, []int{4, 3}); err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	in := it.Input(0).Float32s()
	for i := range in {
		in[i] = float32(i%5) - 1.5
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	out := it.Output(0)
	if !equalInts(out.Shape, []int{4, 2}) {
		t.Fatalf("output shape %v at batch 4", out.Shape)
	}
	W := []float64{0.5, -1, 0.25, 2, -0.75, 0.125}
	for r := 0; r < 4; r++ {
		for j := 0; j < 2; j++ {
			s := []float64{0.1, -0.2}[j]
			for k := 0; k < 3; k++ {
				s += float64(in[r*3+k]) * W[k*2+j]
			}
			if got := float64(out.Float32s()[r*2+j]); math.Abs(got-math.Max(s, 0)) > 1e-5 {
				t.Errorf("row %d unit %d: %g, want %g", r, j, got, math.Max(s, 0))
			}
		}
	}
}

// TestDynamicBatchDropped: a RESHAPE to the constant shape [1, 6] runs at
// batch 1 only, so the model keeps its static batch and the report says
// why, instead of a -1 that would fail after a resize.
func TestDynamicBatchDropped(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", -1, 2, 3)
	g.op("Reshape", "out", []string{x, g.constI("shape", ir.Shape{2}, 1, 6)}, nil)
	res, err := g.convert(t, "out")
	if err != nil {
		t.Fatal(err)
	}
	ins, outs := signatures(t, res.Model)
	if ins[0] != nil || outs[0] != nil {
		t.Errorf("shape signatures %v → %v, want none", ins, outs)
	}
	if len(res.Report.Notes) != 1 || !strings.Contains(res.Report.Notes[0], `dynamic batch of input "x" not kept (written at batch 1)`) ||
		!strings.Contains(res.Report.Text(), "note: dynamic batch") {
		t.Errorf("notes %q", res.Report.Notes)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
