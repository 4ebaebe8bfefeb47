package arch_test

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
)

// A kernel calls the package-level primitives; the level chosen at start-up
// (or by TFLRUN_ISA, or Use) decides which implementation runs, and every
// level gives the same bits.
func Example() {
	// A 2×3 row-major matrix times a 3-vector, accumulated into dst.
	m := []float32{
		1, 2, 3,
		4, 5, 6,
	}
	x := []float32{1, 0, -1}
	dst := []float32{10, 20}
	arch.MatVecMulAcc(dst, m, 2, 3, x)
	fmt.Println(dst)

	// The int8 dot product accumulates exactly in int32.
	fmt.Println(arch.DotInt8([]int8{127, -128, 3}, []int8{127, -128, -1}))

	// The portable level exists on every CPU and GOARCH; Use switches
	// the whole process to it, and back to the level that was in use.
	was := arch.Describe().Level
	l, err := arch.ParseLevel("generic")
	fmt.Println(l, err, arch.Use(l), arch.Describe().Level)
	fmt.Println(arch.Use(was))
	// Output:
	// [8 18]
	// 32510
	// generic <nil> <nil> generic
	// <nil>
}
