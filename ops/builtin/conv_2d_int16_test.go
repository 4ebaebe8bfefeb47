package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// The int16x8 CONV_2D against a plain transcription of TFLite's reference
// ConvPerChannel (int16 input, int8 filter, int64 or int32 sums), on
// random shapes, strides, dilations, paddings, groups and activations
// with inputs over the whole int16 range.

// refMul64 is TFLite's 64-bit MultiplyByQuantizedMultiplier, written out
// again (independently of ops) from common.cc.
func refMul64(x int64, m int32, shift int) int32 {
	red := int64(0x7FFF)
	if m < 0x7FFF0000 {
		red = (int64(m) + 1<<15) >> 16
	}
	total := 15 - shift
	return int32((x*red + int64(1)<<(total-1)) >> total)
}

// refMul32 is TFLite's default (double rounding) int32
// MultiplyByQuantizedMultiplier, from gemmlowp's two steps, in big
// integers: a rounding doubling high multiply (ties away from zero), then
// a rounding right shift (ties away from zero).
func refMul32(x, m int32, shift int) int32 {
	left, right := max(shift, 0), max(-shift, 0)
	a := int64(int32(uint32(x) << left))
	p := a * int64(m)
	nudge := int64(1 << 30)
	if p < 0 {
		nudge = 1 - 1<<30
	}
	h := (p + nudge) / (1 << 31) // truncating division, as gemmlowp
	if a == math.MinInt32 && m == math.MinInt32 {
		h = math.MaxInt32
	}
	if right == 0 {
		return int32(h)
	}
	mask := int64(1)<<right - 1
	rem := h & mask
	thr := mask >> 1
	if h < 0 {
		thr++
	}
	r := h >> right
	if rem > thr {
		r++
	}
	return int32(r)
}

type conv16Case struct {
	batch, inH, inW, inC, outC, fH, fW, groups int
	sH, sW, dH, dW                             int
	pad                                        ops.Padding
	act                                        ops.Activation
	bias                                       bool
	qbt                                        ops.DataType
	perChannel                                 bool
}

func (c conv16Case) run(t *testing.T, seed uint64, constFilter bool) {
	t.Helper()
	r := lcg(seed)
	filterInC := c.inC / c.groups
	x := make([]int16, c.batch*c.inH*c.inW*c.inC)
	for i := range x {
		x[i] = int16(r.intn(-32768, 32767))
	}
	w := make([]int8, c.outC*c.fH*c.fW*filterInC)
	for i := range w {
		w[i] = int8(r.intn(-127, 127))
	}
	inScale := float32(1.0 / 4096)
	scales := make([]float32, c.outC)
	for i := range scales {
		scales[i] = r.float(0.002, 0.012)
		if !c.perChannel {
			scales[i] = scales[0]
		}
	}
	k := c.fH * c.fW * filterInC
	outScale := float32(math.Sqrt(float64(k))*8*0.007/3) / 3 // some saturation at the ends
	in := q(tensorOf(ops.Int16, []int{c.batch, c.inH, c.inW, c.inC}, x), inScale, 0)
	filter := tensorOf(ops.Int8, []int{c.outC, c.fH, c.fW, filterInC}, w)
	if constFilter {
		constT(filter)
	}
	fs := scales
	if !c.perChannel {
		fs = scales[:1]
	}
	filter.Quant = &ops.Quantization{Scale: fs, ZeroPoint: make([]int64, len(fs))}
	var bias *ops.Tensor
	var b64 []int64
	if c.bias {
		b64 = make([]int64, c.outC)
		for i := range b64 {
			b64[i] = int64(r.intn(-3000000, 3000000))
		}
		if c.qbt == ops.Int32 {
			b32 := make([]int32, c.outC)
			for i, v := range b64 {
				b32[i] = int32(v)
			}
			bias = constT(tensorOf(ops.Int32, []int{c.outC}, b32))
		} else {
			bias = constT(tensorOf(ops.Int64, []int{c.outC}, b64))
		}
	}
	opts := &Conv2DOptions{Padding: c.pad, StrideH: c.sH, StrideW: c.sW, DilationHFactor: c.dH, DilationWFactor: c.dW, Activation: c.act, QuantizedBiasType: c.qbt}
	n := convNode(opts, in, filter, bias, ops.Int16)
	n.Outputs[0].Quant = &ops.Quantization{Scale: []float32{outScale}, ZeroPoint: []int64{0}}
	k2 := &Conv2D{}
	run(t, k2, n)
	noAllocs(t, k2, n)
	out := n.Outputs[0]

	hw, err := newWindow(c.pad, c.inH, c.fH, c.sH, c.dH, "height")
	if err != nil {
		t.Fatal(err)
	}
	ww, err := newWindow(c.pad, c.inW, c.fW, c.sW, c.dW, "width")
	if err != nil {
		t.Fatal(err)
	}
	wantShape(t, out.Shape, []int{c.batch, hw.out, ww.out, c.outC})
	lo, hi, err := ActivationRangeQuantized(c.act, out)
	if err != nil {
		t.Fatal(err)
	}
	perGroup := c.outC / c.groups
	want := make([]int32, 0, out.NumElements())
	for b := 0; b < c.batch; b++ {
		for oy := 0; oy < hw.out; oy++ {
			for ox := 0; ox < ww.out; ox++ {
				for oc := 0; oc < c.outC; oc++ {
					g := oc / perGroup
					var acc int64
					var acc32 int32
					for fy := 0; fy < c.fH; fy++ {
						iy := oy*c.sH - hw.pad + fy*c.dH
						for fx := 0; fx < c.fW; fx++ {
							ix := ox*c.sW - ww.pad + fx*c.dW
							if iy < 0 || iy >= c.inH || ix < 0 || ix >= c.inW {
								continue
							}
							for ic := 0; ic < filterInC; ic++ {
								xv := int32(x[((b*c.inH+iy)*c.inW+ix)*c.inC+g*filterInC+ic])
								wv := int32(w[((oc*c.fH+fy)*c.fW+fx)*filterInC+ic])
								acc += int64(xv * wv)
								acc32 += xv * wv
							}
						}
					}
					m, s := ops.QuantizeMultiplier(float64(inScale) * float64(scales[oc]) / float64(outScale))
					var v int32
					switch {
					case c.qbt != ops.Int32:
						if c.bias {
							acc += b64[oc]
						}
						v = refMul64(acc, m, s)
					default:
						if c.bias {
							acc32 += int32(b64[oc])
						}
						if c.groups == 1 {
							// ruy's x86 kernels (TFLite's optimised path).
							v = ops.MultiplyByQuantizedMultiplierUp(acc32, m, s)
						} else {
							v = refMul32(acc32, m, s)
						}
					}
					want = append(want, min(max(v, lo), hi))
				}
			}
		}
	}
	equalInts(t, "int16 conv", out.Int16s(), want)
	checkSpread(t, want, lo, hi)
}

// checkSpread fails when more than a quarter of the outputs sit at the top
// of the clamp range (or at an int16 bottom), so the comparison is not one
// of saturated values.
func checkSpread(t *testing.T, v []int32, lo, hi int32) {
	t.Helper()
	sat := 0
	for _, x := range v {
		if x == hi || x == lo && lo == -32768 {
			sat++
		}
	}
	if 4*sat > len(v) && hi-lo > 255 {
		t.Fatalf("%d of %d outputs saturated at %d or %d: the case tests little", sat, len(v), lo, hi)
	}
}

func TestConv2DInt16Random(t *testing.T) {
	same, valid := ops.PaddingSame, ops.PaddingValid
	cases := []conv16Case{
		{1, 7, 5, 3, 5, 3, 3, 1, 1, 1, 1, 1, same, ops.ActNone, true, 0, true},
		{2, 6, 6, 8, 7, 3, 3, 1, 2, 2, 1, 1, same, ops.ActRelu, true, ops.Int64, true},
		{1, 9, 7, 5, 3, 2, 3, 1, 2, 1, 2, 2, valid, ops.ActRelu6, false, 0, false},
		{1, 5, 5, 16, 9, 1, 1, 1, 1, 1, 1, 1, valid, ops.ActNone, true, ops.Int32, true},
		{2, 8, 6, 6, 10, 3, 3, 1, 1, 2, 1, 1, same, ops.ActReluN1To1, true, ops.Int32, true},
		{1, 6, 7, 6, 6, 3, 2, 3, 1, 1, 1, 1, same, ops.ActNone, true, ops.Int32, true}, // grouped: reference rounding
		{1, 6, 7, 8, 4, 3, 3, 2, 2, 2, 2, 1, same, ops.ActRelu, true, 0, true},         // grouped, int64
		{1, 49, 10, 1, 13, 10, 4, 1, 2, 2, 1, 1, same, ops.ActRelu, true, 0, true},     // DS-CNN's first layer
		{1, 4, 4, 33, 17, 3, 3, 1, 1, 1, 3, 1, same, ops.ActNone, true, ops.Int64, false},
	}
	for i, c := range cases {
		c.run(t, uint64(100+i), true)
	}
	// A filter that is an activation: packed and summed at every Eval.
	cases[1].run(t, 99, false)
	cases[5].run(t, 98, false)
}

func TestConv2DInt16Errors(t *testing.T) {
	mk := func(biasType ops.DataType, qbt ops.DataType, inZP, wZP int64) *ops.Node {
		in := q(tensorOf(ops.Int16, []int{1, 3, 3, 2}, make([]int16, 18)), 0.001, inZP)
		filter := q(constT(tensorOf(ops.Int8, []int{2, 1, 1, 2}, make([]int8, 4))), 0.01, wZP)
		var bias *ops.Tensor
		switch biasType {
		case ops.Int32:
			bias = constT(tensorOf(ops.Int32, []int{2}, make([]int32, 2)))
		case ops.Int64:
			bias = constT(tensorOf(ops.Int64, []int{2}, make([]int64, 2)))
		}
		opts := convOpts(ops.PaddingSame, 1, 1, ops.ActNone)
		opts.QuantizedBiasType = qbt
		n := convNode(opts, in, filter, bias, ops.Int16)
		n.Outputs[0].Quant = &ops.Quantization{Scale: []float32{0.01}, ZeroPoint: []int64{0}}
		return n
	}
	wantPrepareError(t, &Conv2D{}, mk(ops.Int32, 0, 0, 0), "input 2 (bias)", "int64")
	wantPrepareError(t, &Conv2D{}, mk(ops.Int64, ops.Int32, 0, 0), "input 2 (bias)", "int32")
	wantPrepareError(t, &Conv2D{}, mk(ops.Int64, ops.Int8, 0, 0), "quantized_bias_type")
	wantPrepareError(t, &Conv2D{}, mk(ops.Int64, 0, 3, 0), "zero points")
	wantPrepareError(t, &Conv2D{}, mk(ops.Int64, 0, 0, 2), "symmetric")
	// A rescale factor of 2^15 or more does not fit the 64-bit multiply.
	n := mk(ops.Int64, 0, 0, 0)
	n.Outputs[0].Quant.Scale[0] = 1e-10
	wantPrepareError(t, &Conv2D{}, n, "output 0", "too large")
	// No bias: zeros, either sum width.
	for _, qbt := range []ops.DataType{0, ops.Int32} {
		run(t, &Conv2D{}, mk(0, qbt, 0, 0))
	}
}
