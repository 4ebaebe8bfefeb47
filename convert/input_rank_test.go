package convert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// unrankedPlaceholder adds a float Placeholder without a shape attribute
// (unknown rank), as TF1 graphs declare tf.placeholder(tf.float32).
func (g *graph) unrankedPlaceholder(name string) string {
	return g.node("Placeholder", name, nil, attrs{"dtype": tAttr(ir.Float32)})
}

// runResized loads a converted model in tflrun's interpreter, feeds its inputs
// (after resizing the ones shapes names) and returns output 0.
func runResized(t *testing.T, model []byte, shapes map[int][]int, inputs ...[]float32) (out []float32, shape []int) {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for i, s := range shapes {
		if err := it.ResizeInputTensor(i, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for i, in := range inputs {
		if err := it.Input(i).CopyFrom(in); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	o := it.Output(0)
	return append([]float32(nil), o.Float32s()...), append([]int(nil), o.Shape...)
}

// inputTensor is input i of the written model's first subgraph.
func inputTensor(t *testing.T, model []byte, i int) *schema.TensorT {
	t.Helper()
	mt := schema.GetRootAsModel(model, 0).UnPack()
	sg := mt.Subgraphs[0]
	return sg.Tensors[sg.Inputs[i]]
}

// TestUnknownRankFromMatMul: an input without a shape read by a MatMul
// with a constant [K, N] operand is [-1, K], here through an Identity and
// an elementwise op with a known-shape operand; the batch is pinned to 1
// and kept dynamic, and the model computes x·W.
func TestUnknownRankFromMatMul(t *testing.T) {
	g := newGraph()
	x := g.unrankedPlaceholder("x")
	id := g.op("Identity", "id", []string{x}, nil)
	bias := g.constF("bias", ir.Shape{3}, []float32{0.5, -1, 2})
	add := g.op("AddV2", "add", []string{id, bias}, nil)
	w := g.constF("w", ir.Shape{3, 2}, []float32{1, 2, 3, 4, 5, 6})
	g.op("MatMul", "mm", []string{add, w}, attrs{"transpose_a": bAttr(false), "transpose_b": bAttr(false)})
	res, err := g.convert(t, "mm")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Entry.Func.Params[0].Shape; !got.Equal(ir.Shape{1, 3}) {
		t.Fatalf("x converted at %v, want [1 3]", got)
	}
	if !strings.Contains(strings.Join(res.Entry.Notes, "\n"), `input "x" has no shape in the model: converted at [? 3], the shape MatMul "mm" gives it`) {
		t.Errorf("notes %q do not say where the shape came from", res.Entry.Notes)
	}
	if sig := inputTensor(t, res.Model, 0).ShapeSignature; len(sig) != 2 || sig[0] != -1 || sig[1] != 3 {
		t.Errorf("shape_signature %v, want [-1 3]", sig)
	}
	in := []float32{1, 2, 3, -1, 0, 1}
	got, shape := runResized(t, res.Model, map[int][]int{0: {2, 3}}, in)
	var want []float64
	for r := 0; r < 2; r++ {
		for c := 0; c < 2; c++ {
			s := 0.0
			for k := 0; k < 3; k++ {
				s += float64(in[r*3+k]+[]float32{0.5, -1, 2}[k]) * float64([]float32{1, 2, 3, 4, 5, 6}[k*2+c])
			}
			want = append(want, s)
		}
	}
	if len(shape) != 2 || shape[0] != 2 || shape[1] != 2 {
		t.Fatalf("output shape %v at batch 2, want [2 2]", shape)
	}
	near(t, "x·W", got, want, 1e-5)

	// transpose_a makes it [K, -1]: a dynamic dimension past the batch,
	// kept because the model runs at any size there (x is [3, N], the
	// output [N, 2]).
	g = newGraph()
	x = g.unrankedPlaceholder("x")
	w = g.constF("w", ir.Shape{3, 2}, []float32{1, 2, 3, 4, 5, 6})
	g.op("MatMul", "mm", []string{x, w}, attrs{"transpose_a": bAttr(true), "transpose_b": bAttr(false)})
	res, err = g.convert(t, "mm")
	if err != nil {
		t.Fatal(err)
	}
	if sig := inputTensor(t, res.Model, 0).ShapeSignature; len(sig) != 2 || sig[0] != 3 || sig[1] != -1 {
		t.Errorf("transpose_a: shape_signature %v, want [3 -1]", sig)
	}
	xt := []float32{1, 2, 3, 4, -1, 0, 1, 2, 0.5, 1, -2, 3} // [3, 4]
	got, shape = runResized(t, res.Model, map[int][]int{0: {3, 4}}, xt)
	if len(shape) != 2 || shape[0] != 4 || shape[1] != 2 {
		t.Fatalf("transpose_a: output shape %v at [3 4], want [4 2]", shape)
	}
	want = nil
	for r := 0; r < 4; r++ {
		for c := 0; c < 2; c++ {
			s := 0.0
			for k := 0; k < 3; k++ {
				s += float64(xt[k*4+r]) * float64([]float32{1, 2, 3, 4, 5, 6}[k*2+c])
			}
			want = append(want, s)
		}
	}
	near(t, "xᵀ·W", got, want, 1e-5)
}

// TestUnknownRankFromReshape: TF1's reshape(x, [shape(x)[0], 4, 2]) fixes
// x as [-1, 4, 2]; a Reshape to a constant takes its shape.
func TestUnknownRankFromReshape(t *testing.T) {
	g := newGraph()
	x := g.unrankedPlaceholder("x")
	sh := g.node("Shape", "shape", []string{x}, attrs{"T": tAttr(ir.Float32), "out_type": tAttr(ir.Int32)})
	b0 := g.constI("b", ir.Shape{1}, 0)
	e0 := g.constI("e", ir.Shape{1}, 1)
	s0 := g.constI("s", ir.Shape{1}, 1)
	dim0 := g.node("StridedSlice", "dim0", []string{sh, b0, e0, s0}, attrs{"T": tAttr(ir.Int32), "Index": tAttr(ir.Int32),
		"begin_mask": iAttr(0), "end_mask": iAttr(0), "ellipsis_mask": iAttr(0), "new_axis_mask": iAttr(0), "shrink_axis_mask": iAttr(1)})
	four := g.constI("four", ir.Shape{}, 4)
	two := g.constI("two", ir.Shape{}, 2)
	target := g.node("Pack", "target", []string{dim0, four, two}, attrs{"T": tAttr(ir.Int32), "N": iAttr(3), "axis": iAttr(0)})
	r := g.op("Reshape", "r", []string{x, target}, attrs{"Tshape": tAttr(ir.Int32)})
	g.op("Relu", "relu", []string{r}, nil)
	res, err := g.convert(t, "relu")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Entry.Func.Params[0].Shape; !got.Equal(ir.Shape{1, 4, 2}) {
		t.Fatalf("x converted at %v, want [1 4 2]", got)
	}
	in := []float32{1, -2, 3, -4, 5, -6, 7, -8}
	got, _ := runResized(t, res.Model, nil, in)
	near(t, "relu", got, []float64{1, 0, 3, 0, 5, 0, 7, 0}, 0)

	g = newGraph()
	x = g.unrankedPlaceholder("x")
	target = g.constI("target", ir.Shape{2}, 2, 3)
	g.op("Reshape", "r", []string{x, target}, attrs{"Tshape": tAttr(ir.Int32)})
	res, err = g.convert(t, "r")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Entry.Func.Params[0].Shape; !got.Equal(ir.Shape{2, 3}) {
		t.Fatalf("x converted at %v, want [2 3]", got)
	}
}

// TestUnknownRankFromConv2D: a Conv2D fixes rank 4 and the channels; the
// spatial dimensions, converted at 1, stay dynamic since the model runs
// at any size there, and --input_shapes pins them.
func TestUnknownRankFromConv2D(t *testing.T) {
	g := newGraph()
	x := g.unrankedPlaceholder("x")
	w := g.constF("w", ir.Shape{3, 3, 2, 4}, seq(72, 0.1, 0))
	g.op("Conv2D", "conv", []string{x, w}, attrs{"strides": lAttr(1, 1, 1, 1), "padding": sAttr("SAME"), "data_format": sAttr("NHWC")})
	res, err := g.convert(t, "conv")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Entry.Func.Params[0].Shape; !got.Equal(ir.Shape{1, 1, 1, 2}) {
		t.Fatalf("x converted at %v, want [1 1 1 2]", got)
	}
	if sig := inputTensor(t, res.Model, 0).ShapeSignature; len(sig) != 4 || sig[0] != -1 || sig[1] != -1 || sig[2] != -1 || sig[3] != 2 {
		t.Errorf("shape_signature %v, want [-1 -1 -1 2]", sig)
	}
	res, err = g.convertWith(t, Options{OutputArrays: []string{"conv"}, InputShapes: []ir.Shape{{1, 5, 5, 2}}})
	if err != nil {
		t.Fatalf("with --input_shapes: %v", err)
	}
	if got := res.Entry.Func.Params[0].Shape; !got.Equal(ir.Shape{1, 5, 5, 2}) {
		t.Fatalf("x converted at %v, want [1 5 5 2]", got)
	}
	// VALID padding with a 3×3 window does not fit at 1: refused, asking
	// for the spatial sizes with the channel count filled in.
	g = newGraph()
	x = g.unrankedPlaceholder("x")
	w = g.constF("w", ir.Shape{3, 3, 2, 4}, seq(72, 0.1, 0))
	g.op("Conv2D", "conv", []string{x, w}, attrs{"strides": lAttr(1, 1, 1, 1), "padding": sAttr("VALID"), "data_format": sAttr("NHWC")})
	_, err = g.convert(t, "conv")
	if err == nil || !strings.Contains(err.Error(), `input 0 "x" has the dynamic shape [1 ? ? 2]`) || !strings.Contains(err.Error(), "--input_shapes 1,D1,D2,2") {
		t.Fatalf("VALID: err = %v, want the [1 ? ? 2] shape and --input_shapes 1,D1,D2,2", err)
	}
}

// TestUnknownRankElementwise: inputs read only by elementwise ops with
// scalar operands are converted as scalars and written without a rank (as
// TensorFlow's converter writes them); the model then runs at any shape
// the input is resized to, elementwise.
func TestUnknownRankElementwise(t *testing.T) {
	g := newGraph()
	x := g.unrankedPlaceholder("x")
	y := g.unrankedPlaceholder("y")
	w := g.constF("w", ir.Shape{}, []float32{2})
	mul := g.op("Mul", "mul", []string{x, w}, nil)
	g.op("AddV2", "out", []string{mul, y}, nil)
	res, err := g.convert(t, "out")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		tt := inputTensor(t, res.Model, i)
		if len(tt.Shape) != 0 || tt.HasRank {
			t.Errorf("input %d written with shape %v has_rank %v, want [] without a rank", i, tt.Shape, tt.HasRank)
		}
	}
	if !strings.Contains(strings.Join(res.Entry.Notes, "\n"), `input "x" has no shape in the model and only elementwise ops read it: converted as a scalar`) {
		t.Errorf("notes %q do not say x was taken as a scalar", res.Entry.Notes)
	}
	got, _ := runResized(t, res.Model, nil, []float32{3}, []float32{0.5})
	near(t, "scalar", got, []float64{6.5}, 0)
	got, shape := runResized(t, res.Model, map[int][]int{0: {2, 2}, 1: {2, 2}}, []float32{1, 2, 3, 4}, []float32{0, 1, 0, 1})
	if len(shape) != 2 || shape[0] != 2 || shape[1] != 2 {
		t.Fatalf("output shape %v at [2 2], want [2 2]", shape)
	}
	near(t, "[2 2]", got, []float64{2, 5, 6, 9}, 0)
}

// TestUnknownRankRefused: an input nothing fixes that reaches an op
// needing a rank is refused naming the input and that op, asking for
// --input_shapes; consumers fixing two different shapes are refused too.
func TestUnknownRankRefused(t *testing.T) {
	g := newGraph()
	x := g.unrankedPlaceholder("x")
	perm := g.constI("perm", ir.Shape{2}, 1, 0)
	g.op("Transpose", "tr", []string{x, perm}, attrs{"Tperm": tAttr(ir.Int32)})
	_, err := g.convert(t, "tr")
	want := `input 0 "x" has an unknown rank (its declaration gives no shape) and nothing in the graph fixes it (Transpose "tr" reads it); give the shape of every input, in order (x), with --input_shapes`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v\nwant %q", err, want)
	}

	g = newGraph()
	x = g.unrankedPlaceholder("x")
	w1 := g.constF("w1", ir.Shape{3, 2}, seq(6, 1, 0))
	w2 := g.constF("w2", ir.Shape{4, 2}, seq(8, 1, 0))
	g.op("MatMul", "mm1", []string{x, w1}, nil)
	g.op("MatMul", "mm2", []string{x, w2}, nil)
	_, err = g.convert(t, "mm1", "mm2")
	if err == nil || !strings.Contains(err.Error(), `input 0 "x" has an unknown rank and its consumers disagree on its shape`) {
		t.Fatalf("err = %v, want the disagreement named", err)
	}
}

// unrankedCallGraph is a GraphDef whose input, without a shape, is read
// by a MatMul inside a called function.
const unrankedCallGraph = `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "fn" } } } }
node { name: "out" op: "Identity" input: "call" attr { key: "T" value { type: DT_FLOAT } } }
library { function {
  signature { name: "fn" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 1 } } float_val: 3 float_val: -1 } } } }
  node_def { name: "mm" op: "MatMul" input: "a" input: "w:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "y" value: "mm:product:0" }
} }
`

// TestUnknownRankThroughCall: the consumer fixing the shape may be inside
// a called function.
func TestUnknownRankThroughCall(t *testing.T) {
	m, err := tfmodel.ParseGraphDef("call.pbtxt", []byte(unrankedCallGraph), true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ConvertModel(m, Options{OutputArrays: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Entry.Func.Params[0].Shape; !got.Equal(ir.Shape{1, 2}) {
		t.Fatalf("x converted at %v, want [1 2]", got)
	}
	got, _ := runResized(t, res.Model, nil, []float32{2, 5})
	near(t, "x·w", got, []float64{1}, 1e-6)
}

// TestUnknownRankCorpus converts the public models whose inputs have no
// shape (tf.tsv): elementwise-only graphs, an input read through function
// calls, two unranked inputs compared for an If, TF1 dropout's keep_prob
// beside a reshaped MNIST input; and the Merge of four unranked inputs
// that TensorFlow's converter refuses too.
func TestUnknownRankCorpus(t *testing.T) {
	dir := os.Getenv("TFLRUN_TF_CORPUS")
	if dir == "" {
		t.Skip("TFLRUN_TF_CORPUS is not set (the folder of internal/corpus/tf.tsv's models)")
	}
	for _, c := range []struct {
		file   string
		inputs [][]float32
		want   []float64 // output 0 for those inputs (nil: only run)
	}{
		{"litert_add.pbtxt", nil, nil},
		{"mediapipe_saved_model_v2_mini", [][]float32{{2.5}}, []float64{3.5}},        // x + 1
		{"tfonnx_regression_frozen.pb", [][]float32{{2}}, []float64{2*0.214 + 1.05}}, // W·X + b (printed to 3 digits)
		{"litert_if_op.pbtxt", [][]float32{{1}, {2}}, []float64{6, 8, 10, 12}},       // a < b: cst0 + cst1
		{"litert_if_op.pbtxt", [][]float32{{2}, {1}}, []float64{10, 12, 14, 16}},     // a ≥ b: a · cst1
		{"tfonnx_gru_frozen.pb", nil, nil},
		{"tfonnx_lstm_frozen.pb", nil, nil},
	} {
		path := filepath.Join(dir, c.file)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		res, err := Convert(path, Options{})
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		// Inputs only elementwise ops read are written without a rank;
		// those reaching an If's condition keep theirs.
		wantRank := c.file == "litert_if_op.pbtxt"
		if c.file == "litert_add.pbtxt" || wantRank {
			if in := inputTensor(t, res.Model, 0); in.HasRank != wantRank || len(in.Shape) != 0 {
				t.Errorf("%s: input 0 written with shape %v has_rank %v, want [] has_rank %v", c.file, in.Shape, in.HasRank, wantRank)
			}
		}
		if c.inputs == nil {
			continue
		}
		got, _ := runResized(t, res.Model, nil, c.inputs...)
		tol := 1e-6
		if c.file == "tfonnx_regression_frozen.pb" {
			tol = 2e-3
		}
		near(t, c.file, got, c.want, tol)
	}
	_, err := Convert(filepath.Join(dir, "litert_control_flow_v1_savedmodel"), Options{})
	if err == nil || !strings.Contains(err.Error(), `nothing in the graph fixes it (Merge "Merge" reads it)`) {
		t.Errorf("litert_control_flow_v1_savedmodel: err = %v, want the Merge named", err)
	}
}

// TestDropoutKeepProb: TF1 dropout in a frozen graph, x / keep_prob ·
// floor(keep_prob + uniform) before a MatMul, with keep_prob an input
// without a shape: keep_prob is taken as a scalar (with a rank),
// RandomUniform becomes RANDOM_UNIFORM, and keep_prob = 1 gives x back
// (floor(1 + u) = 1 for u in [0, 1)).
func TestDropoutKeepProb(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", 1, 4)
	kp := g.unrankedPlaceholder("keep_prob")
	sh := g.node("Shape", "shape", []string{x}, attrs{"T": tAttr(ir.Float32), "out_type": tAttr(ir.Int32)})
	u := g.node("RandomUniform", "u", []string{sh}, attrs{"T": tAttr(ir.Int32), "dtype": tAttr(ir.Float32), "seed": iAttr(0), "seed2": iAttr(0)})
	add := g.op("Add", "add", []string{kp, u}, nil)
	fl := g.op("Floor", "floor", []string{add}, nil)
	div := g.op("RealDiv", "div", []string{x, kp}, nil)
	out := g.op("Mul", "out", []string{div, fl}, nil)
	g.op("MatMul", "mm", []string{out, g.constF("w", ir.Shape{4, 2}, seq(8, 1, 0))}, nil)
	res, err := g.convert(t, "out", "mm")
	if err != nil {
		t.Fatal(err)
	}
	if ops := opList(res); !strings.Contains(ops, "RANDOM_UNIFORM") {
		t.Fatalf("operators %q hold no RANDOM_UNIFORM", ops)
	}
	if got := res.Entry.Func.Params[1].Shape; !got.Equal(ir.Shape{}) {
		t.Fatalf("keep_prob converted at %v, want a scalar", got)
	}
	// Broadcast into a MatMul's operand, keep_prob keeps its rank: only
	// an input every op of whose broadcasts is elementwise is written
	// without one.
	if kp := inputTensor(t, res.Model, 1); !kp.HasRank || len(kp.Shape) != 0 {
		t.Errorf("keep_prob written with shape %v has_rank %v, want a scalar with a rank", kp.Shape, kp.HasRank)
	}
	in := []float32{1, -2, 3.5, 4}
	got, _ := runResized(t, res.Model, nil, in, []float32{1})
	near(t, "dropout at keep_prob 1", got, []float64{1, -2, 3.5, 4}, 0)
	// keep_prob 0.5: each element is 0 or 2x.
	got, _ = runResized(t, res.Model, nil, in, []float32{0.5})
	for i, v := range got {
		if v != 0 && v != 2*in[i] {
			t.Fatalf("dropout at keep_prob 0.5: element %d = %v, want 0 or %v", i, v, 2*in[i])
		}
	}
}

// TestRootCallEntry: a tf.Module saved with signatures that are not
// serving_default (tensorflow-rust's regression: train, w, b) and an
// inference __call__ method converts that method, w·x + b with the
// checkpoint's w and b, and says so; a SavedModel with several
// signatures and no such method asks for --signature, listing them.
func TestRootCallEntry(t *testing.T) {
	dir := os.Getenv("TFLRUN_TF_CORPUS")
	if dir == "" {
		t.Skip("TFLRUN_TF_CORPUS is not set (the folder of internal/corpus/tf.tsv's models)")
	}
	path := filepath.Join(dir, "rust_regression_savedmodel")
	res, err := Convert(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Entry.Notes, "\n"), "converted the root object's __call__ method") {
		t.Errorf("notes %q do not say __call__ was converted", res.Entry.Notes)
	}
	m, err := tfmodel.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	read := func(key string) float64 {
		v, err := m.Bundle.Read(key)
		if err != nil {
			t.Fatal(err)
		}
		return float64(v.Float32s()[0])
	}
	w, b := read("w/.ATTRIBUTES/VARIABLE_VALUE"), read("b/.ATTRIBUTES/VARIABLE_VALUE")
	if w == 0 {
		// (b is 0 in this checkpoint, as initialised.)
		t.Fatalf("checkpoint w = %v: a zero would hide a variable left unread", w)
	}
	got, _ := runResized(t, res.Model, map[int][]int{0: {3}}, []float32{-1, 0.5, 2})
	near(t, "w·x + b", got, []float64{-w + b, 0.5*w + b, 2*w + b}, 1e-6)

	_, err = Convert(filepath.Join(dir, "serving_counter_tf1"), Options{})
	if err == nil || !strings.Contains(err.Error(), `no signature "serving_default", and the model has 4 others: choose one with --signature (Options.Signature): get_counter, incr_counter, incr_counter_by, reset_counter`) {
		t.Errorf("serving_counter_tf1: err = %v, want --signature asked for", err)
	}
}
