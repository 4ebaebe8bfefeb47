package builtin

import (
	"math"
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of NON_MAX_SUPPRESSION_V4/V5: TFLite's kernel test vectors
// (non_max_suppression_test.cc), the C++ heap and sort orders the kernels
// depend on, and the nodes TFLite refuses.

var nmsTestBoxes = []float32{
	1, 1, 0, 0, // box 0
	0, 0.1, 1, 1.1, // box 1
	0, .9, 1, -0.1, // box 2
	0, 10, 1, 11, // box 3
	1, 10.1, 0, 11.1, // box 4
	1, 101, 0, 100, // box 5
}

func f32Scalar(v float32) *ops.Tensor { return tensorOf(ops.Float32, []int{}, []float32{v}) }

func nmsNode(scores []float32, maxOut int32, iou, scoreThr float32, sigma *float32) *ops.Node {
	ins := []*ops.Tensor{
		tensorOf(ops.Float32, []int{6, 4}, nmsTestBoxes),
		tensorOf(ops.Float32, []int{6}, scores),
		constT(tensorOf(ops.Int32, []int{}, []int32{maxOut})),
		constT(f32Scalar(iou)),
		f32Scalar(scoreThr),
	}
	outs := []*ops.Tensor{outTensor(ops.Int32), outTensor(ops.Int32)}
	if sigma != nil {
		ins = append(ins, constT(f32Scalar(*sigma)))
		outs = []*ops.Tensor{outTensor(ops.Int32), outTensor(ops.Float32), outTensor(ops.Int32)}
	}
	return node(nil, ins, outs...)
}

func TestNonMaxSuppressionTFLiteVectors(t *testing.T) {
	scores := []float32{0.9, 0.75, 0.6, 0.95, 0.5, 0.3}
	for _, c := range []struct {
		name    string
		maxOut  int32
		thr     float32
		sigma   *float32
		num     int32
		indices []int32
		scores  []float32
	}{
		{"v4", 6, 0.4, nil, 2, []int32{3, 0, 0, 0, 0, 0}, nil},
		{"v4 none", 6, 0.99, nil, 0, []int32{0, 0, 0, 0, 0, 0}, nil},
		{"v4 max 1", 1, 0.4, nil, 1, []int32{3}, nil},
		{"v4 max 2", 2, 0.4, nil, 2, []int32{3, 0}, nil},
		{"v4 max 0", 0, 0.4, nil, 0, []int32{}, nil},
		{"v5", 6, 0, new(float32(0.5)), 3, []int32{3, 0, 5, 0, 0, 0}, []float32{0.95, 0.9, 0.3, 0, 0, 0}},
		{"v5 none", 6, 0.99, new(float32(0.5)), 0, []int32{0, 0, 0, 0, 0, 0}, []float32{0, 0, 0, 0, 0, 0}},
		{"v5 max 2", 2, 0, new(float32(0.5)), 2, []int32{3, 0}, []float32{0.95, 0.9}},
		{"v5 max 3", 3, 0, new(float32(0.5)), 3, []int32{3, 0, 5}, []float32{0.95, 0.9, 0.3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := nmsNode(scores, c.maxOut, 0.5, c.thr, c.sigma)
			k := NewNonMaxSuppression()
			run(t, k, n)
			last := n.Outputs[len(n.Outputs)-1]
			wantShape(t, last.Shape, []int{})
			if got := last.Int32s()[0]; got != c.num {
				t.Errorf("num_selected %d, want %d", got, c.num)
			}
			wantShape(t, n.Outputs[0].Shape, []int{int(c.maxOut)})
			if got := n.Outputs[0].Int32s()[:c.maxOut]; !slices.Equal(got, c.indices) {
				t.Errorf("selected %v, want %v", got, c.indices)
			}
			if c.scores != nil {
				got := n.Outputs[1].Float32s()[:c.maxOut]
				for i := range got {
					if math.Abs(float64(got[i]-c.scores[i])) > 1e-6 {
						t.Errorf("scores %v, want %v", got, c.scores)
						break
					}
				}
			}
			noAllocs(t, k, n)
		})
	}
}

// TestStdHeapOrder pins the orders libstdc++ (GCC 12) gives among equal
// keys, checked against a C++ program when this kernel was written: the
// first m indices of std::partial_sort by decreasing value, and the pop
// order of a std::priority_queue into which every index is pushed with
// its value as score, every third pop being pushed back with its score
// lowered by 1 (while positive).
func TestStdHeapOrder(t *testing.T) {
	for _, c := range []struct {
		v       []int
		m       int
		partial []int32
		pops    []int32
	}{
		{[]int{1, 2, 2, 1, 2, 0, 2, 1}, 3, []int32{4, 1, 2}, []int32{1, 2, 6, 4, 7, 4, 0, 3, 1, 0, 5}},
		{[]int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 10, []int32{8, 9, 4, 7, 5, 3, 1, 0, 2, 6}, []int32{0, 2, 6, 9, 5, 8, 7, 1, 4, 3, 9, 0, 7, 3, 7}},
		{[]int{0, 0, 5, 5, 0, 5}, 2, []int32{3, 2}, []int32{2, 5, 3, 2, 2, 1, 0, 4}},
	} {
		idx := make([]int32, len(c.v))
		for i := range idx {
			idx[i] = int32(i)
		}
		v := c.v
		partialSort(idx, c.m, func(a, b int32) bool { return v[a] > v[b] })
		if !slices.Equal(idx[:c.m], c.partial) {
			t.Errorf("partial_sort of %v (m=%d): %v, want %v", c.v, c.m, idx[:c.m], c.partial)
		}
		var h []nmsCandidate
		for i, x := range c.v {
			h = append(h, nmsCandidate{index: int32(i), score: float32(x)})
			heapPush(h, nmsLess)
		}
		var pops []int32
		for step := 0; len(h) > 0; step++ {
			top := h[0]
			heapPop(h, nmsLess)
			h = h[:len(h)-1]
			pops = append(pops, top.index)
			if step%3 == 0 && top.score > 0 {
				top.score--
				h = append(h, top)
				heapPush(h, nmsLess)
			}
		}
		if !slices.Equal(pops, c.pops) {
			t.Errorf("priority_queue of %v: pops %v, want %v", c.v, pops, c.pops)
		}
	}
	// stableSort and mergeRuns keep equal keys in order.
	r := lcg(3)
	for trial := 0; trial < 200; trial++ {
		n := r.intn(0, 100)
		keys := make([]int, n)
		s := make([]int32, n)
		for i := range s {
			keys[i], s[i] = r.intn(0, 5), int32(i)
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b int32) int { return keys[b] - keys[a] })
		stableSort(s, make([]int32, n), func(a, b int32) bool { return keys[a] > keys[b] })
		if !slices.Equal(s, want) {
			t.Fatalf("stableSort: %v, want %v", s, want)
		}
		mid := r.intn(0, n)
		a, b := slices.Clone(want[:mid]), slices.Clone(want[mid:])
		merged := append(slices.Clone(a), b...)
		mergeRuns(merged, mid, make([]int32, n), func(x, y int32) bool { return keys[x] > keys[y] })
		want2 := append(slices.Clone(a), b...)
		slices.SortStableFunc(want2, func(x, y int32) int { return keys[y] - keys[x] })
		if !slices.Equal(merged, want2) {
			t.Fatalf("mergeRuns: %v, want %v", merged, want2)
		}
	}
}

func TestNonMaxSuppressionErrors(t *testing.T) {
	scores := []float32{0.9, 0.75, 0.6, 0.95, 0.5, 0.3}
	base := func() *ops.Node { return nmsNode(scores, 6, 0.5, 0.4, nil) }
	mod := func(f func(n *ops.Node)) *ops.Node { n := base(); f(n); return n }
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"4 inputs", mod(func(n *ops.Node) { n.Inputs = n.Inputs[:4] }), []string{"4 inputs"}},
		{"3 outputs for 5 inputs", mod(func(n *ops.Node) { n.Outputs = append(n.Outputs, outTensor(ops.Int32)) }), []string{"3 outputs"}},
		{"boxes rank", mod(func(n *ops.Node) { n.Inputs[0] = tensorOf(ops.Float32, []int{24}, nmsTestBoxes) }), []string{"input 0", "[num_boxes, 4]"}},
		{"boxes width", mod(func(n *ops.Node) { n.Inputs[0] = tensorOf(ops.Float32, []int{8, 3}, nmsTestBoxes) }), []string{"input 0"}},
		{"boxes int", mod(func(n *ops.Node) { n.Inputs[0] = tensorOf(ops.Int32, []int{6, 4}, make([]int32, 24)) }), []string{"input 0", "int32"}},
		{"scores count", mod(func(n *ops.Node) { n.Inputs[1] = tensorOf(ops.Float32, []int{5}, scores[:5]) }), []string{"input 1", "[6]"}},
		{"max not scalar", mod(func(n *ops.Node) { n.Inputs[2] = c32(6) }), []string{"input 2", "scalar"}},
		{"max negative", mod(func(n *ops.Node) { n.Inputs[2] = constT(tensorOf(ops.Int32, []int{}, []int32{-1})) }), []string{"input 2", "negative"}},
		{"max dynamic", mod(func(n *ops.Node) { n.Inputs[2] = tensorOf(ops.Int32, []int{}, []int32{6}) }), []string{"input 2 (max_output_size)", "must be a constant tensor"}},
		{"max float", mod(func(n *ops.Node) { n.Inputs[2] = constT(f32Scalar(6)) }), []string{"input 2", "float32"}},
		{"iou not scalar", mod(func(n *ops.Node) { n.Inputs[3] = tensorOf(ops.Float32, []int{1}, []float32{0.5}) }), []string{"input 3", "scalar"}},
		{"score type", mod(func(n *ops.Node) { n.Inputs[4] = tensorOf(ops.Int32, []int{}, []int32{0}) }), []string{"input 4", "int32"}},
		{"output type", mod(func(n *ops.Node) { n.Outputs[0] = outTensor(ops.Float32) }), []string{"output 0", "float32"}},
		{"missing input", mod(func(n *ops.Node) { n.Inputs[1] = nil }), []string{"input 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewNonMaxSuppression(), c.n, c.wants...) })
	}
	// A negative sigma is refused at Eval, as TFLite does.
	n := nmsNode(scores, 6, 0.5, 0, new(float32(-1)))
	k := NewNonMaxSuppression()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil {
		t.Error("negative sigma accepted")
	}
	if err := NewNonMaxSuppression().Eval(base()); err == nil {
		t.Error("Eval before Prepare succeeded")
	}
}
