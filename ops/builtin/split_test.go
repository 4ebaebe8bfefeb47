package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SPLIT and SPLIT_V: TFLite's kernel-test vectors (split_test.cc,
// split_v_test.cc) and naive multi-index references on random shapes.

func TestSplitAndSplitV(t *testing.T) {
	in := tensorOf(ops.Float32, []int{2, 2, 2, 2}, f32Seq(16))
	// SplitOpTest.FourDimensional, axis 0..3 and -4, two outputs.
	for _, tc := range []struct {
		axis int32
		want [][]float64
	}{
		{0, [][]float64{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}},
		{1, [][]float64{{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}}},
		{2, [][]float64{{0, 1, 4, 5, 8, 9, 12, 13}, {2, 3, 6, 7, 10, 11, 14, 15}}},
		{3, [][]float64{{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}}},
		{-4, [][]float64{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}},
	} {
		n := node(&SplitOptions{NumSplits: 2}, []*ops.Tensor{constT(tensorOf(ops.Int32, []int{}, []int32{tc.axis})), in}, outTensor(ops.Float32), outTensor(ops.Float32))
		k := NewSplit()
		run(t, k, n)
		for i, o := range n.Outputs {
			nearFloats(t, "split", o.Float32s(), tc.want[i], 0)
		}
		noAllocs(t, k, n)
		// SPLIT_V with sizes {1, -1} along the same axis matches.
		v := node(&SplitOptions{NumSplits: 2}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{2}, []int32{1, -1})), constT(tensorOf(ops.Int32, []int{1}, []int32{tc.axis}))}, outTensor(ops.Float32), outTensor(ops.Float32))
		vk := NewSplitV()
		run(t, vk, v)
		for i, o := range v.Outputs {
			nearFloats(t, "split_v", o.Float32s(), tc.want[i], 0)
		}
		noAllocs(t, vk, v)
	}
	// SplitVOpTest: [4, 2] rows split {1, 0, 3} along axis 0 (a size 0 part).
	x := tensorOf(ops.Float32, []int{4, 2}, f32Seq(8))
	v := node(&SplitOptions{NumSplits: 3}, []*ops.Tensor{x, constT(tensorOf(ops.Int64, []int{3}, []int64{1, 0, 3})), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float32), outTensor(ops.Float32), outTensor(ops.Float32))
	run(t, NewSplitV(), v)
	wantShape(t, v.Outputs[1].Shape, []int{0, 2})
	nearFloats(t, "split_v #2", v.Outputs[2].Float32s(), []float64{2, 3, 4, 5, 6, 7}, 0)
	wantPrepareError(t, NewSplit(), node(&SplitOptions{NumSplits: 3}, []*ops.Tensor{constT(tensorOf(ops.Int32, []int{}, []int32{0})), in}, outTensor(ops.Float32), outTensor(ops.Float32), outTensor(ops.Float32)), "not divisible")
	wantPrepareError(t, NewSplitV(), node(&SplitOptions{NumSplits: 2}, []*ops.Tensor{x, constT(tensorOf(ops.Int32, []int{2}, []int32{-1, -1})), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float32), outTensor(ops.Float32)), "more than one")
	wantPrepareError(t, NewSplitV(), node(&SplitOptions{NumSplits: 2}, []*ops.Tensor{x, constT(tensorOf(ops.Int32, []int{2}, []int32{1, 2})), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float32), outTensor(ops.Float32)), "add up to 3")
	wantPrepareError(t, NewSplit(), node(&SplitOptions{NumSplits: 2}, []*ops.Tensor{tensorOf(ops.Int32, []int{}, []int32{0}), in}, outTensor(ops.Float32), outTensor(ops.Float32)), "constant")
}

// TestSplitVNarrowParts: int8 rows of many outer slices split along the
// last axis into parts of 0-5 bytes and wider (copyByteRuns' byte loops
// and its copyRuns path; yolo11n splits 128 channels into 128 parts),
// against the element-by-element definition.
func TestSplitVNarrowParts(t *testing.T) {
	r := lcg(23)
	for trial := 0; trial < 10; trial++ {
		outer := r.intn(50, 700)
		var sizes []int32
		total := 0
		for i := 0; i < r.intn(1, 7); i++ {
			c := []int32{0, 1, 1, 2, 3, 4, 5, 16, 37}[r.intn(0, 8)]
			sizes = append(sizes, c)
			total += int(c)
		}
		x := make([]int8, outer*total)
		for i := range x {
			x[i] = int8(r.intn(-128, 127))
		}
		outs := make([]*ops.Tensor, len(sizes))
		for i := range outs {
			outs[i] = q(outTensor(ops.Int8), 0.5, 3)
		}
		v := node(&SplitOptions{NumSplits: len(sizes)}, []*ops.Tensor{q(tensorOf(ops.Int8, []int{outer, total}, x), 0.5, 3),
			constT(tensorOf(ops.Int32, []int{len(sizes)}, sizes)), constT(tensorOf(ops.Int32, []int{1}, []int32{1}))}, outs...)
		run(t, NewSplitV(), v)
		at := 0
		for i, c := range sizes {
			got := v.Outputs[i].Int8s()
			for p := 0; p < outer; p++ {
				for j := 0; j < int(c); j++ {
					if w := x[p*total+at+j]; got[p*int(c)+j] != w {
						t.Fatalf("trial %d (sizes %v): output %d [%d %d] = %d, want %d", trial, sizes, i, p, j, got[p*int(c)+j], w)
					}
				}
			}
			at += int(c)
		}
	}
}
