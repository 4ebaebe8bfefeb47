package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of ATAN2: special values against math.Atan2, the float64, float16
// and bfloat16 paths, and the nodes Prepare refuses.

func TestAtan2(t *testing.T) {
	ys := []float32{0, 1, -1, 1, 0, -0, float32(math.Inf(1)), 3, float32(math.NaN()), 2.5}
	xs := []float32{1, 0, 0, -1, -1, -1, 1, float32(math.Inf(-1)), 1, -7}
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 5}, ys), tensorOf(ops.Float32, []int{2, 5}, xs)}, outTensor(ops.Float32))
	k := NewAtan2()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 5})
	for i, g := range n.Outputs[0].Float32s() {
		w := float32(math.Atan2(float64(ys[i]), float64(xs[i])))
		if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
			t.Errorf("atan2(%v, %v) = %v, want %v", ys[i], xs[i], g, w)
		}
	}
	noAllocs(t, k, n)
	// float64, float16 and bfloat16 paths.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float64, []int{2}, []float64{1, -2}), tensorOf(ops.Float64, []int{2}, []float64{1, 3})}, outTensor(ops.Float64))
	run(t, NewAtan2(), n)
	if got := n.Outputs[0].Float64s(); got[0] != math.Pi/4 || got[1] != math.Atan2(-2, 3) {
		t.Errorf("float64: %v", got)
	}
	// In float16 1 is 0x3c00 and -1 0xbc00; atan2(1, -1) = 3π/4 ≈ 2.3562,
	// whose nearest half is 0x40b6 (2.35547); atan2(-1, 1) = −π/4 → 0xba48.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float16, []int{2}, []uint16{0x3c00, 0xbc00}), tensorOf(ops.Float16, []int{2}, []uint16{0xbc00, 0x3c00})}, outTensor(ops.Float16))
	run(t, NewAtan2(), n)
	equalInts(t, "float16", n.Outputs[0].Uint16s(), []int{0x40b6, 0xba48})
	// bfloat16: atan2(1, 1) = π/4 = 0.785398 → 0x3f49 (0.785156).
	n = node(nil, []*ops.Tensor{tensorOf(ops.BFloat16, []int{1}, []uint16{0x3f80}), tensorOf(ops.BFloat16, []int{1}, []uint16{0x3f80})}, outTensor(ops.BFloat16))
	run(t, NewAtan2(), n)
	equalInts(t, "bfloat16", n.Outputs[0].Uint16s(), []int{0x3f49})

	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"shapes differ", node(nil, []*ops.Tensor{f32(2, 3), f32(2, 4)}, outTensor(ops.Float32)), []string{"input 1 (x)", "[2 4]"}},
		{"broadcast", node(nil, []*ops.Tensor{f32(2, 3), f32(1)}, outTensor(ops.Float32)), []string{"differs"}},
		{"types differ", node(nil, []*ops.Tensor{f32(2), tensorOf(ops.Float64, []int{2}, []float64{1, 2})}, outTensor(ops.Float32)), []string{"type float64"}},
		{"int32", node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{1}), tensorOf(ops.Int32, []int{1}, []int32{1})}, outTensor(ops.Int32)), []string{"int32"}},
		{"output type", node(nil, []*ops.Tensor{f32(2), f32(2)}, outTensor(ops.Float64)), []string{"output 0"}},
		{"one input", node(nil, []*ops.Tensor{f32(2)}, outTensor(ops.Float32)), []string{"1 inputs"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewAtan2(), c.n, c.wants...) })
	}
}
