package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewUnsortedSegmentMax returns an UNSORTED_SEGMENT_MAX kernel for one node
// (an UnsortedSegment): each segment is the largest of its slices'
// elements, starting from the type's lowest value (−FLT_MAX, math.MinInt32);
// as std::max(acc, v), v replaces acc only when acc < v.
func NewUnsortedSegmentMax() ops.Kernel { return &UnsortedSegment{op: &unsortedSegmentMaxOp} }

func init() {
	register(ops.OpUnsortedSegmentMax, NewUnsortedSegmentMax, [2]int{1, 1})
}

var unsortedSegmentMaxOp = unsortedSegmentOp{
	name: "UNSORTED_SEGMENT_MAX",
	f32: func(k *UnsortedSegment, ids []int32, in, out []float32) {
		unsortedFold(k, ids, in, out, segLowestF32, stdMaxOf[float32])
	},
	i32: func(k *UnsortedSegment, ids []int32, in, out []int32) {
		unsortedFold(k, ids, in, out, math.MinInt32, stdMaxOf[int32])
	},
}

// stdMaxOf is C++'s std::max(a, b): b only when a < b.
func stdMaxOf[T float32 | int32](a, b T) T {
	if a < b {
		return b
	}
	return a
}
