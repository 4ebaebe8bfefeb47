package tfops_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// dilatedFilter is the filter of testdata/dilated_conv.pbtxt, [3][3][2][3]
// flattened, from the seeded generator that wrote it.
func dilatedFilter() []float64 {
	out := make([]float64, 3*3*2*3)
	seed := int64(7)
	for i := range out {
		seed = (seed*1103515245 + 12345) % (1 << 31)
		out[i] = float64((seed>>8)%200-100) / 64
	}
	return out
}

// spaceBatchConvReference computes SpaceToBatchND(block r×r, pads) →
// Conv2D VALID → BatchToSpaceND(crops) on x [1][h][w][2] in float64, as
// its definition: the VALID convolution of the padded input with the
// filter dilated by r, cropped.
func spaceBatchConvReference(x []float64, h, w, r int, pads, crops [4]int, depthwise bool) (out []float64, oh, ow int) {
	const cin, k = 2, 3
	cout := 3
	if depthwise {
		cout = cin * 3 // channel multiplier 3
	}
	f := dilatedFilter()
	ph, pw := h+pads[0]+pads[1], w+pads[2]+pads[3]
	at := func(y, x0, c int) float64 {
		y, x0 = y-pads[0], x0-pads[2]
		if y < 0 || y >= h || x0 < 0 || x0 >= w {
			return 0
		}
		return x[(y*w+x0)*cin+c]
	}
	fh, fw := ph-(k-1)*r, pw-(k-1)*r
	oh, ow = fh-crops[0]-crops[1], fw-crops[2]-crops[3]
	for y := crops[0]; y < crops[0]+oh; y++ {
		for xx := crops[2]; xx < crops[2]+ow; xx++ {
			for o := 0; o < cout; o++ {
				s := 0.0
				for i := 0; i < k; i++ {
					for j := 0; j < k; j++ {
						if depthwise { // filter [k][k][cin][3]: o = c·3 + m
							s += at(y+i*r, xx+j*r, o/3) * f[((i*k+j)*cin+o/3)*3+o%3]
							continue
						}
						for c := 0; c < cin; c++ {
							s += at(y+i*r, xx+j*r, c) * f[((i*k+j)*cin+c)*cout+o]
						}
					}
				}
				out = append(out, s)
			}
		}
	}
	return out, oh, ow
}

// TestDilatedConvolution: SpaceToBatchND → Conv2D → BatchToSpaceND with
// the pads and crops of SAME or VALID padding becomes one CONV_2D with
// dilation 2 (as TensorFlow's converter folds it); other pads and crops
// stay SPACE_TO_BATCH_ND, CONV_2D and BATCH_TO_SPACE_ND; the same for
// DepthwiseConv2dNative (channel multiplier 3). Every variant's
// output matches the float64 reference of the three ops within 1e-5.
func TestDilatedConvolution(t *testing.T) {
	text, err := os.ReadFile("testdata/dilated_conv.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		pads, crops [4]int
		ops         []schema.BuiltinOperator
		padding     schema.Padding
		depthwise   bool
	}{
		{"SAME", [4]int{2, 3, 2, 3}, [4]int{0, 1, 0, 1}, []schema.BuiltinOperator{schema.BuiltinOperatorCONV_2D}, schema.PaddingSAME, false},
		{"VALID", [4]int{0, 1, 0, 1}, [4]int{0, 1, 0, 1}, []schema.BuiltinOperator{schema.BuiltinOperatorCONV_2D}, schema.PaddingVALID, false},
		{"other pads", [4]int{1, 2, 1, 2}, [4]int{0, 0, 0, 0}, []schema.BuiltinOperator{schema.BuiltinOperatorSPACE_TO_BATCH_ND, schema.BuiltinOperatorCONV_2D, schema.BuiltinOperatorBATCH_TO_SPACE_ND}, schema.PaddingVALID, false},
		{"crop before", [4]int{2, 3, 2, 3}, [4]int{1, 0, 0, 1}, []schema.BuiltinOperator{schema.BuiltinOperatorSPACE_TO_BATCH_ND, schema.BuiltinOperatorCONV_2D, schema.BuiltinOperatorBATCH_TO_SPACE_ND}, schema.PaddingVALID, false},
		{"depthwise SAME", [4]int{2, 3, 2, 3}, [4]int{0, 1, 0, 1}, []schema.BuiltinOperator{schema.BuiltinOperatorDEPTHWISE_CONV_2D}, schema.PaddingSAME, true},
		{"depthwise other pads", [4]int{1, 2, 1, 2}, [4]int{0, 0, 0, 0}, []schema.BuiltinOperator{schema.BuiltinOperatorSPACE_TO_BATCH_ND, schema.BuiltinOperatorDEPTHWISE_CONV_2D, schema.BuiltinOperatorBATCH_TO_SPACE_ND}, schema.PaddingVALID, true},
	}
	ints := func(v [4]int) string {
		var b strings.Builder
		for i, x := range v {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString("int_val: " + string(rune('0'+x)))
		}
		return b.String()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The crops first: the new pads may spell the old crops.
			g := strings.Replace(string(text), ints([4]int{0, 1, 0, 1}), ints(c.crops), 1)
			g = strings.Replace(g, ints([4]int{2, 3, 2, 3}), ints(c.pads), 1)
			if c.depthwise {
				g = strings.Replace(g, `op: "Conv2D"`, `op: "DepthwiseConv2dNative"`, 1)
			}
			path := filepath.Join(t.TempDir(), "g.pbtxt")
			if err := os.WriteFile(path, []byte(g), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := convert.Convert(path, convert.Options{OutputArrays: []string{"y"}})
			if err != nil {
				t.Fatal(err)
			}
			m := schema.GetRootAsModel(res.Model, 0).UnPack()
			sg := m.Subgraphs[0]
			var got []schema.BuiltinOperator
			for _, op := range sg.Operators {
				code := m.OperatorCodes[op.OpcodeIndex]
				got = append(got, code.BuiltinCode)
				if code.BuiltinCode == schema.BuiltinOperatorDEPTHWISE_CONV_2D {
					o := op.BuiltinOptions.Value.(*schema.DepthwiseConv2DOptionsT)
					wantD := int32(1)
					if len(c.ops) == 1 {
						wantD = 2
					}
					if o.Padding != c.padding || o.DilationHFactor != wantD || o.DilationWFactor != wantD || o.DepthMultiplier != 3 {
						t.Errorf("DEPTHWISE_CONV_2D %+v, want padding %s, dilation %d, multiplier 3", o, c.padding, wantD)
					}
				}
				if code.BuiltinCode == schema.BuiltinOperatorCONV_2D {
					o := op.BuiltinOptions.Value.(*schema.Conv2DOptionsT)
					wantD := int32(1)
					if len(c.ops) == 1 {
						wantD = 2
					}
					if o.Padding != c.padding || o.DilationHFactor != wantD || o.DilationWFactor != wantD || code.Version != map[bool]int32{true: 2, false: 1}[wantD == 2] {
						t.Errorf("CONV_2D v%d %+v, want padding %s, dilation %d", code.Version, o, c.padding, wantD)
					}
				}
			}
			if len(got) != len(c.ops) {
				t.Fatalf("operators %v, want %v", got, c.ops)
			}
			for i := range got {
				if got[i] != c.ops[i] {
					t.Fatalf("operators %v, want %v", got, c.ops)
				}
			}
			model, err := interpreter.LoadBytes(res.Model)
			if err != nil {
				t.Fatal(err)
			}
			it, err := interpreter.New(model, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := it.AllocateTensors(); err != nil {
				t.Fatal(err)
			}
			in := it.Input(0).Float32s()
			x := make([]float64, len(in))
			for i := range in {
				in[i] = float32((i*37)%23-11) / 8
				x[i] = float64(in[i])
			}
			if err := it.Invoke(); err != nil {
				t.Fatal(err)
			}
			want, oh, ow := spaceBatchConvReference(x, 9, 9, 2, c.pads, c.crops, c.depthwise)
			out := it.Output(0)
			if len(out.Shape) != 4 || out.Shape[1] != oh || out.Shape[2] != ow || out.Shape[3]*oh*ow != len(want) {
				t.Fatalf("output shape %v, want [1 %d %d %d]", out.Shape, oh, ow, len(want)/(oh*ow))
			}
			for i, v := range out.Float32s() {
				if math.Abs(float64(v)-want[i]) > 1e-5*(1+math.Abs(want[i])) {
					t.Fatalf("output %d = %v, want %v", i, v, want[i])
				}
			}
		})
	}
}

// TestSpaceToBatchRefusals: a block size below 1, and pads that do not
// fill whole blocks, are refused naming the node.
func TestSpaceToBatchRefusals(t *testing.T) {
	text, err := os.ReadFile("testdata/dilated_conv.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ old, new, want string }{
		{"int_val: 2 int_val: 2 ", "int_val: 0 int_val: 2 ", `node "s2b" (op SpaceToBatchND): block_shape[0] = 0 is not in [1, 32768]`},
		{"int_val: 2 int_val: 3 int_val: 2 int_val: 3", "int_val: 2 int_val: 2 int_val: 2 int_val: 3", `node "s2b" (op SpaceToBatchND): padded dimension 1 (9 + 2 + 2) is not a multiple of block size 2`},
	}
	for _, c := range cases {
		if !strings.Contains(string(text), c.old) {
			t.Fatalf("the graph has no %q to edit", c.old)
		}
		path := filepath.Join(t.TempDir(), "g.pbtxt")
		if err := os.WriteFile(path, []byte(strings.Replace(string(text), c.old, c.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := convert.Convert(path, convert.Options{OutputArrays: []string{"y"}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v\nwant an error containing %q", err, c.want)
		}
	}
}
