package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewUnsortedSegmentMin returns an UNSORTED_SEGMENT_MIN kernel for one node
// (an UnsortedSegment): each segment is the smallest of its slices'
// elements, starting from the type's highest value (FLT_MAX,
// math.MaxInt32); as std::min(acc, v), v replaces acc only when v < acc.
func NewUnsortedSegmentMin() ops.Kernel { return &UnsortedSegment{op: &unsortedSegmentMinOp} }

func init() {
	register(ops.OpUnsortedSegmentMin, NewUnsortedSegmentMin, [2]int{1, 1})
}

var unsortedSegmentMinOp = unsortedSegmentOp{
	name: "UNSORTED_SEGMENT_MIN",
	f32: func(k *UnsortedSegment, ids []int32, in, out []float32) {
		unsortedFold(k, ids, in, out, segHighestF32, stdMinOf[float32])
	},
	i32: func(k *UnsortedSegment, ids []int32, in, out []int32) {
		unsortedFold(k, ids, in, out, math.MaxInt32, stdMinOf[int32])
	},
}

// stdMinOf is C++'s std::min(a, b): b only when b < a.
func stdMinOf[T float32 | int32](a, b T) T {
	if b < a {
		return b
	}
	return a
}
