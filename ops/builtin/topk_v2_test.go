package builtin

import (
	"sort"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's topk_v2_test.cc (EqualFloat, BorderFloat,
// LargeFloat, VectorFloat, TypedTest int8/uint8/int32/int64, int16
// indices, k = 0), plus a stable-sort reference on random rows with many
// ties: equal values must come out by increasing index, as TFLite's
// TopContainer orders them.

func topkNode(in *ops.Tensor, k int32, idxType ops.DataType) *ops.Node {
	return node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{1}, []int32{k}))}, outTensor(in.Type), outTensor(idxType))
}

func TestTopKV2TFLiteVectors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shape   []int
		in      []float32
		k       int32
		vals    []float64
		indices []int
	}{
		{"EqualFloat", []int{2, 2}, []float32{-2, -3, 0.2, 3}, 2, []float64{-2, -3, 3, 0.2}, []int{0, 1, 1, 0}},
		{"BorderFloat", []int{2, 3}, []float32{-2, -3, -4, 0.2, 0.8, 0.1}, 2, []float64{-2, -3, 0.8, 0.2}, []int{0, 1, 1, 0}},
		{"LargeFloat", []int{2, 4}, []float32{-2, -3, -4, 1, 0.2, 0.8, 0.1, -0.1}, 2, []float64{1, -2, 0.8, 0.2}, []int{3, 0, 1, 0}},
		{"VectorFloat", []int{8}, []float32{-2, -3, -4, 1, 0.2, 0.8, 0.1, -0.1}, 2, []float64{1, 0.8}, []int{3, 5}},
		{"Ties", []int{6}, []float32{1, 3, 3, 2, 3, 1}, 4, []float64{3, 3, 3, 2}, []int{1, 2, 4, 3}},
		{"K0", []int{2, 2}, []float32{1, 2, 3, 4}, 0, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, it := range []ops.DataType{ops.Int32, ops.Int16} {
				n := topkNode(tensorOf(ops.Float32, tc.shape, tc.in), tc.k, it)
				k := NewTopKV2()
				run(t, k, n)
				ws := copyShape(tc.shape)
				ws[len(ws)-1] = int(tc.k)
				wantShape(t, n.Outputs[0].Shape, ws)
				wantShape(t, n.Outputs[1].Shape, ws)
				nearFloats(t, "values", n.Outputs[0].Float32s()[:len(tc.vals)], tc.vals, 1e-7)
				if it == ops.Int32 {
					equalInts(t, "indices", n.Outputs[1].Int32s()[:len(tc.indices)], tc.indices)
				} else {
					equalInts(t, "indices", n.Outputs[1].Int16s()[:len(tc.indices)], tc.indices)
				}
				noAllocs(t, k, n)
			}
		})
	}
	// Typed cases: int8, uint8, int32, int64 values.
	n := topkNode(tensorOf(ops.Int8, []int{2, 3}, []int8{-2, -3, -4, 20, 80, 10}), 2, ops.Int32)
	run(t, NewTopKV2(), n)
	equalInts(t, "int8 values", n.Outputs[0].Int8s(), []int{-2, -3, 80, 20})
	equalInts(t, "int8 indices", n.Outputs[1].Int32s(), []int{0, 1, 1, 0})
	n = topkNode(tensorOf(ops.Int64, []int{4}, []int64{5, 1 << 40, -7, 1 << 40}), 3, ops.Int32)
	run(t, NewTopKV2(), n)
	equalInts(t, "int64 values", n.Outputs[0].Int64s(), []int64{1 << 40, 1 << 40, 5})
	equalInts(t, "int64 indices", n.Outputs[1].Int32s(), []int{1, 3, 0})
}

func TestTopKV2StableReference(t *testing.T) {
	r := lcg(8)
	for trial := 0; trial < 30; trial++ {
		rows, cols := r.intn(1, 4), r.intn(1, 300)
		k := int32(r.intn(1, cols))
		in := make([]int32, rows*cols)
		for i := range in {
			in[i] = int32(r.intn(-5, 5)) // many ties
		}
		n := topkNode(tensorOf(ops.Int32, []int{rows, cols}, in), k, ops.Int32)
		kern := NewTopKV2()
		run(t, kern, n)
		for row := 0; row < rows; row++ {
			idx := make([]int, cols)
			for i := range idx {
				idx[i] = i
			}
			vals := in[row*cols : (row+1)*cols]
			sort.SliceStable(idx, func(a, b int) bool { return vals[idx[a]] > vals[idx[b]] })
			for j := 0; j < int(k); j++ {
				gi := n.Outputs[1].Int32s()[row*int(k)+j]
				gv := n.Outputs[0].Int32s()[row*int(k)+j]
				if int(gi) != idx[j] || gv != vals[idx[j]] {
					t.Fatalf("trial %d row %d rank %d: got (%d, %d), want (%d, %d)", trial, row, j, gi, gv, idx[j], vals[idx[j]])
				}
			}
		}
		noAllocs(t, kern, n)
	}
}

func TestTopKV2Errors(t *testing.T) {
	in := tensorOf(ops.Float32, []int{2, 3}, make([]float32, 6))
	wantPrepareError(t, NewTopKV2(), topkNode(in, 4, ops.Int32), "larger than")
	n := topkNode(in, 2, ops.Int32)
	n.Inputs[1].Kind = ops.ArenaTensor
	wantPrepareError(t, NewTopKV2(), n, "constant")
	wantPrepareError(t, NewTopKV2(), topkNode(in, 2, ops.Float32), "output 1 (indices)")
	wantPrepareError(t, NewTopKV2(), node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{2}, []int32{1, 2}))}, outTensor(ops.Float32), outTensor(ops.Int32)), "2 elements, need 1")
}
