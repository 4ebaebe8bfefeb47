package tfops

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

func ints(shape ir.Shape, v ...int) *ir.Tensor {
	t, err := ir.FromInts(ir.Int32, shape, v)
	if err != nil {
		panic(err)
	}
	return t
}

func arange(shape ir.Shape) *ir.Tensor {
	n, _ := shape.NumElements()
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return ints(shape, v...)
}

// node builds a node of op over constant inputs with attributes, runs
// Infer and Fold and returns it with the folded outputs.
func node(t *testing.T, op string, attrs map[string]*tfpb.AttrValue, nOut int, in ...*ir.Tensor) (*ir.Node, []*ir.Tensor, error) {
	t.Helper()
	f := ir.NewFunction("test", nil)
	var vals []*ir.Value
	for i, c := range in {
		vals = append(vals, f.NewConst("c"+string(rune('0'+i)), c))
	}
	n := f.NewNode(op, op, vals, nOut)
	for k, v := range attrs {
		n.Attrs[k] = v
	}
	if err := Infer(n); err != nil {
		return n, nil, err
	}
	out, err := Fold(n)
	return n, out, err
}

func aInt(v int64) *tfpb.AttrValue { return &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: v}} }
func aBool(v bool) *tfpb.AttrValue { return &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: v}} }
func aType(d ir.DType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: d.TF()}}
}
func aInts(v ...int64) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{I: v}}}
}

func check(t *testing.T, what string, got *ir.Tensor, shape ir.Shape, want ...int) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: not folded", what)
	}
	if !got.Shape.Equal(shape) {
		t.Fatalf("%s: shape %s, want %s", what, got.Shape, shape)
	}
	g := got.Ints()
	if len(g) != len(want) {
		t.Fatalf("%s: %v, want %v", what, g, want)
	}
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("%s: %v, want %v", what, g, want)
		}
	}
}

// TestStridedSlice checks the mask handling against NumPy-style slices of
// x = arange(24).reshape(2, 3, 4), values worked out by hand.
func TestStridedSlice(t *testing.T) {
	x := arange(ir.Shape{2, 3, 4})
	cases := []struct {
		name                     string
		begin, end, strides      []int
		bm, em, ellipsis, na, sa int64
		shape                    ir.Shape
		want                     []int
	}{
		{"x[:, 1:, ::2]", []int{0, 1, 0}, []int{0, 0, 0}, []int{1, 1, 2}, 0b101, 0b111, 0, 0, 0, ir.Shape{2, 2, 2}, []int{4, 6, 8, 10, 16, 18, 20, 22}},
		{"x[..., -1]", []int{0, -1}, []int{0, 0}, []int{1, 1}, 0, 0, 0b01, 0, 0b10, ir.Shape{2, 3}, []int{3, 7, 11, 15, 19, 23}},
		{"x[1, ::-1, newaxis]", []int{1, 0, 0}, []int{2, 0, 0}, []int{1, -1, 1}, 0b010, 0b010, 0, 0b100, 0b001, ir.Shape{3, 1, 4},
			[]int{20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15}},
		{"x[:, -2:-4:-1]", []int{0, -2}, []int{0, -4}, []int{1, -1}, 0b01, 0b01, 0, 0, 0, ir.Shape{2, 2, 4},
			[]int{4, 5, 6, 7, 0, 1, 2, 3, 16, 17, 18, 19, 12, 13, 14, 15}},
		{"x[:, 5:9]", []int{0, 5}, []int{0, 9}, []int{1, 1}, 0b01, 0b01, 0, 0, 0, ir.Shape{2, 0, 4}, nil},
		{"x[0:1, :, -3:]", []int{0, 0, -3}, []int{1, 0, 0}, []int{1, 1, 1}, 0b010, 0b110, 0, 0, 0, ir.Shape{1, 3, 3}, []int{1, 2, 3, 5, 6, 7, 9, 10, 11}},
	}
	for _, c := range cases {
		k := len(c.begin)
		attrs := map[string]*tfpb.AttrValue{"begin_mask": aInt(c.bm), "end_mask": aInt(c.em), "ellipsis_mask": aInt(c.ellipsis),
			"new_axis_mask": aInt(c.na), "shrink_axis_mask": aInt(c.sa)}
		n, out, err := node(t, "StridedSlice", attrs, 1, x, ints(ir.Shape{k}, c.begin...), ints(ir.Shape{k}, c.end...), ints(ir.Shape{k}, c.strides...))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !n.Outputs[0].Shape.Equal(c.shape) {
			t.Errorf("%s: inferred shape %s, want %s", c.name, n.Outputs[0].Shape, c.shape)
		}
		check(t, c.name, out[0], c.shape, c.want...)
	}
	// Shrinking an out-of-range index is an error naming it.
	_, _, err := node(t, "StridedSlice", map[string]*tfpb.AttrValue{"shrink_axis_mask": aInt(1)}, 1, x, ints(ir.Shape{1}, 5), ints(ir.Shape{1}, 6), ints(ir.Shape{1}, 1))
	if err == nil || !strings.Contains(err.Error(), "index 5 is out of range for dimension 0 of size 2") {
		t.Errorf("got %v", err)
	}
}

func TestShapeFolding(t *testing.T) {
	x := arange(ir.Shape{2, 3, 4})
	_, out, err := node(t, "Reshape", nil, 1, x, ints(ir.Shape{2}, -1, 6))
	if err != nil {
		t.Fatal(err)
	}
	if !out[0].Shape.Equal(ir.Shape{4, 6}) {
		t.Errorf("Reshape -1: %s", out[0].Shape)
	}
	if _, _, err := node(t, "Reshape", nil, 1, x, ints(ir.Shape{2}, 5, -1)); err == nil || !strings.Contains(err.Error(), "cannot reshape") {
		t.Errorf("bad reshape: %v", err)
	}
	_, out, _ = node(t, "Transpose", nil, 1, x, ints(ir.Shape{3}, 2, 0, 1))
	// y[k][i][j] = x[i][j][k] = 12i + 4j + k
	check(t, "Transpose", out[0], ir.Shape{4, 2, 3}, 0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23)
	_, out, _ = node(t, "ConcatV2", nil, 1, ints(ir.Shape{2, 1}, 1, 2), ints(ir.Shape{2, 2}, 3, 4, 5, 6), ints(ir.Shape{}, -1))
	check(t, "ConcatV2", out[0], ir.Shape{2, 3}, 1, 3, 4, 2, 5, 6)
	_, out, _ = node(t, "Pack", map[string]*tfpb.AttrValue{"axis": aInt(1)}, 1, ints(ir.Shape{2}, 1, 2), ints(ir.Shape{2}, 3, 4))
	check(t, "Pack", out[0], ir.Shape{2, 2}, 1, 3, 2, 4)
	_, out, _ = node(t, "Unpack", map[string]*tfpb.AttrValue{"axis": aInt(1), "num": aInt(3)}, 3, arange(ir.Shape{2, 3}))
	check(t, "Unpack 1", out[1], ir.Shape{2}, 1, 4)
	_, out, _ = node(t, "Split", map[string]*tfpb.AttrValue{"num_split": aInt(2)}, 2, ints(ir.Shape{}, 2), x)
	check(t, "Split", out[1], ir.Shape{2, 3, 2}, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23)
	_, out, _ = node(t, "SplitV", map[string]*tfpb.AttrValue{"num_split": aInt(2)}, 2, x, ints(ir.Shape{2}, 1, -1), ints(ir.Shape{}, 1))
	check(t, "SplitV", out[1], ir.Shape{2, 2, 4}, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23)
	_, out, _ = node(t, "GatherV2", nil, 1, arange(ir.Shape{3, 2}), ints(ir.Shape{2}, 2, 0), ints(ir.Shape{}, 0))
	check(t, "GatherV2", out[0], ir.Shape{2, 2}, 4, 5, 0, 1)
	_, out, _ = node(t, "Tile", nil, 1, ints(ir.Shape{2}, 1, 2), ints(ir.Shape{1}, 3))
	check(t, "Tile", out[0], ir.Shape{6}, 1, 2, 1, 2, 1, 2)
	_, out, _ = node(t, "Pad", nil, 1, ints(ir.Shape{2}, 1, 2), ints(ir.Shape{1, 2}, 1, 2))
	check(t, "Pad", out[0], ir.Shape{5}, 0, 1, 2, 0, 0)
	_, out, _ = node(t, "ReverseV2", nil, 1, arange(ir.Shape{2, 2}), ints(ir.Shape{1}, -1))
	check(t, "ReverseV2", out[0], ir.Shape{2, 2}, 1, 0, 3, 2)
	_, out, _ = node(t, "Fill", nil, 1, ints(ir.Shape{2}, 2, 2), ints(ir.Shape{}, 7))
	check(t, "Fill", out[0], ir.Shape{2, 2}, 7, 7, 7, 7)
	_, out, _ = node(t, "Range", nil, 1, ints(ir.Shape{}, 3), ints(ir.Shape{}, 10), ints(ir.Shape{}, 3))
	check(t, "Range", out[0], ir.Shape{3}, 3, 6, 9)
	_, out, _ = node(t, "Sum", map[string]*tfpb.AttrValue{"keep_dims": aBool(true)}, 1, x, ints(ir.Shape{2}, 0, -1))
	check(t, "Sum", out[0], ir.Shape{1, 3, 1}, 0+1+2+3+12+13+14+15, 4+5+6+7+16+17+18+19, 8+9+10+11+20+21+22+23)
	_, out, _ = node(t, "ArgMax", nil, 1, ints(ir.Shape{2, 3}, 1, 9, 3, 7, 2, 8), ints(ir.Shape{}, 1))
	check(t, "ArgMax", out[0], ir.Shape{2}, 1, 2)
	_, out, _ = node(t, "Squeeze", map[string]*tfpb.AttrValue{"squeeze_dims": aInts(0)}, 1, ints(ir.Shape{1, 2}, 1, 2))
	check(t, "Squeeze", out[0], ir.Shape{2}, 1, 2)
	_, out, _ = node(t, "ExpandDims", nil, 1, ints(ir.Shape{2}, 1, 2), ints(ir.Shape{}, -1))
	check(t, "ExpandDims", out[0], ir.Shape{2, 1}, 1, 2)
	_, out, _ = node(t, "Slice", nil, 1, x, ints(ir.Shape{3}, 1, 1, 2), ints(ir.Shape{3}, -1, 1, 2))
	check(t, "Slice", out[0], ir.Shape{1, 1, 2}, 18, 19)
}

func TestArithmeticFolding(t *testing.T) {
	// Broadcasting [2,1] + [3].
	_, out, err := node(t, "AddV2", nil, 1, ints(ir.Shape{2, 1}, 10, 20), ints(ir.Shape{3}, 1, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "AddV2", out[0], ir.Shape{2, 3}, 11, 12, 13, 21, 22, 23)
	// int32 wraps like TensorFlow's kernels.
	_, out, _ = node(t, "Mul", nil, 1, ints(ir.Shape{}, 1<<30), ints(ir.Shape{}, 4))
	check(t, "Mul wrap", out[0], ir.Shape{}, 0)
	_, out, _ = node(t, "FloorDiv", nil, 1, ints(ir.Shape{2}, -7, 7), ints(ir.Shape{}, 2))
	check(t, "FloorDiv", out[0], ir.Shape{2}, -4, 3)
	_, out, _ = node(t, "FloorMod", nil, 1, ints(ir.Shape{2}, -7, 7), ints(ir.Shape{}, 3))
	check(t, "FloorMod", out[0], ir.Shape{2}, 2, 1)
	if _, _, err := node(t, "FloorDiv", nil, 1, ints(ir.Shape{}, 1), ints(ir.Shape{}, 0)); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("division by zero: %v", err)
	}
	// Float ops round to float32.
	_, out, _ = node(t, "RealDiv", nil, 1, ir.FromFloat32s(ir.Shape{}, []float32{1}), ir.FromFloat32s(ir.Shape{}, []float32{3}))
	if out[0].Float32s()[0] != float32(1)/3 {
		t.Errorf("RealDiv %v", out[0].Float32s())
	}
	_, out, _ = node(t, "Cast", map[string]*tfpb.AttrValue{"DstT": aType(ir.Int32)}, 1, ir.FromFloat32s(ir.Shape{3}, []float32{-1.7, 2.9, 0.5}))
	check(t, "Cast", out[0], ir.Shape{3}, -1, 2, 0)
	_, out, _ = node(t, "Less", nil, 1, ints(ir.Shape{3}, 1, 5, 3), ints(ir.Shape{}, 3))
	check(t, "Less", out[0], ir.Shape{3}, 1, 0, 0)
	_, out, _ = node(t, "SelectV2", nil, 1, out[0], ints(ir.Shape{3}, 1, 2, 3), ints(ir.Shape{}, 0))
	check(t, "SelectV2", out[0], ir.Shape{3}, 1, 0, 0)
	if _, _, err := node(t, "AddV2", nil, 1, ints(ir.Shape{2}, 1, 2), ints(ir.Shape{3}, 1, 2, 3)); err == nil || !strings.Contains(err.Error(), "do not broadcast") {
		t.Errorf("broadcast error: %v", err)
	}
}

func TestShapeInference(t *testing.T) {
	f := ir.NewFunction("test", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1, 49, 10, 1})
	w := f.NewConst("w", ir.FromFloat32s(ir.Shape{10, 4, 1, 64}, make([]float32, 2560)))
	conv := f.NewNode("conv", "Conv2D", []*ir.Value{x, w}, 1)
	conv.Attrs["strides"] = aInts(1, 2, 2, 1)
	conv.Attrs["padding"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte("SAME")}}
	if err := Infer(conv); err != nil {
		t.Fatal(err)
	}
	if !conv.Outputs[0].Shape.Equal(ir.Shape{1, 25, 5, 64}) {
		t.Errorf("Conv2D SAME: %s", conv.Outputs[0].Shape)
	}
	conv.Attrs["padding"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte("VALID")}}
	Infer(conv)
	if !conv.Outputs[0].Shape.Equal(ir.Shape{1, 20, 4, 64}) {
		t.Errorf("Conv2D VALID: %s", conv.Outputs[0].Shape)
	}
	pool := f.NewNode("pool", "AvgPool", []*ir.Value{conv.Outputs[0]}, 1)
	pool.Attrs["ksize"] = aInts(1, 20, 4, 1)
	pool.Attrs["strides"] = aInts(1, 20, 4, 1)
	pool.Attrs["padding"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte("VALID")}}
	if err := Infer(pool); err != nil || !pool.Outputs[0].Shape.Equal(ir.Shape{1, 1, 1, 64}) {
		t.Errorf("AvgPool: %v %s", err, pool.Outputs[0].Shape)
	}
	// Shape of a static tensor is a constant even though the tensor is not.
	sh := f.NewNode("shape", "Shape", []*ir.Value{conv.Outputs[0]}, 1)
	if err := Infer(sh); err != nil || sh.Outputs[0].Const == nil {
		t.Fatalf("Shape: %v", err)
	}
	check(t, "Shape", sh.Outputs[0].Const, ir.Shape{4}, 1, 20, 4, 64)
	mm := f.NewNode("mm", "MatMul", []*ir.Value{f.AddParam("a", ir.Float32, ir.Shape{3, 5}), f.AddParam("b", ir.Float32, ir.Shape{7, 5})}, 1)
	mm.Attrs["transpose_b"] = aBool(true)
	if err := Infer(mm); err != nil || !mm.Outputs[0].Shape.Equal(ir.Shape{3, 7}) {
		t.Errorf("MatMul: %v %s", err, mm.Outputs[0].Shape)
	}
	mm.Attrs["transpose_b"] = aBool(false)
	if err := Infer(mm); err == nil || !strings.Contains(err.Error(), "inner dimensions differ") {
		t.Errorf("MatMul mismatch: %v", err)
	}
	conv.Attrs["strides"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte("2")}}
	if err := Infer(conv); err == nil || !strings.Contains(err.Error(), `attribute "strides" is a string, want list(int)`) {
		t.Errorf("wrong attribute type: %v", err)
	}
}

func TestZerosLikeOfStaticShape(t *testing.T) {
	f := ir.NewFunction("test", nil)
	x := f.AddParam("x", ir.Int32, ir.Shape{2, 2})
	n := f.NewNode("z", "OnesLike", []*ir.Value{x}, 1)
	n.Attrs["T"] = aType(ir.Int32)
	if err := Infer(n); err != nil {
		t.Fatal(err)
	}
	check(t, "OnesLike", n.Outputs[0].Const, ir.Shape{2, 2}, 1, 1, 1, 1)
}
