package arch

import (
	"fmt"
	"testing"
)

// BenchmarkMulQuantInt8 times MulQuantInt8 at an L1-resident size and at
// the size of yolo11n's first SiLU (320·320·16), per implementation.
func BenchmarkMulQuantInt8(b *testing.B) {
	p := QuantMul{In1Offset: 3, In2Offset: 128, Mult: 1518500250, Shift: -8, OutOffset: -125, Lo: -128, Hi: 127}
	for _, n := range []int{16 << 10, 320 * 320 * 16} {
		x, y, dst := make([]int8, n), make([]int8, n), make([]int8, n)
		for i := range x {
			x[i], y[i] = int8(i*7), int8(i*13)
		}
		for _, im := range implsOf(mulQuantInt8Impls) {
			b.Run(fmt.Sprintf("%s/n=%d", im.name, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					im.fn(dst, x, y, &p)
				}
			})
		}
	}
}

// BenchmarkAddQuantInt8 times AddQuantInt8 at the size of yolo11n's
// first residual ADD (160·160·16), per implementation.
func BenchmarkAddQuantInt8(b *testing.B) {
	p := QuantAdd{In1Offset: 126, In2Offset: 126, LeftShift: 20, In1Mult: 1073741824, In1Shift: 0, In2Mult: 1073741824, In2Shift: 0, OutMult: 1073741824, OutShift: -19, OutOffset: -126, Lo: -128, Hi: 127}
	n := 160 * 160 * 16
	x, y, dst := make([]int8, n), make([]int8, n), make([]int8, n)
	for i := range x {
		x[i], y[i] = int8(i*7), int8(i*13)
	}
	for _, im := range implsOf(addQuantInt8Impls) {
		b.Run(im.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				im.fn(dst, x, y, &p)
			}
		})
	}
}
