package builtin

import "github.com/tflrun/tflrun/ops"

// NewGreater returns a GREATER kernel for one node (a Comparison):
// out[i] = a[i] > b[i], on float32, int32, int64, int8, uint8, int16,
// float16 and bfloat16 inputs. Versions 1-2, as TFLite's register.cc
// (which has no version 3 of GREATER; int16 inputs are version 1).
func NewGreater() ops.Kernel { return &Comparison{op: &greaterOp} }

var greaterOp = comparisonOp{
	name: "GREATER",
	bf16: true,
	f32:  greaterOf[float32],
	i16:  greaterOf[int16],
	i32:  greaterOf[int32],
	i64:  greaterOf[int64],
}

func greaterOf[T float32 | int16 | int32 | int64](x, y T) bool { return x > y }

func init() {
	register(ops.OpGreater, NewGreater, [2]int{1, 2})
}
