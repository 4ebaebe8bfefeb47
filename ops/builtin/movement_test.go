package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the data-movement kernels (CONCATENATION, PACK, UNPACK, SQUEEZE,
// EXPAND_DIMS, TRANSPOSE, REVERSE_V2, PAD/PADV2, SPLIT, SPLIT_V): TFLite
// kernel-test vectors (concatenation_test.cc, pack_test.cc, unpack_test.cc,
// squeeze_test.cc, expand_dims_test.cc, transpose_test.cc, reverse_test.cc,
// pad_test.cc, split_test.cc, split_v_test.cc) and naive multi-index
// references on random shapes.

func f32Seq(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

// index flattens a multi-index over shape (row-major).
func index(shape, idx []int) int {
	o := 0
	for d := range shape {
		o = o*shape[d] + idx[d]
	}
	return o
}

// forEach calls f with every multi-index of shape in row-major order.
func forEach(shape []int, f func(idx []int)) {
	idx := make([]int, len(shape))
	if prod(shape) == 0 {
		return
	}
	for {
		f(idx)
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func TestConcatenation(t *testing.T) {
	// ThreeDimensionalTwoInputsDifferentShapes.
	a := tensorOf(ops.Float32, []int{2, 1, 2}, []float32{1, 3, 4, 7})
	b := tensorOf(ops.Float32, []int{2, 3, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	n := node(&ops.ConcatenationOptions{Axis: 1}, []*ops.Tensor{a, b}, outTensor(ops.Float32))
	k := NewConcatenation()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 4, 2})
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{1, 3, 1, 2, 3, 4, 5, 6, 4, 7, 7, 8, 9, 10, 11, 12}, 0)
	noAllocs(t, k, n)
	// Random shapes and axes (negative too) against a naive reference.
	r := lcg(2)
	for trial := 0; trial < 20; trial++ {
		rank := r.intn(1, 4)
		axis := r.intn(0, rank-1)
		base := make([]int, rank)
		for d := range base {
			base[d] = r.intn(1, 3)
		}
		var ins []*ops.Tensor
		var datas [][]float32
		for i := 0; i < r.intn(1, 4); i++ {
			s := copyShape(base)
			s[axis] = r.intn(0, 3)
			d := randFloats(&r, prod(s), -1, 1)
			datas = append(datas, d)
			ins = append(ins, tensorOf(ops.Float32, s, d))
		}
		neg := axis
		if trial%2 == 1 {
			neg = axis - rank
		}
		n := node(&ops.ConcatenationOptions{Axis: neg}, ins, outTensor(ops.Float32))
		run(t, NewConcatenation(), n)
		out := n.Outputs[0]
		got := out.Float32s()
		forEach(out.Shape, func(idx []int) {
			p, i := idx[axis], 0
			for p >= ins[i].Shape[axis] {
				p -= ins[i].Shape[axis]
				i++
			}
			src := append([]int(nil), idx...)
			src[axis] = p
			if w := datas[i][index(ins[i].Shape, src)]; got[index(out.Shape, idx)] != w {
				t.Fatalf("trial %d: output %v = %v, want %v", trial, idx, got[index(out.Shape, idx)], w)
			}
		})
	}
}

func TestConcatenationUint8Rescale(t *testing.T) {
	// FourInputsQuantizedMixedRange from concatenation_test.cc.
	ranges := [][2]float64{{-10.7, 10.8}, {0, 12.8}, {-11, 11.8}, {0, 7.4}}
	vals := [][]float32{{1, 3, 4, 7}, {1.1, 3.1, 4.1, 7.1}, {1.2, 3.2, 4.2, 7.2}, {1.3, 3.3, 4.3, 7.3}}
	var ins []*ops.Tensor
	for i, rg := range ranges {
		ins = append(ins, quantTensor(ops.Uint8, []int{2, 1, 2}, vals[i], rg[0], rg[1]))
	}
	n := node(&ops.ConcatenationOptions{Axis: 2}, ins, quantOut(ops.Uint8, -12.7, 12.8))
	k := NewConcatenation()
	run(t, k, n)
	equalInts(t, "output", n.Outputs[0].Uint8s(), []int{137, 157, 138, 158, 139, 159, 140, 160, 167, 197, 168, 198, 169, 199, 170, 200})
	noAllocs(t, k, n)
	// int8 requires identical quantisation.
	x := quantTensor(ops.Int8, []int{2}, []float32{1, 2}, -1, 1)
	y := quantTensor(ops.Int8, []int{2}, []float32{1, 2}, -2, 2)
	wantPrepareError(t, NewConcatenation(), node(&ops.ConcatenationOptions{}, []*ops.Tensor{x, y}, quantOut(ops.Int8, -1, 1)), "does not rescale int8")
	wantPrepareError(t, NewConcatenation(), node(&ops.ConcatenationOptions{Activation: ops.ActRelu}, []*ops.Tensor{x}, quantOut(ops.Int8, -1, 1)), "RELU")
	wantPrepareError(t, NewConcatenation(), node(&ops.ConcatenationOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, f32Seq(4)), tensorOf(ops.Float32, []int{3, 3}, f32Seq(9))}, outTensor(ops.Float32)), "dimension 1 is 3")
}

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
		n := node(&ops.PackOptions{ValuesCount: 3, Axis: tc.axis}, ts, outTensor(ops.Float32))
		k := NewPack()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, tc.wantShape)
		nearFloats(t, "pack", n.Outputs[0].Float32s(), tc.want, 0)
		noAllocs(t, k, n)
		// UNPACK inverts PACK along the same axis.
		u := node(&ops.UnpackOptions{Num: 3, Axis: tc.axis}, []*ops.Tensor{n.Outputs[0]}, outTensor(ops.Float32), outTensor(ops.Float32), outTensor(ops.Float32))
		uk := NewUnpack()
		run(t, uk, u)
		for i, o := range u.Outputs {
			wantShape(t, o.Shape, []int{2})
			nearFloats(t, "unpack", o.Float32s(), []float64{float64(in[i][0]), float64(in[i][1])}, 0)
		}
		noAllocs(t, uk, u)
	}
	// UnpackOpTest.ThreeOutputsAxisOne: [3, 2] split along axis 1 into two [3].
	u := node(&ops.UnpackOptions{Num: 2, Axis: 1}, []*ops.Tensor{tensorOf(ops.Float32, []int{3, 2}, []float32{1, 2, 3, 4, 5, 6})}, outTensor(ops.Float32), outTensor(ops.Float32))
	run(t, NewUnpack(), u)
	nearFloats(t, "unpack axis 1 #0", u.Outputs[0].Float32s(), []float64{1, 3, 5}, 0)
	nearFloats(t, "unpack axis 1 #1", u.Outputs[1].Float32s(), []float64{2, 4, 6}, 0)
	wantPrepareError(t, NewPack(), node(&ops.PackOptions{ValuesCount: 2}, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, in[0])}, outTensor(ops.Float32)), "values_count 2")
	wantPrepareError(t, NewPack(), node(&ops.PackOptions{ValuesCount: 2}, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, in[0]), tensorOf(ops.Float32, []int{1}, in[0][:1])}, outTensor(ops.Float32)), "differs")
	wantPrepareError(t, NewUnpack(), node(&ops.UnpackOptions{Num: 3}, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, f32Seq(4))}, outTensor(ops.Float32), outTensor(ops.Float32)), "num 3")
	wantPrepareError(t, NewUnpack(), node(&ops.UnpackOptions{Axis: 2}, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, f32Seq(4))}, outTensor(ops.Float32), outTensor(ops.Float32)), "axis 2")
}

func TestSqueezeExpandDims(t *testing.T) {
	in := tensorOf(ops.Float32, []int{1, 24, 1}, f32Seq(24))
	for _, tc := range []struct {
		dims []int
		want []int
	}{{nil, []int{24}}, {[]int{-1, 0}, []int{24}}, {[]int{2}, []int{1, 24}}} {
		n := node(&ops.SqueezeOptions{SqueezeDims: tc.dims}, []*ops.Tensor{in}, outTensor(ops.Float32))
		k := NewSqueeze()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, tc.want)
		nearFloats(t, "squeeze", n.Outputs[0].Float32s()[:3], []float64{0, 1, 2}, 0)
		noAllocs(t, k, n)
	}
	wantPrepareError(t, NewSqueeze(), node(&ops.SqueezeOptions{SqueezeDims: []int{1}}, []*ops.Tensor{in}, outTensor(ops.Float32)), "size 24")
	// ExpandDimsOpTest.PositiveAxis / NegativeAxis on a [2, 2] input, int32
	// and int64 axis tensors.
	x := tensorOf(ops.Float32, []int{2, 2}, []float32{-1, 1, -2, 2})
	for _, tc := range []struct {
		axis *ops.Tensor
		want []int
	}{
		{constT(tensorOf(ops.Int32, []int{1}, []int32{0})), []int{1, 2, 2}},
		{constT(tensorOf(ops.Int32, []int{1}, []int32{1})), []int{2, 1, 2}},
		{constT(tensorOf(ops.Int32, []int{1}, []int32{2})), []int{2, 2, 1}},
		{constT(tensorOf(ops.Int64, []int{}, []int64{-1})), []int{2, 2, 1}},
		{constT(tensorOf(ops.Int32, []int{1}, []int32{-3})), []int{1, 2, 2}},
	} {
		n := node(nil, []*ops.Tensor{x, tc.axis}, outTensor(ops.Float32))
		k := NewExpandDims()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, tc.want)
		nearFloats(t, "expand_dims", n.Outputs[0].Float32s(), []float64{-1, 1, -2, 2}, 0)
		noAllocs(t, k, n)
	}
	wantPrepareError(t, NewExpandDims(), node(nil, []*ops.Tensor{x, constT(tensorOf(ops.Int32, []int{1}, []int32{3}))}, outTensor(ops.Float32)), "outside")
	wantPrepareError(t, NewExpandDims(), node(nil, []*ops.Tensor{x, tensorOf(ops.Int32, []int{1}, []int32{0})}, outTensor(ops.Float32)), "constant")
}

func TestTransposeReverse(t *testing.T) {
	r := lcg(6)
	for trial := 0; trial < 25; trial++ {
		rank := r.intn(1, 6)
		shape := make([]int, rank)
		for d := range shape {
			shape[d] = r.intn(1, 4)
		}
		perm := make([]int32, rank)
		for i := range perm {
			perm[i] = int32(i)
		}
		for i := rank - 1; i > 0; i-- {
			j := r.intn(0, i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		if trial%3 == 0 {
			perm[0] -= int32(rank) // negative entries count from the end
		}
		data := f32Seq(prod(shape))
		for _, typ := range []ops.DataType{ops.Float32, ops.Int8, ops.Int16, ops.Int64} {
			var in *ops.Tensor
			switch typ {
			case ops.Float32:
				in = tensorOf(ops.Float32, shape, data)
			case ops.Int8:
				v := make([]int8, len(data))
				for i := range v {
					v[i] = int8(i)
				}
				in = tensorOf(ops.Int8, shape, v)
			case ops.Int16:
				v := make([]int16, len(data))
				for i := range v {
					v[i] = int16(i)
				}
				in = tensorOf(ops.Int16, shape, v)
			default:
				v := make([]int64, len(data))
				for i := range v {
					v[i] = int64(i)
				}
				in = tensorOf(ops.Int64, shape, v)
			}
			n := node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{rank}, perm))}, outTensor(typ))
			k := NewTranspose()
			run(t, k, n)
			out := n.Outputs[0]
			p := make([]int, rank)
			for i, v := range perm {
				p[i] = (int(v) + rank) % rank
			}
			forEach(out.Shape, func(idx []int) {
				src := make([]int, rank)
				for i := range idx {
					src[p[i]] = idx[i]
				}
				want := index(shape, src)
				var got int
				switch typ {
				case ops.Float32:
					got = int(out.Float32s()[index(out.Shape, idx)])
				case ops.Int8:
					got = int(uint8(out.Int8s()[index(out.Shape, idx)]))
					want &= 0xff
				case ops.Int16:
					got = int(out.Int16s()[index(out.Shape, idx)])
				default:
					got = int(out.Int64s()[index(out.Shape, idx)])
				}
				if got != want {
					t.Fatalf("transpose %v perm %v (%s): output %v = %d, want %d", shape, perm, typ, idx, got, want)
				}
			})
			noAllocs(t, k, n)
		}
		// REVERSE_V2 over a random subset of axes.
		var axes []int32
		for d := 0; d < rank; d++ {
			if r.intn(0, 1) == 1 {
				axes = append(axes, int32(d))
			}
		}
		n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, shape, data), constT(tensorOf(ops.Int32, []int{len(axes)}, axes))}, outTensor(ops.Float32))
		k := NewReverseV2()
		run(t, k, n)
		forEach(shape, func(idx []int) {
			src := append([]int(nil), idx...)
			for _, a := range axes {
				src[a] = shape[a] - 1 - idx[a]
			}
			if got := n.Outputs[0].Float32s()[index(shape, idx)]; int(got) != index(shape, src) {
				t.Fatalf("reverse %v axes %v: %v = %v", shape, axes, idx, got)
			}
		})
		noAllocs(t, k, n)
	}
	// ReverseOpTest.FloatOneDimension and TransposeTest.TestRefOps2D.
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{4}, []float32{1, 2, 3, 4}), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float32))
	run(t, NewReverseV2(), n)
	nearFloats(t, "reverse 1-D", n.Outputs[0].Float32s(), []float64{4, 3, 2, 1}, 0)
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3, 2}, f32Seq(6)), constT(tensorOf(ops.Int32, []int{2}, []int32{1, 0}))}, outTensor(ops.Float32))
	run(t, NewTranspose(), n)
	nearFloats(t, "transpose 2-D", n.Outputs[0].Float32s(), []float64{0, 2, 4, 1, 3, 5}, 0)
	wantPrepareError(t, NewTranspose(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3, 2}, f32Seq(6)), constT(tensorOf(ops.Int32, []int{2}, []int32{1, 1}))}, outTensor(ops.Float32)), "twice")
	wantPrepareError(t, NewReverseV2(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3, 2}, f32Seq(6)), constT(tensorOf(ops.Int32, []int{1}, []int32{2}))}, outTensor(ops.Float32)), "axis 2")
}

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
	for trial := 0; trial < 20; trial++ {
		rank := r.intn(1, 5)
		shape := make([]int, rank)
		pads := make([]int32, 2*rank)
		for d := range shape {
			shape[d] = r.intn(0, 3)
			pads[2*d], pads[2*d+1] = int32(r.intn(0, 2)), int32(r.intn(0, 2))
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

func TestSplitAndSplitV(t *testing.T) {
	in := tensorOf(ops.Float32, []int{2, 2, 2, 2}, f32Seq(16))
	// SplitOpTest.FourDimensional, axis 0..3 and -4, two outputs.
	for _, tc := range []struct {
		axis int32
		want [][]float64
	}{
		{0, [][]float64{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}},
		{1, [][]float64{{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}}},
		{2, [][]float64{{0, 1, 4, 5, 8, 9, 12, 13}, {2, 3, 6, 7, 10, 11, 14, 15}}},
		{3, [][]float64{{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}}},
		{-4, [][]float64{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}},
	} {
		n := node(&ops.SplitOptions{NumSplits: 2}, []*ops.Tensor{constT(tensorOf(ops.Int32, []int{}, []int32{tc.axis})), in}, outTensor(ops.Float32), outTensor(ops.Float32))
		k := NewSplit()
		run(t, k, n)
		for i, o := range n.Outputs {
			nearFloats(t, "split", o.Float32s(), tc.want[i], 0)
		}
		noAllocs(t, k, n)
		// SPLIT_V with sizes {1, -1} along the same axis matches.
		v := node(&ops.SplitOptions{NumSplits: 2}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{2}, []int32{1, -1})), constT(tensorOf(ops.Int32, []int{1}, []int32{tc.axis}))}, outTensor(ops.Float32), outTensor(ops.Float32))
		vk := NewSplitV()
		run(t, vk, v)
		for i, o := range v.Outputs {
			nearFloats(t, "split_v", o.Float32s(), tc.want[i], 0)
		}
		noAllocs(t, vk, v)
	}
	// SplitVOpTest: [4, 2] rows split {1, 0, 3} along axis 0 (a size 0 part).
	x := tensorOf(ops.Float32, []int{4, 2}, f32Seq(8))
	v := node(&ops.SplitOptions{NumSplits: 3}, []*ops.Tensor{x, constT(tensorOf(ops.Int64, []int{3}, []int64{1, 0, 3})), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float32), outTensor(ops.Float32), outTensor(ops.Float32))
	run(t, NewSplitV(), v)
	wantShape(t, v.Outputs[1].Shape, []int{0, 2})
	nearFloats(t, "split_v #2", v.Outputs[2].Float32s(), []float64{2, 3, 4, 5, 6, 7}, 0)
	wantPrepareError(t, NewSplit(), node(&ops.SplitOptions{NumSplits: 3}, []*ops.Tensor{constT(tensorOf(ops.Int32, []int{}, []int32{0})), in}, outTensor(ops.Float32), outTensor(ops.Float32), outTensor(ops.Float32)), "not divisible")
	wantPrepareError(t, NewSplitV(), node(&ops.SplitOptions{NumSplits: 2}, []*ops.Tensor{x, constT(tensorOf(ops.Int32, []int{2}, []int32{-1, -1})), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float32), outTensor(ops.Float32)), "more than one")
	wantPrepareError(t, NewSplitV(), node(&ops.SplitOptions{NumSplits: 2}, []*ops.Tensor{x, constT(tensorOf(ops.Int32, []int{2}, []int32{1, 2})), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float32), outTensor(ops.Float32)), "add up to 3")
	wantPrepareError(t, NewSplit(), node(&ops.SplitOptions{NumSplits: 2}, []*ops.Tensor{tensorOf(ops.Int32, []int{}, []int32{0}), in}, outTensor(ops.Float32), outTensor(ops.Float32)), "constant")
}
