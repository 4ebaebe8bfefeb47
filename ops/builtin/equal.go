package builtin

import "github.com/tflrun/tflrun/ops"

// NewEqual returns an EQUAL kernel for one node (a Comparison):
// out[i] = a[i] == b[i], on float32, int32, int64, int8, uint8, int16,
// float16 and bool inputs. Versions 1-5, as TFLite's register.cc (5:
// int16); version 3 is string inputs, which Prepare refuses.
func NewEqual() ops.Kernel { return &Comparison{op: &equalOp} }

var equalOp = comparisonOp{
	name:  "EQUAL",
	bools: true,
	f32:   equalOf[float32],
	i16:   equalOf[int16],
	i32:   equalOf[int32],
	i64:   equalOf[int64],
	b:     equalOf[bool],
}

func equalOf[T comparable](x, y T) bool { return x == y }

func init() {
	register(ops.OpEqual, NewEqual, [2]int{1, 5})
}
