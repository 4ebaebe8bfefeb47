package builtin

import "github.com/tflrun/tflrun/ops"

// NewLess returns a LESS kernel for one node (a Comparison):
// out[i] = a[i] < b[i], on float32, int32, int64, int8, uint8, int16,
// float16 and bfloat16 inputs. Versions 1-3, as TFLite's register.cc.
func NewLess() ops.Kernel { return &Comparison{op: &lessOp} }

var lessOp = comparisonOp{
	name: "LESS",
	bf16: true,
	f32:  lessOf[float32],
	i16:  lessOf[int16],
	i32:  lessOf[int32],
	i64:  lessOf[int64],
}

func lessOf[T float32 | int16 | int32 | int64](x, y T) bool { return x < y }

func init() {
	register(ops.OpLess, NewLess, [2]int{1, 3})
}
