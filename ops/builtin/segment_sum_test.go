package builtin

import (
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SEGMENT_SUM: TFLite's kernel test vector, random segmentations
// against the definition, and the segment ids TFLite refuses.

func segmentSumNode(data *ops.Tensor, ids ...int32) *ops.Node {
	return node(nil, []*ops.Tensor{data, c32(ids...)}, outTensor(data.Type))
}

func TestSegmentSum(t *testing.T) {
	n := segmentSumNode(tensorOf(ops.Int32, []int{3, 4}, []int32{1, 2, 3, 4, 4, 3, 2, 1, 5, 6, 7, 8}), 0, 0, 1)
	k := NewSegmentSum()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 4})
	equalInts(t, "TFLite's SegmentSumInt32", n.Outputs[0].Int32s(), []int{5, 5, 5, 5, 5, 6, 7, 8})
	noAllocs(t, k, n)

	r := lcg(53)
	for trial := 0; trial < 100; trial++ {
		rows := r.intn(0, 6)
		ids := make([]int32, rows)
		for i := 1; i < rows; i++ {
			ids[i] = ids[i-1] + int32(r.intn(0, 1))
		}
		inner := []int{r.intn(1, 3), r.intn(0, 3)}
		shape := append([]int{rows}, inner...)
		w := prod(inner)
		v := make([]float32, rows*w)
		for i := range v {
			v[i] = r.float(-2, 2)
		}
		n := segmentSumNode(tensorOf(ops.Float32, shape, v), ids...)
		run(t, NewSegmentSum(), n)
		segs := 0
		if rows > 0 {
			segs = int(ids[rows-1]) + 1
		}
		wantShape(t, n.Outputs[0].Shape, append([]int{segs}, inner...))
		want := make([]float32, segs*w)
		for i, id := range ids {
			for e := 0; e < w; e++ {
				want[int(id)*w+e] += v[i*w+e]
			}
		}
		if got := n.Outputs[0].Float32s()[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("ids %v: got %v want %v", ids, got, want)
		}
	}
}

func TestSegmentSumErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"not from 0", segmentSumNode(f32(3), 1, 1, 2), []string{"entry 0 is 1"}},
		{"jump", segmentSumNode(f32(3), 0, 2, 2), []string{"entry 1 is 2 after 0"}},
		{"decreasing", segmentSumNode(f32(3), 0, 1, 0), []string{"entry 2 is 0 after 1"}},
		{"count", segmentSumNode(f32(3), 0, 1), []string{"need [3]"}},
		{"dynamic ids", node(nil, []*ops.Tensor{f32(2), tensorOf(ops.Int32, []int{2}, []int32{0, 1})}, outTensor(ops.Float32)), []string{"input 1", "must be a constant tensor"}},
		{"int64 ids", node(nil, []*ops.Tensor{f32(2), constT(tensorOf(ops.Int64, []int{2}, []int64{0, 1}))}, outTensor(ops.Float32)), []string{"int64"}},
		{"int8 data", segmentSumNode(tensorOf(ops.Int8, []int{1}, []int8{1}), 0), []string{"int8"}},
		{"scalar data", segmentSumNode(f32(), 0), []string{"scalar"}},
		{"output type", node(nil, []*ops.Tensor{f32(1), c32(0)}, outTensor(ops.Int32)), []string{"output 0"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewSegmentSum(), c.n, c.wants...) })
	}
}
