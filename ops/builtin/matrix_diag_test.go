package builtin

import (
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of MATRIX_DIAG: TFLite's kernel test vectors, every type on random
// batches against the definition, and the errors.

func TestMatrixDiag(t *testing.T) {
	n := node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2, 3}, []int32{1, 2, 3, 4, 5, 6})}, outTensor(ops.Int32))
	k := NewMatrixDiag()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 3, 3})
	equalInts(t, "TFLite's DiagTest", n.Outputs[0].Int32s(), []int{1, 0, 0, 0, 2, 0, 0, 0, 3, 4, 0, 0, 0, 5, 0, 0, 0, 6})
	noAllocs(t, k, n)
	r := lcg(73)
	for trial := 0; trial < 60; trial++ {
		typ := matrixDiagTypes[trial%len(matrixDiagTypes)]
		shape := []int{r.intn(0, 3), r.intn(0, 4)}
		raw := make([]byte, prod(shape)*typ.Size())
		for i := range raw {
			raw[i] = byte(r.next())
		}
		n := node(nil, []*ops.Tensor{tensorOf(typ, shape, raw)}, outTensor(typ))
		run(t, NewMatrixDiag(), n)
		b, m, e := shape[0], shape[1], typ.Size()
		want := make([]byte, b*m*m*e)
		for i := 0; i < b; i++ {
			for j := 0; j < m; j++ {
				copy(want[((i*m+j)*m+j)*e:][:e], raw[(i*m+j)*e:][:e])
			}
		}
		if got := n.Outputs[0].Data[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("%s %v: got %v want %v", typ, shape, got, want)
		}
	}
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"scalar", node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{}, []float32{1})}, outTensor(ops.Float32)), []string{"scalar"}},
		{"bool", node(nil, []*ops.Tensor{tensorOf(ops.Bool, []int{2}, []bool{true, false})}, outTensor(ops.Bool)), []string{"bool"}},
		{"output type", node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, []float32{1, 2})}, outTensor(ops.Int32)), []string{"output 0"}},
		{"overflow", node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{1 << 16}, make([]int8, 1<<16))}, outTensor(ops.Int8)), []string{"output 0"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewMatrixDiag(), c.n, c.wants...) })
	}
}
