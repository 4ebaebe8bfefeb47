package builtin

import "github.com/tflrun/tflrun/ops"

// NewLessEqual returns a LESS_EQUAL kernel for one node (a Comparison):
// out[i] = a[i] <= b[i], on float32, int32, int64, int8, uint8, int16 and
// float16 inputs. Versions 1-2, as TFLite's register.cc (which has no
// version 3 of LESS_EQUAL; int16 inputs are version 1).
func NewLessEqual() ops.Kernel { return &Comparison{op: &lessEqualOp} }

var lessEqualOp = comparisonOp{
	name: "LESS_EQUAL",
	f32:  lessEqualOf[float32],
	i16:  lessEqualOf[int16],
	i32:  lessEqualOf[int32],
	i64:  lessEqualOf[int64],
}

func lessEqualOf[T float32 | int16 | int32 | int64](x, y T) bool { return x <= y }

func init() {
	register(ops.OpLessEqual, NewLessEqual, [2]int{1, 2})
}
