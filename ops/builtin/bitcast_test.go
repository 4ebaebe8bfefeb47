package builtin

import (
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of BITCAST: same-size, widening and narrowing casts keep the bytes
// and reshape as TFLite's CalculateShape; the errors.

func TestBitcast(t *testing.T) {
	raw := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	for _, c := range []struct {
		in, out ops.DataType
		shape   []int
		want    []int
	}{
		{ops.Int32, ops.Float32, []int{2, 2}, []int{2, 2}},
		{ops.Int64, ops.Uint8, []int{2}, []int{2, 8}},
		{ops.Int16, ops.Uint32, []int{4, 2}, []int{4}},
		{ops.Uint8, ops.Complex128, []int{16}, []int{}},
	} {
		n := node(nil, []*ops.Tensor{tensorOf(c.in, c.shape, raw)}, outTensor(c.out))
		k := NewBitcast()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, c.want)
		if got := n.Outputs[0].Data[:16]; !slices.Equal(got, raw) {
			t.Fatalf("%s→%s: bytes %v", c.in, c.out, got)
		}
		noAllocs(t, k, n)
	}
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"last dim", node(nil, []*ops.Tensor{tensorOf(ops.Uint8, []int{2, 3}, make([]uint8, 6))}, outTensor(ops.Int32)), []string{"end in a dimension of 4"}},
		{"scalar narrower", node(nil, []*ops.Tensor{tensorOf(ops.Uint8, []int{}, []uint8{1})}, outTensor(ops.Int16)), []string{"end in a dimension of 2"}},
		{"string in", node(nil, []*ops.Tensor{{Type: ops.String, Shape: []int{1}}}, outTensor(ops.Int32)), []string{"input 0", "string"}},
		{"string out", node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{1})}, outTensor(ops.String)), []string{"output 0", "string"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewBitcast(), c.n, c.wants...) })
	}
}
