package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// mirrorIndex is np.pad's reflect/symmetric index arithmetic for pads no
// larger than the dimension.
func mirrorIndex(i, dim int, symmetric bool) int {
	if i < 0 {
		if symmetric {
			return -i - 1
		}
		return -i
	}
	if i >= dim {
		if symmetric {
			return 2*dim - 1 - i
		}
		return 2*dim - 2 - i
	}
	return i
}

func TestMirrorPad(t *testing.T) {
	in := tensorOf(ops.Int32, []int{2, 3}, []int32{1, 2, 3, 4, 5, 6})
	pads := constT(tensorOf(ops.Int32, []int{2, 2}, []int32{1, 1, 1, 1}))
	out := runOut(t, NewMirrorPad(), &MirrorPadOptions{Mode: MirrorPadReflect}, []*ops.Tensor{in, pads}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{4, 5})
	equalInts(t, "PadBothSides_Reflect", out.Int32s(), []int{5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2})
	out = runOut(t, NewMirrorPad(), &MirrorPadOptions{Mode: MirrorPadSymmetric}, []*ops.Tensor{in, pads}, outTensor(ops.Int32))
	equalInts(t, "PadBothSides_Symmetric", out.Int32s(), []int{1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6})
	// Random shapes against the np.pad index arithmetic; every third
	// trial leaves the innermost dimensions unpadded (Eval moves them as
	// one block) and pads an outer one.
	r := lcg(9)
	for trial := 0; trial < 120; trial++ {
		rank := r.intn(1, 4)
		sym := r.next()%2 == 0
		shape := make([]int, rank)
		var pv []int64
		outShape := make([]int, rank)
		n := 1
		for d := range shape {
			shape[d] = r.intn(1, 4)
			limit := shape[d]
			if !sym {
				limit--
			}
			lo, hi := r.intn(0, limit), r.intn(0, limit)
			if trial%3 == 0 && d > 0 {
				lo, hi = 0, 0
			}
			pv = append(pv, int64(lo), int64(hi))
			outShape[d] = shape[d] + lo + hi
			n *= shape[d]
		}
		data := f32Seq(n)
		mode := MirrorPadReflect
		if sym {
			mode = MirrorPadSymmetric
		}
		got := runOut(t, NewMirrorPad(), &MirrorPadOptions{Mode: mode}, []*ops.Tensor{tensorOf(ops.Float32, shape, data), constT(tensorOf(ops.Int64, []int{rank, 2}, pv))}, outTensor(ops.Float32))
		wantShape(t, got.Shape, outShape)
		var want []float64
		forEach(outShape, func(idx []int) {
			src := make([]int, rank)
			for d := range idx {
				src[d] = mirrorIndex(idx[d]-int(pv[2*d]), shape[d], sym)
			}
			want = append(want, float64(data[index(shape, src)]))
		})
		nearFloats(t, "mirror pad reference", got.Float32s(), want, 0)
	}
	wantPrepareError(t, NewMirrorPad(), node(&MirrorPadOptions{Mode: MirrorPadReflect}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{2, 2}, []int32{2, 0, 0, 0}))}, outTensor(ops.Int32)), "REFLECT")
	wantPrepareError(t, NewMirrorPad(), node(&MirrorPadOptions{Mode: MirrorPadSymmetric}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{2, 2}, []int32{0, 0, 0, 4}))}, outTensor(ops.Int32)), "SYMMETRIC")
	wantPrepareError(t, NewMirrorPad(), node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{1, 2}, []int32{0, 0}))}, outTensor(ops.Int32)), "shape")
}
