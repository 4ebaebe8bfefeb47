package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of PACK and UNPACK: TFLite's kernel-test vectors (pack_test.cc,
// unpack_test.cc) and naive multi-index references on random shapes.

func TestPackUnpack(t *testing.T) {
	// PackOpTest.FloatThreeInputs (axis 0) and ThreeInputsDifferentAxis
	// (axis 1), NegativeAxis (-1).
	in := [][]float32{{1, 4}, {2, 5}, {3, 6}}
	for _, tc := range []struct {
		axis      int
		wantShape []int
		want      []float64
	}{
		{0, []int{3, 2}, []float64{1, 4, 2, 5, 3, 6}},
		{1, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}},
		{-1, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}},
	} {
		var ts []*ops.Tensor
		for _, v := range in {
			ts = append(ts, tensorOf(ops.Float32, []int{2}, v))
		}
		n := node(&PackOptions{ValuesCount: 3, Axis: tc.axis}, ts, outTensor(ops.Float32))
		k := NewPack()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, tc.wantShape)
		nearFloats(t, "pack", n.Outputs[0].Float32s(), tc.want, 0)
		noAllocs(t, k, n)
		// UNPACK inverts PACK along the same axis.
		u := node(&UnpackOptions{Num: 3, Axis: tc.axis}, []*ops.Tensor{n.Outputs[0]}, outTensor(ops.Float32), outTensor(ops.Float32), outTensor(ops.Float32))
		uk := NewUnpack()
		run(t, uk, u)
		for i, o := range u.Outputs {
			wantShape(t, o.Shape, []int{2})
			nearFloats(t, "unpack", o.Float32s(), []float64{float64(in[i][0]), float64(in[i][1])}, 0)
		}
		noAllocs(t, uk, u)
	}
	// UnpackOpTest.ThreeOutputsAxisOne: [3, 2] split along axis 1 into two [3].
	u := node(&UnpackOptions{Num: 2, Axis: 1}, []*ops.Tensor{tensorOf(ops.Float32, []int{3, 2}, []float32{1, 2, 3, 4, 5, 6})}, outTensor(ops.Float32), outTensor(ops.Float32))
	run(t, NewUnpack(), u)
	nearFloats(t, "unpack axis 1 #0", u.Outputs[0].Float32s(), []float64{1, 3, 5}, 0)
	nearFloats(t, "unpack axis 1 #1", u.Outputs[1].Float32s(), []float64{2, 4, 6}, 0)
	wantPrepareError(t, NewPack(), node(&PackOptions{ValuesCount: 2}, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, in[0])}, outTensor(ops.Float32)), "values_count 2")
	wantPrepareError(t, NewPack(), node(&PackOptions{ValuesCount: 2}, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, in[0]), tensorOf(ops.Float32, []int{1}, in[0][:1])}, outTensor(ops.Float32)), "differs")
	wantPrepareError(t, NewUnpack(), node(&UnpackOptions{Num: 3}, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, f32Seq(4))}, outTensor(ops.Float32), outTensor(ops.Float32)), "num 3")
	wantPrepareError(t, NewUnpack(), node(&UnpackOptions{Axis: 2}, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, f32Seq(4))}, outTensor(ops.Float32), outTensor(ops.Float32)), "axis 2")
}
