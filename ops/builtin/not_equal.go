package builtin

import "github.com/tflrun/tflrun/ops"

// NewNotEqual returns a NOT_EQUAL kernel for one node (a Comparison):
// out[i] = a[i] != b[i], on float32, int32, int64, int8, uint8, int16,
// float16 and bool inputs. Versions 1-4, as TFLite's register.cc (4:
// int16); version 3 is string inputs, which Prepare refuses.
func NewNotEqual() ops.Kernel { return &Comparison{op: &notEqualOp} }

var notEqualOp = comparisonOp{
	name:  "NOT_EQUAL",
	bools: true,
	f32:   notEqualOf[float32],
	i16:   notEqualOf[int16],
	i32:   notEqualOf[int32],
	i64:   notEqualOf[int64],
	b:     notEqualOf[bool],
}

func notEqualOf[T comparable](x, y T) bool { return x != y }

func init() {
	register(ops.OpNotEqual, NewNotEqual, [2]int{1, 4})
}
