package builtin

import "github.com/tflrun/tflrun/ops"

// NewUnsortedSegmentSum returns an UNSORTED_SEGMENT_SUM kernel for one node
// (an UnsortedSegment): each segment is the sum of its slices from 0, in
// data order (int32 wraps).
func NewUnsortedSegmentSum() ops.Kernel { return &UnsortedSegment{op: &unsortedSegmentSumOp} }

func init() {
	register(ops.OpUnsortedSegmentSum, NewUnsortedSegmentSum, [2]int{1, 1})
}

var unsortedSegmentSumOp = unsortedSegmentOp{
	name: "UNSORTED_SEGMENT_SUM",
	f32: func(k *UnsortedSegment, ids []int32, in, out []float32) {
		unsortedFold(k, ids, in, out, 0, func(a, v float32) float32 { return a + v })
	},
	i32: func(k *UnsortedSegment, ids []int32, in, out []int32) {
		unsortedFold(k, ids, in, out, 0, func(a, v int32) int32 { return a + v })
	},
}
