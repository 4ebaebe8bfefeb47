package builtin

import "github.com/tflrun/tflrun/ops"

// NewGreater returns a GREATER kernel for one node (a Comparison):
// out[i] = a[i] > b[i], on float32, int32, int64, int8, uint8 and int16
// inputs.
func NewGreater() ops.Kernel { return &Comparison{op: &greaterOp} }

var greaterOp = comparisonOp{
	name: "GREATER",
	f32:  greaterOf[float32],
	i16:  greaterOf[int16],
	i32:  greaterOf[int32],
	i64:  greaterOf[int64],
}

func greaterOf[T float32 | int16 | int32 | int64](x, y T) bool { return x > y }

func init() {
	register(ops.OpGreater, NewGreater, [2]int{1, 3})
}
