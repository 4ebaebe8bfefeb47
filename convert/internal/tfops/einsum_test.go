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

// seeded is the generator testdata/einsum.pbtxt's weights came from.
func seeded(seed int64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		seed = (seed*1103515245 + 12345) % (1 << 31)
		out[i] = float64((seed>>8)%200-100) / 64
	}
	return out
}

// einsum64 evaluates a two-operand equation "lhs,rhs->out" in float64 by
// its definition: out[o] = Σ over every other label of a[·]·b[·].
func einsum64(eq string, a []float64, sa []int, b []float64, sb []int) ([]float64, []int) {
	ins, out, _ := strings.Cut(eq, "->")
	lhs, rhs, _ := strings.Cut(ins, ",")
	size := map[byte]int{}
	for i := range lhs {
		size[lhs[i]] = sa[i]
	}
	for i := range rhs {
		size[rhs[i]] = sb[i]
	}
	var labels []byte
	for l := range size {
		labels = append(labels, l)
	}
	idx := map[byte]int{}
	flat := func(ls string, shape []int) int {
		k := 0
		for i := range ls {
			k = k*shape[i] + idx[ls[i]]
		}
		return k
	}
	so := make([]int, len(out))
	n := 1
	for i := range out {
		so[i] = size[out[i]]
		n *= so[i]
	}
	y := make([]float64, n)
	var walk func(j int)
	walk = func(j int) {
		if j == len(labels) {
			y[flat(out, so)] += a[flat(lhs, sa)] * b[flat(rhs, sb)]
			return
		}
		for v := 0; v < size[labels[j]]; v++ {
			idx[labels[j]] = v
			walk(j + 1)
		}
	}
	walk(0)
	return y, so
}

// TestEinsumMultiHeadAttention: the equations of Keras's
// MultiHeadAttention become FULLY_CONNECTED (constant kernels),
// BATCH_MATMUL (the attention products), TRANSPOSE and RESHAPE only, and
// the model's output matches the float64 evaluation of the equations
// within 1e-5.
func TestEinsumMultiHeadAttention(t *testing.T) {
	res, err := convert.Convert("testdata/einsum.pbtxt", convert.Options{OutputArrays: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	m := schema.GetRootAsModel(res.Model, 0).UnPack()
	count := map[schema.BuiltinOperator]int{}
	for _, op := range m.Subgraphs[0].Operators {
		code := m.OperatorCodes[op.OpcodeIndex].BuiltinCode
		switch code {
		case schema.BuiltinOperatorFULLY_CONNECTED, schema.BuiltinOperatorBATCH_MATMUL, schema.BuiltinOperatorTRANSPOSE, schema.BuiltinOperatorRESHAPE:
			count[code]++
		default:
			t.Errorf("operator %s, want FULLY_CONNECTED, BATCH_MATMUL, TRANSPOSE and RESHAPE only", code)
		}
	}
	if count[schema.BuiltinOperatorFULLY_CONNECTED] != 3 || count[schema.BuiltinOperatorBATCH_MATMUL] != 2 {
		t.Errorf("operators %v, want 3 FULLY_CONNECTED (q, k, output) and 2 BATCH_MATMUL (scores, context)", count)
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
		in[i] = float32((i*29)%17-8) / 16
		x[i] = float64(in[i])
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	sx := []int{2, 5, 8}
	q, sq := einsum64("abc,cde->abde", x, sx, seeded(1, 64), []int{8, 2, 4})
	k, _ := einsum64("abc,cde->abde", x, sx, seeded(2, 64), []int{8, 2, 4})
	s, ss := einsum64("aecd,abcd->acbe", k, sq, q, sq)
	c, sc := einsum64("acbe,aecd->abcd", s, ss, q, sq)
	want, sy := einsum64("abcd,cde->abe", c, sc, seeded(3, 64), []int{2, 4, 8})
	out := it.Output(0)
	if len(out.Shape) != 3 || out.Shape[0] != sy[0] || out.Shape[1] != sy[1] || out.Shape[2] != sy[2] {
		t.Fatalf("output shape %v, want %v", out.Shape, sy)
	}
	for i, v := range out.Float32s() {
		if math.Abs(float64(v)-want[i]) > 1e-5*(1+math.Abs(want[i])) {
			t.Fatalf("output %d = %v, want %v", i, v, want[i])
		}
	}
}

// TestEinsumRefusals: equations that are no batched matrix product are
// refused, naming the node and the equation.
func TestEinsumRefusals(t *testing.T) {
	text, err := os.ReadFile("testdata/einsum.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ eq, want string }{
		{"...c,cde->...de", "ellipses are not supported"},
		{"abb,cde->abde", `label 'b' repeats in "abb"`},
		{"abc,cde->abd", `label 'e' is summed within one operand`},
		{"abc,cde->abdz", `output label 'z' is in no operand`},
		{"abc->abc", `is not of the form "lhs,rhs->out"`},
	}
	for _, c := range cases {
		g := strings.Replace(string(text), `s: "abcd,cde->abe"`, `s: "`+c.eq+`"`, 1)
		path := filepath.Join(t.TempDir(), "g.pbtxt")
		if err := os.WriteFile(path, []byte(g), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := convert.Convert(path, convert.Options{OutputArrays: []string{"y"}})
		if err == nil || !strings.Contains(err.Error(), `node "y" (op Einsum)`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming the node and containing %q", c.eq, err, c.want)
		}
	}
}
