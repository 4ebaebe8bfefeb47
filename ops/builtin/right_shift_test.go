package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of RIGHT_SHIFT: TFLite's kernel test vectors, every type with
// shifts below 0, in range and beyond the width (clamped), with
// broadcasting.

func TestRightShift(t *testing.T) {
	out := binRun(t, NewRightShift(), nil, tensorOf(ops.Int32, []int{1, 1, 1, 4}, []int32{-1, -5, -3, -14}),
		tensorOf(ops.Int32, []int{1, 1, 1, 4}, []int32{5, 0, 7, 11}), ops.Int32)
	equalInts(t, "TFLite's SimpleTestInt32", out.Int32s(), []int{-1, -5, -1, -1})
	// Shifts clamp to [0, bits-1].
	out = binRun(t, NewRightShift(), nil, tensorOf(ops.Int8, []int{4}, []int8{-128, 100, -7, 64}),
		tensorOf(ops.Int8, []int{4}, []int8{-3, 9, 7, 2}), ops.Int8)
	equalInts(t, "int8", out.Int8s(), []int{-128, 0, -1, 16})
	out = binRun(t, NewRightShift(), nil, tensorOf(ops.Uint8, []int{3}, []uint8{255, 128, 9}),
		tensorOf(ops.Uint8, []int{1}, []uint8{200}), ops.Uint8)
	equalInts(t, "uint8 broadcast", out.Uint8s(), []int{1, 1, 0})
	out = binRun(t, NewRightShift(), nil, tensorOf(ops.Uint32, []int{2}, []uint32{1 << 31, 12}),
		tensorOf(ops.Uint32, []int{2}, []uint32{40, 2}), ops.Uint32)
	equalInts(t, "uint32", out.Uint32s(), []int{1, 3})
	out = binRun(t, NewRightShift(), nil, tensorOf(ops.Int16, []int{2}, []int16{-32768, 300}),
		tensorOf(ops.Int16, []int{2}, []int16{20, 4}), ops.Int16)
	equalInts(t, "int16", out.Int16s(), []int{-1, 18})
	out = binRun(t, NewRightShift(), nil, tensorOf(ops.Uint16, []int{2}, []uint16{65535, 300}),
		tensorOf(ops.Uint16, []int{2}, []uint16{15, 16}), ops.Uint16)
	equalInts(t, "uint16", out.Uint16s(), []int{1, 0})
	for _, typ := range []ops.DataType{ops.Float32, ops.Int64} {
		x := tensorOf(typ, []int{1}, make([]byte, typ.Size()))
		wantPrepareError(t, NewRightShift(), binNode(nil, x, x, outTensor(typ)), typ.String())
	}
}
