package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// The int16x8 and hybrid DEPTHWISE_CONV_2D against plain transcriptions of
// TFLite's kernels (reference DepthwiseConvPerChannel for int16; the
// scalar store loop of the optimised DepthwiseConvHybridPerChannel), on
// random shapes, multipliers, strides, dilations, paddings and
// activations.

type dw16Case struct {
	batch, inH, inW, inC, mult, fH, fW int
	sH, sW, dH, dW                     int
	pad                                ops.Padding
	act                                ops.Activation
	bias                               bool
	perChannel                         bool
}

// build returns the node (int16 or hybrid), the filter and the bias
// values.
func (c dw16Case) build(r *lcg, hybrid bool) (*ops.Node, []int8, []float32, []float32) {
	outC := c.inC * c.mult
	w := make([]int8, c.fH*c.fW*outC)
	for i := range w {
		w[i] = int8(r.intn(-127, 127))
	}
	scales := make([]float32, outC)
	for i := range scales {
		scales[i] = r.float(0.002, 0.012)
		if !c.perChannel {
			scales[i] = scales[0]
		}
	}
	fs := scales
	if !c.perChannel {
		fs = scales[:1]
	}
	filter := constT(tensorOf(ops.Int8, []int{1, c.fH, c.fW, outC}, w))
	filter.Quant = &ops.Quantization{Scale: fs, ZeroPoint: make([]int64, len(fs)), QuantizedDimension: 3}
	if !c.perChannel {
		filter.Quant.QuantizedDimension = 0
	}
	inShape := []int{c.batch, c.inH, c.inW, c.inC}
	var in, bias *ops.Tensor
	var bf []float32
	if hybrid {
		x := make([]float32, c.batch*c.inH*c.inW*c.inC)
		for i := range x {
			x[i] = r.float(-3, 5)
		}
		in = tensorOf(ops.Float32, inShape, x)
		if c.bias {
			bf = make([]float32, outC)
			for i := range bf {
				bf[i] = r.float(-1, 1)
			}
			bias = constT(tensorOf(ops.Float32, []int{outC}, bf))
		}
	} else {
		x := make([]int16, c.batch*c.inH*c.inW*c.inC)
		for i := range x {
			x[i] = int16(r.intn(-32768, 32767))
		}
		in = q(tensorOf(ops.Int16, inShape, x), 1.0/4096, 0)
		if c.bias {
			b := make([]int64, outC)
			bf = make([]float32, outC)
			for i := range b {
				b[i] = int64(r.intn(-2000000, 2000000))
				bf[i] = float32(b[i])
			}
			bias = constT(tensorOf(ops.Int64, []int{outC}, b))
		}
	}
	opts := &DepthwiseConv2DOptions{Padding: c.pad, StrideH: c.sH, StrideW: c.sW, DilationHFactor: c.dH, DilationWFactor: c.dW, DepthMultiplier: c.mult, Activation: c.act}
	ins := []*ops.Tensor{in, filter}
	if bias != nil {
		ins = append(ins, bias)
	}
	outType := ops.Int16
	if hybrid {
		outType = ops.Float32
	}
	n := node(opts, ins, outTensor(outType))
	if !hybrid {
		outScale := float32(math.Sqrt(float64(c.fH*c.fW))*8*0.007) / 3
		n.Outputs[0].Quant = &ops.Quantization{Scale: []float32{outScale}, ZeroPoint: []int64{0}}
	}
	return n, w, scales, bf
}

// windows returns the height and width windows of the case.
func (c dw16Case) windows(t *testing.T) (window, window) {
	hw, err := newWindow(c.pad, c.inH, c.fH, c.sH, c.dH, "height")
	if err != nil {
		t.Fatal(err)
	}
	ww, err := newWindow(c.pad, c.inW, c.fW, c.sW, c.dW, "width")
	if err != nil {
		t.Fatal(err)
	}
	return hw, ww
}

// sums returns reference sums of one output value: Σ w·(x(tap) + off) over
// the taps inside the image, x read by get(batch, iy, ix, ic).
func (c dw16Case) sum(hw, ww window, w []int8, b, oy, ox, oc int, get func(b, iy, ix, ic int) int64) int64 {
	outC := c.inC * c.mult
	ic := oc / c.mult
	var acc int64
	for fy := 0; fy < c.fH; fy++ {
		iy := oy*c.sH - hw.pad + fy*c.dH
		for fx := 0; fx < c.fW; fx++ {
			ix := ox*c.sW - ww.pad + fx*c.dW
			if iy < 0 || iy >= c.inH || ix < 0 || ix >= c.inW {
				continue
			}
			acc += int64(w[(fy*c.fW+fx)*outC+oc]) * get(b, iy, ix, ic)
		}
	}
	return acc
}

func (c dw16Case) runInt16(t *testing.T, seed uint64) {
	t.Helper()
	r := lcg(seed)
	n, w, scales, bf := c.build(&r, false)
	k := &DepthwiseConv2D{}
	run(t, k, n)
	noAllocs(t, k, n)
	x, out := n.Inputs[0].Int16s(), n.Outputs[0]
	hw, ww := c.windows(t)
	outC := c.inC * c.mult
	wantShape(t, out.Shape, []int{c.batch, hw.out, ww.out, outC})
	lo, hi, err := ActivationRangeQuantized(c.act, out)
	if err != nil {
		t.Fatal(err)
	}
	get := func(b, iy, ix, ic int) int64 { return int64(x[((b*c.inH+iy)*c.inW+ix)*c.inC+ic]) }
	var want []int32
	for b := 0; b < c.batch; b++ {
		for oy := 0; oy < hw.out; oy++ {
			for ox := 0; ox < ww.out; ox++ {
				for oc := 0; oc < outC; oc++ {
					acc := c.sum(hw, ww, w, b, oy, ox, oc, get)
					if bf != nil {
						acc += int64(bf[oc])
					}
					m, s := ops.QuantizeMultiplier(float64(float32(1.0/4096)) * float64(scales[oc]) / float64(out.Quant.Scale[0]))
					want = append(want, min(max(refMul64(acc, m, s), lo), hi))
				}
			}
		}
	}
	equalInts(t, "int16 depthwise", out.Int16s(), want)
	checkSpread(t, want, lo, hi)
}

func (c dw16Case) runHybrid(t *testing.T, seed uint64) {
	t.Helper()
	r := lcg(seed)
	n, w, scales, bf := c.build(&r, true)
	k := &DepthwiseConv2D{}
	run(t, k, n)
	noAllocs(t, k, n)
	x, out := n.Inputs[0].Float32s(), n.Outputs[0]
	hw, ww := c.windows(t)
	outC := c.inC * c.mult
	wantShape(t, out.Shape, []int{c.batch, hw.out, ww.out, outC})
	fMin, fMax := ActivationRangeFloat(c.act)
	image := c.inH * c.inW * c.inC
	qx := make([]int8, len(x))
	var want []float32
	for b := 0; b < c.batch; b++ {
		sf, zp := ops.AsymmetricQuantizeFloats(x[b*image:(b+1)*image], qx[b*image:(b+1)*image])
		get := func(b, iy, ix, ic int) int64 {
			return int64(qx[((b*c.inH+iy)*c.inW+ix)*c.inC+ic]) - int64(zp)
		}
		for oy := 0; oy < hw.out; oy++ {
			for ox := 0; ox < ww.out; ox++ {
				for oc := 0; oc < outC; oc++ {
					acc := int32(c.sum(hw, ww, w, b, oy, ox, oc, get))
					v := float32(float32(acc)*sf) * scales[oc]
					v = float32(v)
					if bf != nil {
						v += bf[oc]
					}
					want = append(want, float32(math.Min(math.Max(float64(v), float64(fMin)), float64(fMax))))
				}
			}
		}
	}
	got := out.Float32s()
	if len(got) != len(want) {
		t.Fatalf("%d outputs, want %d", len(got), len(want))
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("hybrid depthwise: element %d = %v, want %v", i, got[i], want[i])
		}
	}
}

var dw16Cases = []dw16Case{
	{1, 7, 6, 3, 1, 3, 3, 1, 1, 1, 1, ops.PaddingSame, ops.ActNone, true, true},
	{2, 6, 7, 4, 2, 3, 3, 2, 2, 1, 1, ops.PaddingSame, ops.ActRelu, true, true},
	{1, 9, 8, 5, 3, 3, 2, 1, 2, 2, 1, ops.PaddingValid, ops.ActRelu6, false, true},
	{1, 25, 5, 64, 1, 3, 3, 1, 1, 1, 1, ops.PaddingSame, ops.ActRelu, true, true}, // DS-CNN's layers
	{2, 5, 5, 7, 1, 5, 5, 1, 1, 1, 1, ops.PaddingSame, ops.ActReluN1To1, true, false},
	{1, 8, 4, 1, 5, 2, 2, 3, 1, 1, 2, ops.PaddingSame, ops.ActNone, false, true},
	{1, 6, 7, 37, 1, 3, 3, 2, 2, 1, 1, ops.PaddingSame, ops.ActRelu6, true, true}, // vector taps and a tail
}

func TestDepthwiseConv2DInt16Random(t *testing.T) {
	for i, c := range dw16Cases {
		c.runInt16(t, uint64(200+i))
	}
}

func TestDepthwiseConv2DHybridRandom(t *testing.T) {
	for i, c := range dw16Cases {
		c.runHybrid(t, uint64(300+i))
	}
	// An all-zero image: scale 1, zero point 0, output = bias.
	c := dw16Cases[0]
	r := lcg(9)
	n, _, _, bf := c.build(&r, true)
	clear(n.Inputs[0].Data)
	run(t, &DepthwiseConv2D{}, n)
	for i, v := range n.Outputs[0].Float32s() {
		if v != bf[i%len(bf)] {
			t.Fatalf("zero image: element %d = %v, want bias %v", i, v, bf[i%len(bf)])
		}
	}
}

func TestDepthwiseConv2DInt16HybridErrors(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		c := dw16Cases[1]
		mk := func() *ops.Node {
			r := lcg(1)
			n, _, _, _ := c.build(&r, hybrid)
			return n
		}
		n := mk()
		n.Options.(*DepthwiseConv2DOptions).DepthMultiplier = 1
		wantPrepareError(t, &DepthwiseConv2D{}, n, "depth_multiplier 1", "need 2")
		n = mk()
		n.Inputs[1].Quant.Scale = n.Inputs[1].Quant.Scale[:3]
		wantPrepareError(t, &DepthwiseConv2D{}, n, "input 1 (filter)", "3 scales")
		n = mk()
		n.Inputs[2] = constT(tensorOf(ops.Int32, []int{8}, make([]int32, 8)))
		wantPrepareError(t, &DepthwiseConv2D{}, n, "input 2 (bias)", "int32")
		if !hybrid {
			n = mk()
			n.Inputs[0].Quant.ZeroPoint[0] = 1
			wantPrepareError(t, &DepthwiseConv2D{}, n, "zero points")
		} else {
			n = mk()
			n.Inputs[1].Quant = nil
			wantPrepareError(t, &DepthwiseConv2D{}, n, "quantization")
		}
	}
}
