package tfops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/internal/tfops"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// TestDepthToSpaceConverts: the graph of testdata/depth_to_space.pbtxt is
// written as one DEPTH_TO_SPACE (version 1, float32) with
// DepthToSpaceOptions{block_size: 2} from [1, 2, 3, 8] to [1, 4, 6, 2];
// data_format NCHW is refused naming the node.
func TestDepthToSpaceConverts(t *testing.T) {
	res, err := convert.Convert("testdata/depth_to_space.pbtxt", convert.Options{OutputArrays: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	m := schema.GetRootAsModel(res.Model, 0).UnPack()
	sg := m.Subgraphs[0]
	if len(sg.Operators) != 1 {
		t.Fatalf("%d operators, want 1", len(sg.Operators))
	}
	op := sg.Operators[0]
	code := m.OperatorCodes[op.OpcodeIndex]
	if code.BuiltinCode != schema.BuiltinOperatorDEPTH_TO_SPACE || code.Version != 1 {
		t.Errorf("operator %s v%d, want DEPTH_TO_SPACE v1", schema.BuiltinOperatorName(int32(code.BuiltinCode)), code.Version)
	}
	o, ok := op.BuiltinOptions.Value.(*schema.DepthToSpaceOptionsT)
	if op.BuiltinOptions.Type != schema.BuiltinOptionsDepthToSpaceOptions || !ok || o.BlockSize != 2 {
		t.Errorf("options %+v, want DepthToSpaceOptions{BlockSize: 2}", op.BuiltinOptions)
	}
	in, out := sg.Tensors[op.Inputs[0]], sg.Tensors[op.Outputs[0]]
	if !equal32(in.Shape, 1, 2, 3, 8) || !equal32(out.Shape, 1, 4, 6, 2) || in.Type != schema.TensorTypeFLOAT32 || out.Type != schema.TensorTypeFLOAT32 {
		t.Errorf("tensors %s%v → %s%v, want FLOAT32[1 2 3 8] → FLOAT32[1 4 6 2]", in.Type, in.Shape, out.Type, out.Shape)
	}

	b, err := os.ReadFile("testdata/depth_to_space.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	nchw := filepath.Join(t.TempDir(), "nchw.pbtxt")
	if err := os.WriteFile(nchw, []byte(strings.Replace(string(b), `s: "NHWC"`, `s: "NCHW"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = convert.Convert(nchw, convert.Options{OutputArrays: []string{"y"}})
	if err == nil || !strings.Contains(err.Error(), `node "y" (op DepthToSpace): data_format "NCHW" is not supported (only NHWC)`) {
		t.Errorf("NCHW: %v", err)
	}
}

func equal32(s []int32, want ...int32) bool {
	if len(s) != len(want) {
		return false
	}
	for i := range s {
		if s[i] != want[i] {
			return false
		}
	}
	return true
}

// depthToSpaceNode is DepthToSpace of x with the given attributes.
func depthToSpaceNode(f *ir.Function, x *ir.Value, blockSize int64, format string) *ir.Node {
	n := f.NewNode("d2s", "DepthToSpace", []*ir.Value{x}, 1)
	n.Attrs["T"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: x.DType.TF()}}
	if blockSize != 0 {
		n.Attrs["block_size"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: blockSize}}
	}
	if format != "" {
		n.Attrs["data_format"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(format)}}
	}
	return n
}

// TestDepthToSpaceShapes: the output shape is [n, h·bs, w·bs, d/bs²],
// unknown sizes staying unknown; a depth not divisible by bs², a rank
// other than 4, a block size under 2 or missing and a data format other
// than NHWC are errors naming the node.
func TestDepthToSpaceShapes(t *testing.T) {
	for _, c := range []struct {
		in        ir.Shape
		bs        int64
		format    string
		want, err string
	}{
		{ir.Shape{1, 2, 3, 8}, 2, "", "[1 4 6 2]", ""},
		{ir.Shape{-1, -1, 3, 27}, 3, "NHWC", "[? ? 9 3]", ""},
		{ir.Shape{1, 2, 2, -1}, 2, "", "[1 4 4 ?]", ""},
		{nil, 2, "", "[? ? ? ?]", ""},
		{ir.Shape{1, 2, 2, 6}, 2, "", "", "input depth 6 is not divisible by block_size² = 4"},
		{ir.Shape{2, 2, 8}, 2, "", "", "input must be 4-D NHWC, has shape [2 2 8]"},
		{ir.Shape{1, 2, 2, 8}, 1, "", "", "block_size 1 is not in [2, 32768]"},
		{ir.Shape{1, 2, 2, 8}, 0, "", "", `attribute "block_size" is missing`},
		{ir.Shape{1, 8, 2, 2}, 2, "NCHW", "", `data_format "NCHW" is not supported (only NHWC)`},
	} {
		f := ir.NewFunction("f", nil)
		x := f.AddParam("x", ir.Float32, c.in)
		n := depthToSpaceNode(f, x, c.bs, c.format)
		err := tfops.Infer(n)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), `node "d2s" (op DepthToSpace): `+c.err) {
				t.Errorf("%s bs %d %s: error %v, want %q", c.in, c.bs, c.format, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s bs %d: %v", c.in, c.bs, err)
			continue
		}
		if got := n.Outputs[0].Shape.String(); got != c.want || n.Outputs[0].DType != ir.Float32 {
			t.Errorf("%s bs %d: output %s%s, want float32%s", c.in, c.bs, n.Outputs[0].DType, got, c.want)
		}
	}
}

// TestDepthToSpaceFolds: a constant input folds, as in the examples of
// TensorFlow's documentation of tf.nn.depth_to_space.
func TestDepthToSpaceFolds(t *testing.T) {
	seq := func(k int) []int32 {
		v := make([]int32, k)
		for i := range v {
			v[i] = int32(i + 1)
		}
		return v
	}
	for _, c := range []struct {
		in, out ir.Shape
		want    []int64
	}{
		// [[[[1, 2, 3, 4]]]] → [[[[1], [2]], [[3], [4]]]]
		{ir.Shape{1, 1, 1, 4}, ir.Shape{1, 2, 2, 1}, []int64{1, 2, 3, 4}},
		// [[[[1, 2, 3, ..., 12]]]] → [[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]]
		{ir.Shape{1, 1, 1, 12}, ir.Shape{1, 2, 2, 3}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		// [[[[1, 2, 3, 4], [5, 6, 7, 8]], [[9, 10, 11, 12], [13, 14, 15, 16]]]]
		// → [[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[9], [10], [13], [14]], [[11], [12], [15], [16]]]]
		{ir.Shape{1, 2, 2, 4}, ir.Shape{1, 4, 4, 1}, []int64{1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16}},
	} {
		f := ir.NewFunction("f", nil)
		k, _ := c.in.NumElements()
		x := f.NewConst("x", ir.FromInt32s(c.in, seq(k)))
		n := depthToSpaceNode(f, x, 2, "")
		if err := tfops.Infer(n); err != nil {
			t.Fatal(err)
		}
		out, err := tfops.Fold(n)
		if err != nil || len(out) != 1 {
			t.Fatalf("%s: fold %v, %v", c.in, out, err)
		}
		got := out[0].Int64s()
		if out[0].DType != ir.Int32 || !out[0].Shape.Equal(c.out) || len(got) != len(c.want) {
			t.Fatalf("%s: folded %s, want int32%s", c.in, out[0], c.out)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: element %d is %d, want %d", c.in, i, got[i], c.want[i])
			}
		}
	}
}
