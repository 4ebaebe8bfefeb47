package builtin

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// NewMaximum returns a MAXIMUM kernel for one node (a MaximumMinimum):
// out[i] = a[i] > b[i] ? a[i] : b[i].
func NewMaximum() ops.Kernel { return &MaximumMinimum{op: &maximumOp} }

var maximumOp = maxMinOp{
	name: "MAXIMUM",
	f32:  maximumOf[float32],
	i32:  maximumOf[int32],
	i64:  maximumOf[int64],
	vi8:  &blocksOp[int8]{arch.MaxBlocksInt8},
	vu8:  &blocksOp[uint8]{arch.MaxBlocksUint8},
	vi16: &blocksOp[int16]{arch.MaxBlocksInt16},
}

func maximumOf[T float32 | int32 | int64](x, y T) T {
	if x > y {
		return x
	}
	return y
}

func init() {
	register(ops.OpMaximum, NewMaximum, [2]int{1, 4})
}
