package builtin

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// BenchmarkTransposeInt8 times int8 TRANSPOSE on yolo11n's shapes (the
// detection head's NHWC→NCHW, its DFL reshuffle and the attention's
// matrix transposes).
func BenchmarkTransposeInt8(b *testing.B) {
	for _, c := range []struct {
		shape []int
		perm  []int32
	}{
		{[]int{1, 80, 80, 144}, []int32{0, 3, 1, 2}},
		{[]int{1, 20, 20, 144}, []int32{0, 3, 1, 2}},
		{[]int{1, 4, 16, 8400}, []int32{0, 1, 3, 2}},
		{[]int{1, 2, 400, 400}, []int32{0, 1, 3, 2}},
		{[]int{400, 400}, []int32{1, 0}},
	} {
		b.Run(fmt.Sprint(c.shape, c.perm), func(b *testing.B) {
			x := make([]int8, prod(c.shape))
			for i := range x {
				x[i] = int8(i * 7)
			}
			n := node(nil, []*ops.Tensor{tensorOf(ops.Int8, c.shape, x), constT(tensorOf(ops.Int32, []int{len(c.perm)}, c.perm))}, outTensor(ops.Int8))
			k := NewTranspose()
			if err := prepare(k, n); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(x)))
			for b.Loop() {
				if err := k.Eval(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
