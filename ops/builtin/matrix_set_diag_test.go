package builtin

import (
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of MATRIX_SET_DIAG: TFLite's kernel test vector, every type on
// random non-square batches against the definition, and the errors.

func TestMatrixSetDiag(t *testing.T) {
	in := tensorOf(ops.Int32, []int{1, 3, 2}, []int32{1, 2, 3, 4, 5, 6})
	n := node(nil, []*ops.Tensor{in, tensorOf(ops.Int32, []int{1, 2}, []int32{-1, -2})}, outTensor(ops.Int32))
	k := NewMatrixSetDiag()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{1, 3, 2})
	equalInts(t, "set diag", n.Outputs[0].Int32s(), []int{-1, 2, 3, -2, 5, 6})
	noAllocs(t, k, n)
	r := lcg(79)
	for trial := 0; trial < 60; trial++ {
		typ := matrixDiagTypes[trial%len(matrixDiagTypes)]
		shape := []int{r.intn(0, 3), r.intn(0, 4), r.intn(0, 4)}
		b, rows, cols, e := shape[0], shape[1], shape[2], typ.Size()
		raw := make([]byte, prod(shape)*e)
		dg := make([]byte, b*min(rows, cols)*e)
		for i := range raw {
			raw[i] = byte(r.next())
		}
		for i := range dg {
			dg[i] = byte(r.next())
		}
		n := node(nil, []*ops.Tensor{tensorOf(typ, shape, raw), tensorOf(typ, []int{b, min(rows, cols)}, dg)}, outTensor(typ))
		run(t, NewMatrixSetDiag(), n)
		want := slices.Clone(raw)
		for i := 0; i < b; i++ {
			for j := 0; j < min(rows, cols); j++ {
				copy(want[((i*rows+j)*cols+j)*e:][:e], dg[(i*min(rows, cols)+j)*e:][:e])
			}
		}
		if got := n.Outputs[0].Data[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("%s %v: got %v want %v", typ, shape, got, want)
		}
	}
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"rank 1", node(nil, []*ops.Tensor{f32(3), f32(3)}, outTensor(ops.Float32)), []string{"rank ≥ 2"}},
		{"short diagonal", node(nil, []*ops.Tensor{f32(2, 3, 3), f32(2, 2)}, outTensor(ops.Float32)), []string{"4 elements", "need 6"}},
		{"diagonal type", node(nil, []*ops.Tensor{f32(3, 3), tensorOf(ops.Int32, []int{3}, []int32{1, 2, 3})}, outTensor(ops.Float32)), []string{"diagonal", "int32"}},
		{"bool", node(nil, []*ops.Tensor{tensorOf(ops.Bool, []int{1, 1}, []bool{true}), tensorOf(ops.Bool, []int{1}, []bool{true})}, outTensor(ops.Bool)), []string{"bool"}},
		{"one input", node(nil, []*ops.Tensor{f32(3, 3)}, outTensor(ops.Float32)), []string{"1 inputs"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewMatrixSetDiag(), c.n, c.wants...) })
	}
}
