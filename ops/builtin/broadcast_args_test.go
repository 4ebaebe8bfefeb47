package builtin

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of BROADCAST_ARGS: TFLite's kernel test vectors for int32 and
// int64, shapes of different lengths, and incompatible sizes (at Prepare
// for constants, at Eval otherwise).

func TestBroadcastArgs(t *testing.T) {
	for _, c := range []struct {
		a, b []int32
		want []int
	}{
		{[]int32{2, 4}, []int32{2, 1}, []int{2, 4}},
		{[]int32{1, 1, 4}, []int32{3, 1}, []int{1, 3, 4}},
		{[]int32{}, []int32{5, 6}, []int{5, 6}},
		{[]int32{0, 1}, []int32{1, 3}, []int{0, 3}},
	} {
		n := node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{len(c.a)}, c.a), tensorOf(ops.Int32, []int{len(c.b)}, c.b)}, outTensor(ops.Int32))
		k := NewBroadcastArgs()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, []int{len(c.want)})
		equalInts(t, "int32", n.Outputs[0].Int32s(), c.want)
		noAllocs(t, k, n)
	}
	n := node(nil, []*ops.Tensor{tensorOf(ops.Int64, []int{3}, []int64{7, 1, 2}), tensorOf(ops.Int64, []int{1}, []int64{1<<32 + 2})}, outTensor(ops.Int64))
	run(t, NewBroadcastArgs(), n)
	equalInts(t, "int64", n.Outputs[0].Int64s(), []int{7, 1, 2}) // 2^32+2 compares as 2

	bad := []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{2, 3}), tensorOf(ops.Int32, []int{1}, []int32{4})}
	n = node(nil, bad, outTensor(ops.Int32))
	k := NewBroadcastArgs()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "3 and 4") {
		t.Fatalf("Eval: %v", err)
	}
	wantPrepareError(t, NewBroadcastArgs(), node(nil, []*ops.Tensor{constT(bad[0]), constT(bad[1])}, outTensor(ops.Int32)), "3 and 4")
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"types differ", node(nil, []*ops.Tensor{c32(1), constT(tensorOf(ops.Int64, []int{1}, []int64{1}))}, outTensor(ops.Int32)), []string{"input 1", "int64"}},
		{"float", node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{1}), tensorOf(ops.Float32, []int{1}, []float32{1})}, outTensor(ops.Float32)), []string{"float32"}},
		{"matrix", node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1, 1}, []int32{1}), c32(1)}, outTensor(ops.Int32)), []string{"vectors"}},
		{"output type", node(nil, []*ops.Tensor{c32(1), c32(1)}, outTensor(ops.Int64)), []string{"output 0"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewBroadcastArgs(), c.n, c.wants...) })
	}
}
