package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of PAD and PADV2: TFLite's kernel-test vectors (pad_test.cc) and
// naive multi-index references on random shapes.

func TestPad(t *testing.T) {
	// PadOpTest.SimpleConstTest / SimpleConstImageStyleTest.
	in := tensorOf(ops.Float32, []int{1, 2, 2, 1}, []float32{1, 2, 3, 4})
	p := constT(tensorOf(ops.Int32, []int{4, 2}, []int32{0, 0, 1, 1, 1, 1, 0, 0}))
	n := node(nil, []*ops.Tensor{in, p}, outTensor(ops.Float32))
	k := NewPad()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{1, 4, 4, 1})
	nearFloats(t, "pad", n.Outputs[0].Float32s(), []float64{0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0}, 0)
	noAllocs(t, k, n)
	// PadV2OpTest.SimpleConstFloat32ValuedTest: pad value 5, int64 paddings.
	p64 := constT(tensorOf(ops.Int64, []int{4, 2}, []int64{0, 0, 1, 1, 1, 1, 0, 0}))
	n = node(nil, []*ops.Tensor{in, p64, constT(tensorOf(ops.Float32, []int{1}, []float32{5}))}, outTensor(ops.Float32))
	run(t, NewPad(), n)
	nearFloats(t, "padv2", n.Outputs[0].Float32s(), []float64{5, 5, 5, 5, 5, 1, 2, 5, 5, 3, 4, 5, 5, 5, 5, 5}, 0)
	// Quantised PAD pads with the output zero point: uint8 over [-1, 1]
	// (zero point 128), an asymmetric [1, 2, 3] with paddings {1, 0, 0, 2}.
	qi := quantTensor(ops.Uint8, []int{2, 3}, []float32{-0.8, 0.2, 0.9, 0.7, 0.1, -0.3}, -1, 1)
	n = node(nil, []*ops.Tensor{qi, constT(tensorOf(ops.Int32, []int{2, 2}, []int32{1, 0, 0, 2}))}, quantOut(ops.Uint8, -1, 1))
	run(t, NewPad(), n)
	wantShape(t, n.Outputs[0].Shape, []int{3, 5})
	zp := int(n.Outputs[0].ZeroPoint())
	qd := qi.Uint8s()
	equalInts(t, "quantized pad", n.Outputs[0].Uint8s(), []int{zp, zp, zp, zp, zp, int(qd[0]), int(qd[1]), int(qd[2]), zp, zp, int(qd[3]), int(qd[4]), int(qd[5]), zp, zp})
	// Random 1-5-D float pads against a naive reference.
	r := lcg(12)
	// From trial 20 on, the innermost dimensions are unpadded (Eval
	// copies them in one run) and the outer ones pad before them; from
	// trial 40 on, the shapes are large enough (outputs of many
	// padBlocks, many rows) for run's thread sweep to split both the
	// fill and the copies.
	for trial := 0; trial < 50; trial++ {
		rank := r.intn(1, 5)
		shape := make([]int, rank)
		pads := make([]int32, 2*rank)
		inner := rank
		if trial >= 20 {
			inner = r.intn(0, rank-1)
		}
		for d := range shape {
			shape[d] = r.intn(0, 3)
			if d < inner {
				pads[2*d], pads[2*d+1] = int32(r.intn(0, 2)), int32(r.intn(0, 2))
			}
			if trial >= 20 {
				shape[d] = r.intn(1, 3)
				if d < inner {
					pads[2*d] = int32(r.intn(1, 2))
				}
			}
			if trial >= 40 {
				shape[d] = r.intn(1, 12)
				pads[2*d], pads[2*d+1] = int32(r.intn(0, 3)), int32(r.intn(0, 3))
			}
		}
		data := randFloats(&r, prod(shape), 1, 2)
		n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, shape, data), constT(tensorOf(ops.Int32, []int{rank, 2}, pads)), constT(tensorOf(ops.Float32, []int{}, []float32{-7}))}, outTensor(ops.Float32))
		k := NewPad()
		run(t, k, n)
		out := n.Outputs[0]
		forEach(out.Shape, func(idx []int) {
			src := make([]int, rank)
			inside := true
			for d := range idx {
				src[d] = idx[d] - int(pads[2*d])
				if src[d] < 0 || src[d] >= shape[d] {
					inside = false
				}
			}
			want := float32(-7)
			if inside {
				want = data[index(shape, src)]
			}
			if got := out.Float32s()[index(out.Shape, idx)]; got != want {
				t.Fatalf("pad %v by %v: %v = %v, want %v", shape, pads, idx, got, want)
			}
		})
		noAllocs(t, k, n)
	}
	wantPrepareError(t, NewPad(), node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{4, 2}, []int32{0, 0, -1, 1, 1, 1, 0, 0}))}, outTensor(ops.Float32)), "dimension 1 pads by -1")
	wantPrepareError(t, NewPad(), node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{3, 2}, []int32{0, 0, 1, 1, 1, 1}))}, outTensor(ops.Float32)), "need [4 2]")
	wantPrepareError(t, NewPad(), node(nil, []*ops.Tensor{in, tensorOf(ops.Int32, []int{4, 2}, []int32{0, 0, 1, 1, 1, 1, 0, 0})}, outTensor(ops.Float32)), "constant")
}
