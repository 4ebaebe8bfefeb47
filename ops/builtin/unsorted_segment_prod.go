package builtin

import "github.com/tflrun/tflrun/ops"

// NewUnsortedSegmentProd returns an UNSORTED_SEGMENT_PROD kernel for one
// node (an UnsortedSegment): each segment is the product of its slices from
// 1, in data order (int32 wraps).
func NewUnsortedSegmentProd() ops.Kernel { return &UnsortedSegment{op: &unsortedSegmentProdOp} }

func init() {
	register(ops.OpUnsortedSegmentProd, NewUnsortedSegmentProd, [2]int{1, 1})
}

var unsortedSegmentProdOp = unsortedSegmentOp{
	name: "UNSORTED_SEGMENT_PROD",
	f32: func(k *UnsortedSegment, ids []int32, in, out []float32) {
		unsortedFold(k, ids, in, out, 1, func(a, v float32) float32 { return a * v })
	},
	i32: func(k *UnsortedSegment, ids []int32, in, out []int32) {
		unsortedFold(k, ids, in, out, 1, func(a, v int32) int32 { return a * v })
	},
}
