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
	t.Run("declared", func(t *testing.T) { testDynamicBatchKept(t, nil, -1) })
	// The batch given as -1 (--input_shapes -1,3) stays dynamic too.
	t.Run("given as -1", func(t *testing.T) { testDynamicBatchKept(t, []ir.Shape{{-1, 3}}, -1) })
}

func testDynamicBatchKept(t *testing.T, shapes []ir.Shape, batch int) {
	g := newGraph()
	x := g.placeholder("x", batch, 3)
	w := g.constF("w", ir.Shape{3, 2}, []float32{0.5, -1, 0.25, 2, -0.75, 0.125})
	b := g.constF("b", ir.Shape{2}, []float32{0.1, -0.2})
	mm := g.op("MatMul", "mm", []string{x, w}, nil)
	g.op("Relu", "out", []string{g.op("BiasAdd", "ba", []string{mm, b}, nil)}, nil)
	res, err := g.convertWith(t, Options{OutputArrays: []string{"out"}, InputShapes: shapes})
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

// TestDynamicBatchReshapeFollows: a Reshape whose shape the graph computes
// from the input's batch (Keras's Reshape layer: [shape(x)[0], 6]) or
// leaves to TensorFlow (-1, as TimeDistributed writes it) becomes a
// RESHAPE whose constant shape holds the pinned batch 1; converted again
// at batch 2 it holds 2 there, so that dimension is written as -1 and the
// dynamic batch is kept, and the model gives each row at batch 3 what it
// gives the row alone.
func TestDynamicBatchReshapeFollows(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", -1, 2, 3)
	sh := g.node("Shape", "shape", []string{x}, attrs{"T": tAttr(ir.Float32), "out_type": tAttr(ir.Int32)})
	dim0 := g.node("StridedSlice", "dim0", []string{sh, g.constI("b", ir.Shape{1}, 0), g.constI("e", ir.Shape{1}, 1), g.constI("s", ir.Shape{1}, 1)},
		attrs{"T": tAttr(ir.Int32), "Index": tAttr(ir.Int32), "begin_mask": iAttr(0), "end_mask": iAttr(0), "ellipsis_mask": iAttr(0), "new_axis_mask": iAttr(0), "shrink_axis_mask": iAttr(1)})
	target := g.node("Pack", "target", []string{dim0, g.constI("six", ir.Shape{}, 6)}, attrs{"T": tAttr(ir.Int32), "N": iAttr(2), "axis": iAttr(0)})
	flat := g.op("Reshape", "flat", []string{x, target}, attrs{"Tshape": tAttr(ir.Int32)})
	w := g.constF("w", ir.Shape{6, 2}, seq(12, 1, 0))
	mm := g.op("MatMul", "mm", []string{flat, w}, nil)
	g.op("Reshape", "out", []string{mm, g.constI("td", ir.Shape{2}, -1, 1)}, attrs{"Tshape": tAttr(ir.Int32)})
	res, err := g.convert(t, "out")
	if err != nil {
		t.Fatal(err)
	}
	ins, outs := signatures(t, res.Model)
	if !equalInts(ins[0], []int{-1, 2, 3}) || !equalInts(outs[0], []int{-1, 1}) {
		t.Fatalf("shape signatures %v → %v, want [-1 2 3] → [-1 1]", ins, outs)
	}
	if len(res.Report.Notes) == 0 || !strings.Contains(res.Report.Notes[0], `dynamic batch of input "x" kept with 2 RESHAPE shape(s) written with -1 where they follow the batch`) {
		t.Errorf("notes %q", res.Report.Notes)
	}
	in := seq(18, 1, 3)
	got, shape := runResized(t, res.Model, map[int][]int{0: {3, 2, 3}}, in)
	if !equalInts(shape, []int{6, 1}) {
		t.Fatalf("output shape %v at batch 3, want [6 1]", shape)
	}
	wv := seq(12, 1, 0)
	var want []float64
	for r := 0; r < 3; r++ {
		for c := 0; c < 2; c++ {
			s := 0.0
			for k := 0; k < 6; k++ {
				s += float64(in[r*6+k]) * float64(wv[k*2+c])
			}
			want = append(want, s)
		}
	}
	near(t, "batch 3", got, want, 1e-5)
}

// TestDynamicBatchDitto: the HeyDitto wake-word models (TimeDistributed
// convolutions, then LSTMs) keep their dynamic batch through the RESHAPE
// shapes that held the batch 1.
func TestDynamicBatchDitto(t *testing.T) {
	for _, dir := range []string{"ditto_v1_lstm/HeyDittoNet-v1", "ditto_v2_bilstm/HeyDittoNet-v2"} {
		res, err := ConvertModel(nfModel(t, dir), Options{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		ins, _ := signatures(t, res.Model)
		if len(ins[0]) == 0 || ins[0][0] != -1 {
			t.Errorf("%s: input shape signature %v, want a -1 batch (notes %q)", dir, ins[0], res.Report.Notes)
		}
		if !strings.Contains(strings.Join(res.Report.Notes, "\n"), "RESHAPE shape(s) written with -1 where they follow the batch") {
			t.Errorf("%s: notes %q", dir, res.Report.Notes)
		}
	}
}

// TestDynamicInnerDims: an input with a dynamic dimension past the batch
// (time) converts without --input_shapes when the model runs at any size
// there: converted at 1 as TensorFlow's converter does, it must give,
// resized to 3, what the model converted at 3 gives; a RESHAPE whose
// shape follows the dimension gets -1 there. A model that cannot (a
// Reshape to a constant holding the size) is refused as before, asking
// for --input_shapes.
func TestDynamicInnerDims(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", 1, -1, 4)
	flat := g.op("Reshape", "flat", []string{x, g.constI("shape", ir.Shape{2}, 1, -1)}, attrs{"Tshape": tAttr(ir.Int32)})
	g.op("Sum", "out", []string{flat, g.constI("axis", ir.Shape{1}, 1)}, attrs{"Tidx": tAttr(ir.Int32), "keep_dims": bAttr(false)})
	res, err := g.convert(t, "out")
	if err != nil {
		t.Fatal(err)
	}
	ins, _ := signatures(t, res.Model)
	if !equalInts(ins[0], []int{1, -1, 4}) {
		t.Fatalf("input shape signature %v, want [1 -1 4]", ins[0])
	}
	if len(res.Report.Notes) == 0 || !strings.Contains(res.Report.Notes[0], `dynamic dimensions of input "x" dimension [1] converted at 1 and kept (shape_signature -1; 1 RESHAPE shape(s) written with -1 there)`) {
		t.Errorf("notes %q", res.Report.Notes)
	}
	in := seq(20, 1, 2)
	got, shape := runResized(t, res.Model, map[int][]int{0: {1, 5, 4}}, in)
	want := 0.0
	for _, v := range in {
		want += float64(v)
	}
	if !equalInts(shape, []int{1}) {
		t.Fatalf("output shape %v at time 5, want [1]", shape)
	}
	near(t, "sum at time 5", got, []float64{want}, 1e-5)

	g = newGraph()
	x = g.placeholder("x", 1, -1, 4)
	g.op("Reshape", "out", []string{x, g.constI("shape", ir.Shape{2}, 1, 4)}, attrs{"Tshape": tAttr(ir.Int32)})
	_, err = g.convert(t, "out")
	if err == nil || !strings.Contains(err.Error(), `input 0 "x" has the dynamic shape [1 ? 4]`) || !strings.Contains(err.Error(), "--input_shapes 1,D1,4") ||
		!strings.Contains(err.Error(), "converted with them at 3, it fails") {
		t.Fatalf("err = %v, want the dynamic shape refused, asking for --input_shapes", err)
	}
}
