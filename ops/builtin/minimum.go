package builtin

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// NewMinimum returns a MINIMUM kernel for one node (a MaximumMinimum):
// out[i] = a[i] < b[i] ? a[i] : b[i].
func NewMinimum() ops.Kernel { return &MaximumMinimum{op: &minimumOp} }

var minimumOp = maxMinOp{
	name: "MINIMUM",
	f32:  minimumOf[float32],
	i32:  minimumOf[int32],
	i64:  minimumOf[int64],
	vi8:  &blocksOp[int8]{arch.MinBlocksInt8},
	vu8:  &blocksOp[uint8]{arch.MinBlocksUint8},
	vi16: &blocksOp[int16]{arch.MinBlocksInt16},
}

func minimumOf[T float32 | int32 | int64](x, y T) T {
	if x < y {
		return x
	}
	return y
}

func init() {
	register(ops.OpMinimum, NewMinimum, [2]int{1, 4})
}
