package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of ONE_HOT: TFLite's kernel test vectors, random axes and types
// against the definition, int64 indices compared by their low 32 bits, and
// the errors.

func oneHotNode(axis int, idx *ops.Tensor, depth int32, on, off *ops.Tensor) *ops.Node {
	return node(&OneHotOptions{Axis: axis}, []*ops.Tensor{idx, constT(tensorOf(ops.Int32, []int{}, []int32{depth})), on, off}, outTensor(on.Type))
}

func TestOneHot(t *testing.T) {
	f := func(v float32) *ops.Tensor { return tensorOf(ops.Float32, []int{}, []float32{v}) }
	// TFLite's BasicFloat: indices [0, 1, 2], depth 3, default axis.
	n := oneHotNode(-1, tensorOf(ops.Int32, []int{3}, []int32{0, 1, 2}), 3, f(1), f(0))
	k := NewOneHot()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{3, 3})
	nearFloats(t, "BasicFloat", n.Outputs[0].Float32s(), []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, 0)
	noAllocs(t, k, n)
	// TFLite's Int64Indices with axis 0 and out-of-range / negative indices.
	i := func(v int32) *ops.Tensor { return tensorOf(ops.Int32, []int{}, []int32{v}) }
	n = oneHotNode(0, tensorOf(ops.Int64, []int{2, 2}, []int64{0, 2, -1, 1}), 3, i(5), i(-1))
	run(t, NewOneHot(), n)
	wantShape(t, n.Outputs[0].Shape, []int{3, 2, 2})
	equalInts(t, "axis 0", n.Outputs[0].Int32s(), []int{5, -1, -1, -1, -1, -1, -1, 5, -1, 5, -1, -1})
	// int64 indices compare by their low 32 bits, as TFLite's cast to int.
	n = oneHotNode(-1, tensorOf(ops.Int64, []int{2}, []int64{1<<32 + 1, 1 << 33}), 2, i(1), i(0))
	run(t, NewOneHot(), n)
	equalInts(t, "int64 low bits", n.Outputs[0].Int32s(), []int{0, 1, 1, 0})

	r := lcg(67)
	for trial := 0; trial < 100; trial++ {
		rank := r.intn(0, 3)
		shape := make([]int, rank)
		for d := range shape {
			shape[d] = r.intn(0, 3)
		}
		axis := r.intn(-1, rank)
		depth := r.intn(0, 4)
		idx := make([]int32, prod(shape))
		for j := range idx {
			idx[j] = int32(r.intn(-1, 4))
		}
		on, off := tensorOf(ops.Uint8, []int{1}, []uint8{7}), tensorOf(ops.Uint8, []int{1}, []uint8{9})
		n := oneHotNode(axis, tensorOf(ops.Int32, shape, idx), int32(depth), on, off)
		run(t, NewOneHot(), n)
		ax := axis
		if ax == -1 {
			ax = rank
		}
		outShape := append(append(append([]int{}, shape[:ax]...), depth), shape[ax:]...)
		wantShape(t, n.Outputs[0].Shape, outShape)
		want := make([]uint8, prod(outShape))
		forEach(outShape, func(o []int) {
			in := append(append([]int{}, o[:ax]...), o[ax+1:]...)
			v := uint8(9)
			if int(idx[index(shape, in)]) == o[ax] {
				v = 7
			}
			want[index(outShape, o)] = v
		})
		equalInts(t, "random", n.Outputs[0].Uint8s()[:len(want)], func() []int {
			w := make([]int, len(want))
			for j, v := range want {
				w[j] = int(v)
			}
			return w
		}())
	}

	i16 := tensorOf(ops.Int16, []int{}, []int16{1})
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"int16", oneHotNode(-1, tensorOf(ops.Int32, []int{1}, []int32{0}), 2, i16, i16), []string{"int16"}},
		{"axis", oneHotNode(2, tensorOf(ops.Int32, []int{1}, []int32{0}), 2, f(1), f(0)), []string{"axis 2"}},
		{"axis -2", oneHotNode(-2, tensorOf(ops.Int32, []int{1}, []int32{0}), 2, f(1), f(0)), []string{"axis -2"}},
		{"negative depth", oneHotNode(-1, tensorOf(ops.Int32, []int{1}, []int32{0}), -1, f(1), f(0)), []string{"-1 is negative"}},
		{"off type", oneHotNode(-1, tensorOf(ops.Int32, []int{1}, []int32{0}), 2, f(1), i(0)), []string{"off_value", "int32"}},
		{"float indices", oneHotNode(-1, tensorOf(ops.Float32, []int{1}, []float32{0}), 2, f(1), f(0)), []string{"indices", "float32"}},
		{"dynamic depth", node(&OneHotOptions{Axis: -1}, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{0}), tensorOf(ops.Int32, []int{}, []int32{2}), f(1), f(0)}, outTensor(ops.Float32)), []string{"input 1", "must be a constant tensor"}},
		{"on vector", oneHotNode(-1, tensorOf(ops.Int32, []int{1}, []int32{0}), 2, tensorOf(ops.Float32, []int{2}, []float32{1, 1}), f(0)), []string{"one element"}},
		{"three inputs", node(&OneHotOptions{}, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{0}), c32(2), f(1)}, outTensor(ops.Float32)), []string{"3 inputs"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewOneHot(), c.n, c.wants...) })
	}
}
