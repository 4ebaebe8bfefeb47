package builtin

import "github.com/tflrun/tflrun/ops"

// NewGreaterEqual returns a GREATER_EQUAL kernel for one node (a Comparison):
// out[i] = a[i] >= b[i], on float32, int32, int64, int8, uint8, int16 and
// float16 inputs. Versions 1-3, as TFLite's register.cc (3: int16).
func NewGreaterEqual() ops.Kernel { return &Comparison{op: &greaterEqualOp} }

var greaterEqualOp = comparisonOp{
	name: "GREATER_EQUAL",
	f32:  greaterEqualOf[float32],
	i16:  greaterEqualOf[int16],
	i32:  greaterEqualOf[int32],
	i64:  greaterEqualOf[int64],
}

func greaterEqualOf[T float32 | int16 | int32 | int64](x, y T) bool { return x >= y }

func init() {
	register(ops.OpGreaterEqual, NewGreaterEqual, [2]int{1, 3})
}
