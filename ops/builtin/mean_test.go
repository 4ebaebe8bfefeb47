package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's reduce_test.cc (MeanOpTest: NotKeepDims,
// KeepDims, Scalar axis, negative/duplicate axes; ConstUint8MeanOpTest and
// ConstInt8MeanOpTest NotKeepDims/KeepDims), plus an independent model of
// the two quantised formulas (Mean4D and QuantizedMeanOrSum) on random
// data.

func meanNode(in *ops.Tensor, axes []int32, keep bool, out *ops.Tensor) *ops.Node {
	return node(&ReducerOptions{KeepDims: keep}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{len(axes)}, axes))}, out)
}

func TestMeanFloatTFLiteVectors(t *testing.T) {
	data := make([]float32, 24)
	for i := range data {
		data[i] = float32(i + 1)
	}
	for _, tc := range []struct {
		name      string
		axes      []int32
		keep      bool
		wantShape []int
		want      []float64
	}{
		{"NotKeepDims", []int32{1, 0, -3, -3}, false, []int{2}, []float64{12, 13}},
		{"KeepDims", []int32{0, 2}, true, []int{1, 3, 1}, []float64{10.5, 12.5, 14.5}},
		{"LastAxis", []int32{2}, false, []int{4, 3}, []float64{1.5, 3.5, 5.5, 7.5, 9.5, 11.5, 13.5, 15.5, 17.5, 19.5, 21.5, 23.5}},
		{"AllAxes", []int32{0, 1, 2}, false, []int{}, []float64{12.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := meanNode(tensorOf(ops.Float32, []int{4, 3, 2}, data), tc.axes, tc.keep, outTensor(ops.Float32))
			k := NewMean()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, tc.wantShape)
			nearFloats(t, "output", n.Outputs[0].Float32s(), tc.want, 1e-5)
			noAllocs(t, k, n)
		})
	}
	n := meanNode(tensorOf(ops.Int32, []int{2, 2}, []int32{1, 2, 4, -7}), []int32{1}, false, outTensor(ops.Int32))
	run(t, NewMean(), n)
	equalInts(t, "int32 truncates", n.Outputs[0].Int32s(), []int{1, -1})
}

// meanQuantRef models TFLite's two quantised mean formulas independently.
func meanQuantRef(in []int32, sum int32, count int, inS, outS float32, inZP, outZP int32, spatial bool, lo, hi int32) int32 {
	if spatial {
		num := float32(count)
		tmp := float32(float32(inZP)*inS) / outS
		if tmp > 0 {
			tmp += 0.5
		} else {
			tmp -= 0.5
		}
		bias := outZP - int32(tmp)
		m, s := ops.QuantizeMultiplier(float64(inS / (num * outS)))
		return min(max(ops.MultiplyByQuantizedMultiplier(sum, m, s)+bias, lo), hi)
	}
	m, s := ops.QuantizeMultiplier(float64(inS) / float64(outS))
	sh := 0
	for c := count; c > 1; c >>= 1 {
		sh++
	}
	sh = min(sh, 32, 31+s)
	m = int32((int64(m) << uint(sh)) / int64(count))
	s -= sh
	return min(max(ops.MultiplyByQuantizedMultiplier(sum-inZP*int32(count), m, s)+outZP, lo), hi)
}

func TestMeanQuantized(t *testing.T) {
	// ConstUint8MeanOpTest.NotKeepDims: [1, 3, 2] in [-1, 1], axis 1.
	in := quantTensor(ops.Uint8, []int{1, 3, 2}, []float32{0.4, 0.2, 0.3, 0.4, 0.5, 0.6}, -1, 1)
	n := meanNode(in, []int32{1}, false, quantOut(ops.Uint8, -1, 1))
	run(t, NewMean(), n)
	s, zp := n.Outputs[0].Scale(), n.Outputs[0].ZeroPoint()
	got := n.Outputs[0].Uint8s()
	for i, w := range []float64{0.4, 0.4} {
		if d := math.Abs(float64(s)*float64(int32(got[i])-zp) - w); d > 1.0/127 {
			t.Fatalf("uint8 mean %d: %v, want %v", i, float64(s)*float64(int32(got[i])-zp), w)
		}
	}
	// Random int8/uint8 data, spatial (Mean4D) and general paths, against
	// the formula model, with different input and output scales.
	r := lcg(4)
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		for _, spatial := range []bool{true, false} {
			lo, hi, _ := ops.TypeRange(typ)
			shape := []int{2, 5, 7, 3}
			v := randInts(&r, prod(shape), int(lo), int(hi))
			inS, outS := float32(0.05), float32(0.03)
			inZP, outZP := int32(lo+100), int32(lo+120)
			var it *ops.Tensor
			if typ == ops.Int8 {
				it = tensorOf(ops.Int8, shape, toInt8(v))
			} else {
				it = tensorOf(ops.Uint8, shape, toUint8(v))
			}
			axes := []int32{1, 2}
			if !spatial {
				axes = []int32{2}
			}
			n := meanNode(q(it, inS, int64(inZP)), axes, spatial, q(outTensor(typ), outS, int64(outZP)))
			k := NewMean()
			run(t, k, n)
			var want []int32
			if spatial {
				for b := 0; b < 2; b++ {
					for c := 0; c < 3; c++ {
						var sum int32
						for y := 0; y < 5; y++ {
							for x := 0; x < 7; x++ {
								sum += v[((b*5+y)*7+x)*3+c]
							}
						}
						want = append(want, meanQuantRef(v, sum, 35, inS, outS, inZP, outZP, true, lo, hi))
					}
				}
			} else {
				for b := 0; b < 2; b++ {
					for y := 0; y < 5; y++ {
						for c := 0; c < 3; c++ {
							var sum int32
							for x := 0; x < 7; x++ {
								sum += v[((b*5+y)*7+x)*3+c]
							}
							want = append(want, meanQuantRef(v, sum, 7, inS, outS, inZP, outZP, false, lo, hi))
						}
					}
				}
			}
			if typ == ops.Int8 {
				equalInts(t, "int8", n.Outputs[0].Int8s(), want)
			} else {
				equalInts(t, "uint8", n.Outputs[0].Uint8s(), want)
			}
			noAllocs(t, k, n)
		}
	}
}

func TestMeanErrors(t *testing.T) {
	in := tensorOf(ops.Float32, []int{2, 2}, []float32{1, 2, 3, 4})
	wantPrepareError(t, NewMean(), meanNode(in, []int32{2}, false, outTensor(ops.Float32)), "axis 2")
	n := meanNode(in, []int32{0}, false, outTensor(ops.Float32))
	n.Inputs[1].Kind = ops.ArenaTensor
	wantPrepareError(t, NewMean(), n, "constant")
	wantPrepareError(t, NewMean(), meanNode(tensorOf(ops.Bool, []int{2}, []bool{true, false}), []int32{0}, false, outTensor(ops.Bool)), "bool")
	wantPrepareError(t, NewMean(), meanNode(q(tensorOf(ops.Int16, []int{2}, []int16{1, 2}), 1, 3), []int32{0}, false, q(outTensor(ops.Int16), 1, 0)), "zero points 0")
}
