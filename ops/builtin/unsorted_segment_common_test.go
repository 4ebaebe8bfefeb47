package builtin

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of UNSORTED_SEGMENT_SUM, _PROD, _MAX and _MIN: TFLite's kernel test
// vectors, random ids (negative ones skipped, multi-dimensional ids)
// against the definition, neutral elements of empty segments, NaN handling,
// and the errors.

func unsortedNode(data, ids *ops.Tensor, num int32) *ops.Node {
	return node(nil, []*ops.Tensor{data, ids, c32(num)}, outTensor(data.Type))
}

func TestUnsortedSegmentTFLiteVectors(t *testing.T) {
	data := tensorOf(ops.Int32, []int{8}, []int32{1, 2, 3, 4, 4, 3, 2, 1})
	ids := tensorOf(ops.Int32, []int{8}, []int32{1, 0, 1, 7, 7, 7, 7, 7})
	for _, c := range []struct {
		newK func() ops.Kernel
		want []int
	}{
		{NewUnsortedSegmentProd, []int{2, 3, 1, 1, 1, 1, 1, 96}},
		{NewUnsortedSegmentSum, []int{2, 4, 0, 0, 0, 0, 0, 14}},
		{NewUnsortedSegmentMax, []int{2, 3, math.MinInt32, math.MinInt32, math.MinInt32, math.MinInt32, math.MinInt32, 4}},
		{NewUnsortedSegmentMin, []int{2, 1, math.MaxInt32, math.MaxInt32, math.MaxInt32, math.MaxInt32, math.MaxInt32, 1}},
	} {
		n := unsortedNode(data, ids, 8)
		k := c.newK()
		run(t, k, n)
		equalInts(t, k.(*UnsortedSegment).op.name, n.Outputs[0].Int32s(), c.want)
		noAllocs(t, k, n)
	}
}

func TestUnsortedSegmentAgainstDefinition(t *testing.T) {
	r := lcg(59)
	type fold struct {
		newK     func() ops.Kernel
		initF    float32
		initI    int32
		f        func(a, v float32) float32
		i        func(a, v int32) int32
		skipNaNs bool
	}
	folds := []fold{
		{NewUnsortedSegmentSum, 0, 0, func(a, v float32) float32 { return a + v }, func(a, v int32) int32 { return a + v }, false},
		{NewUnsortedSegmentProd, 1, 1, func(a, v float32) float32 { return a * v }, func(a, v int32) int32 { return a * v }, false},
		{NewUnsortedSegmentMax, -math.MaxFloat32, math.MinInt32, func(a, v float32) float32 {
			if a < v {
				return v
			}
			return a
		}, func(a, v int32) int32 { return max(a, v) }, true},
		{NewUnsortedSegmentMin, math.MaxFloat32, math.MaxInt32, func(a, v float32) float32 {
			if v < a {
				return v
			}
			return a
		}, func(a, v int32) int32 { return min(a, v) }, true},
	}
	for trial := 0; trial < 200; trial++ {
		fd := folds[trial%4]
		idShape := []int{r.intn(0, 4)}
		if trial%3 == 0 {
			idShape = append(idShape, r.intn(1, 3))
		}
		shape := append(append([]int{}, idShape...), r.intn(1, 3))
		segs := r.intn(0, 4)
		nid := prod(idShape)
		ids := make([]int32, nid)
		for i := range ids {
			ids[i] = int32(r.intn(-1, max(segs-1, -1)))
		}
		w := shape[len(shape)-1]
		isF := trial%2 == 0
		var data *ops.Tensor
		fv := make([]float32, nid*w)
		iv := make([]int32, nid*w)
		for i := range fv {
			fv[i] = r.float(-3, 3)
			if trial%10 == 0 && i == 1 {
				fv[i] = float32(math.NaN())
			}
			iv[i] = int32(r.next())
		}
		if isF {
			data = tensorOf(ops.Float32, shape, fv)
		} else {
			data = tensorOf(ops.Int32, shape, iv)
		}
		n := unsortedNode(data, tensorOf(ops.Int32, idShape, ids), int32(segs))
		k := fd.newK()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, []int{segs, w})
		wf := make([]float32, segs*w)
		wi := make([]int32, segs*w)
		for i := range wf {
			wf[i], wi[i] = fd.initF, fd.initI
		}
		for s, id := range ids {
			if id < 0 {
				continue
			}
			for e := 0; e < w; e++ {
				wf[int(id)*w+e] = fd.f(wf[int(id)*w+e], fv[s*w+e])
				wi[int(id)*w+e] = fd.i(wi[int(id)*w+e], iv[s*w+e])
			}
		}
		if isF {
			for i, g := range n.Outputs[0].Float32s()[:len(wf)] {
				if math.Float32bits(g) != math.Float32bits(wf[i]) && !(g != g && wf[i] != wf[i]) {
					t.Fatalf("%s ids %v: element %d = %v, want %v", k.(*UnsortedSegment).op.name, ids, i, g, wf[i])
				}
			}
		} else {
			equalInts(t, k.(*UnsortedSegment).op.name, n.Outputs[0].Int32s()[:len(wi)], wi)
		}
		noAllocs(t, k, n)
	}
}

func TestUnsortedSegmentErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	ids := func(v ...int32) *ops.Tensor { return tensorOf(ops.Int32, []int{len(v)}, v) }
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"ids not a prefix", unsortedNode(f32(3, 2), ids(0, 1), 2), []string{"not a prefix"}},
		{"ids rank", unsortedNode(f32(3), tensorOf(ops.Int32, []int{3, 1}, []int32{0, 0, 0}), 2), []string{"rank 2"}},
		{"num_segments shape", node(nil, []*ops.Tensor{f32(2), ids(0, 1), c32(2, 2)}, outTensor(ops.Float32)), []string{"num_segments", "[2]"}},
		{"dynamic num_segments", node(nil, []*ops.Tensor{f32(2), ids(0, 1), tensorOf(ops.Int32, []int{}, []int32{2})}, outTensor(ops.Float32)), []string{"input 2", "must be a constant tensor"}},
		{"negative", unsortedNode(f32(2), ids(0, 1), -1), []string{"-1 is negative"}},
		{"constant id too large", unsortedNode(f32(2), constT(ids(0, 2)), 2), []string{"entry 1 is 2"}},
		{"int64 ids", unsortedNode(f32(2), tensorOf(ops.Int64, []int{2}, []int64{0, 1}), 2), []string{"segment_ids", "int64"}},
		{"uint8 data", unsortedNode(tensorOf(ops.Uint8, []int{2}, []uint8{1, 2}), ids(0, 1), 2), []string{"uint8"}},
		{"output type", node(nil, []*ops.Tensor{f32(2), ids(0, 1), c32(2)}, outTensor(ops.Int32)), []string{"output 0"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewUnsortedSegmentSum(), c.n, c.wants...) })
	}
	// A run-time id at or beyond num_segments fails Eval.
	n := unsortedNode(f32(3), ids(0, -4, 3), 3)
	k := NewUnsortedSegmentMax()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "entry 2 is 3") {
		t.Fatalf("Eval: %v", err)
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for _, op := range []ops.BuiltinOperator{ops.OpUnsortedSegmentSum, ops.OpUnsortedSegmentProd, ops.OpUnsortedSegmentMax, ops.OpUnsortedSegmentMin, ops.OpSegmentSum} {
		if _, err := r.FindBuiltin(op, 1); err != nil {
			t.Errorf("op %d: %v", op, err)
		}
		if _, err := r.FindBuiltin(op, 2); err == nil {
			t.Errorf("op %d version 2 registered; TFLite has only 1", op)
		}
	}
}
