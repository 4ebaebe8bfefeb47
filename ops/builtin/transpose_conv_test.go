package builtin

import (
	"fmt"
	"math"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Tests of TRANSPOSE_CONV: TFLite's kernel test vectors
// (transpose_conv_test.cc), every type path against a direct scatter
// written from TFLite's reference kernels on random shapes, strides and
// paddings (GEMM and matrix-vector paths, constant and run-time weights),
// the options decoder and the nodes TFLite refuses. The recorded
// TensorFlow Lite outputs are checked in transpose_conv_golden_test.go.

// tconvCase describes one transposed convolution.
type tconvCase struct {
	batch, inH, inW, inC, outH, outW, outC, fH, fW, sH, sW int
	pad                                                    ops.Padding
	act                                                    ops.Activation
}

// tconvPad is TFLite's padding of a transposed convolution: that of the
// forward convolution from the output to the input.
func tconvPad(in, out, f, s int) int {
	total := (in-1)*s + f - out
	if total < 0 {
		return 0
	}
	return total / 2
}

// tconvSums is the scatter of TFLite's reference TransposeConv: for every
// input element and tap, out[o·s − pad + t] += x·w, with x and w already
// offset. x is [batch][inH][inW][inC], w [outC][fH][fW][inC].
func tconvSums(c tconvCase, x, w []int64) []int64 {
	padT, padL := tconvPad(c.inH, c.outH, c.fH, c.sH), tconvPad(c.inW, c.outW, c.fW, c.sW)
	out := make([]int64, c.batch*c.outH*c.outW*c.outC)
	for b := 0; b < c.batch; b++ {
		for iy := 0; iy < c.inH; iy++ {
			for ix := 0; ix < c.inW; ix++ {
				for ic := 0; ic < c.inC; ic++ {
					xv := x[((b*c.inH+iy)*c.inW+ix)*c.inC+ic]
					for fy := 0; fy < c.fH; fy++ {
						for fx := 0; fx < c.fW; fx++ {
							oy, ox := iy*c.sH-padT+fy, ix*c.sW-padL+fx
							if oy < 0 || oy >= c.outH || ox < 0 || ox >= c.outW {
								continue
							}
							for oc := 0; oc < c.outC; oc++ {
								out[((b*c.outH+oy)*c.outW+ox)*c.outC+oc] += xv * w[((oc*c.fH+fy)*c.fW+fx)*c.inC+ic]
							}
						}
					}
				}
			}
		}
	}
	return out
}

// tconvSumsF is tconvSums in float64.
func tconvSumsF(c tconvCase, x, w []float32) []float64 {
	padT, padL := tconvPad(c.inH, c.outH, c.fH, c.sH), tconvPad(c.inW, c.outW, c.fW, c.sW)
	out := make([]float64, c.batch*c.outH*c.outW*c.outC)
	for b := 0; b < c.batch; b++ {
		for iy := 0; iy < c.inH; iy++ {
			for ix := 0; ix < c.inW; ix++ {
				for ic := 0; ic < c.inC; ic++ {
					xv := float64(x[((b*c.inH+iy)*c.inW+ix)*c.inC+ic])
					for fy := 0; fy < c.fH; fy++ {
						for fx := 0; fx < c.fW; fx++ {
							oy, ox := iy*c.sH-padT+fy, ix*c.sW-padL+fx
							if oy < 0 || oy >= c.outH || ox < 0 || ox >= c.outW {
								continue
							}
							for oc := 0; oc < c.outC; oc++ {
								out[((b*c.outH+oy)*c.outW+ox)*c.outC+oc] += xv * float64(w[((oc*c.fH+fy)*c.fW+fx)*c.inC+ic])
							}
						}
					}
				}
			}
		}
	}
	return out
}

// tconvNode builds the node: output_shape constant, weights constant
// unless runtimeW, optional bias.
func tconvNode(c tconvCase, w, in, bias *ops.Tensor, outType ops.DataType, runtimeW bool, qbt ops.DataType) *ops.Node {
	shape := c32(int32(c.batch), int32(c.outH), int32(c.outW), int32(c.outC))
	if !runtimeW {
		constT(w)
	}
	ins := []*ops.Tensor{shape, w, in}
	if bias != nil {
		ins = append(ins, constT(bias))
	}
	return node(&TransposeConvOptions{Padding: c.pad, StrideH: c.sH, StrideW: c.sW, Activation: c.act, QuantizedBiasType: qbt}, ins, outTensor(outType))
}

// randomTconv draws a case whose output shape is consistent with the
// padding.
func randomTconv(r *lcg) tconvCase {
	c := tconvCase{batch: r.intn(1, 2), inH: r.intn(1, 5), inW: r.intn(1, 5), inC: r.intn(1, 19),
		outC: r.intn(1, 21), fH: r.intn(1, 4), fW: r.intn(1, 4), sH: r.intn(1, 3), sW: r.intn(1, 3)}
	if r.intn(0, 1) == 0 {
		c.pad = ops.PaddingSame
		// SAME: ceil(out/s) = in.
		c.outH = (c.inH-1)*c.sH + r.intn(1, c.sH)
		c.outW = (c.inW-1)*c.sW + r.intn(1, c.sW)
	} else {
		c.pad = ops.PaddingValid
		// VALID: (out − f)/s + 1 = in.
		c.outH = (c.inH-1)*c.sH + c.fH + r.intn(0, c.sH-1)
		c.outW = (c.inW-1)*c.sW + c.fW + r.intn(0, c.sW-1)
	}
	c.act = []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActRelu6, ops.ActReluN1To1}[r.intn(0, 3)]
	return c
}

func (c tconvCase) String() string {
	return fmt.Sprintf("%+v", struct {
		B, InH, InW, InC, OutH, OutW, OutC, FH, FW, SH, SW int
		Pad                                                ops.Padding
		Act                                                ops.Activation
	}{c.batch, c.inH, c.inW, c.inC, c.outH, c.outW, c.outC, c.fH, c.fW, c.sH, c.sW, c.pad, c.act})
}

func TestTransposeConvTFLiteVectors(t *testing.T) {
	seq := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i + 1)
		}
		return v
	}
	t.Run("SimpleTest", func(t *testing.T) {
		c := tconvCase{batch: 1, inH: 4, inW: 4, inC: 1, outH: 4, outW: 4, outC: 1, fH: 3, fW: 3, sH: 1, sW: 1, pad: ops.PaddingSame}
		n := tconvNode(c, tensorOf(ops.Float32, []int{1, 3, 3, 1}, seq(9)), tensorOf(ops.Float32, []int{1, 4, 4, 1}, seq(16)), nil, ops.Float32, false, 0)
		run(t, NewTransposeConv(), n)
		wantShape(t, n.Outputs[0].Shape, []int{1, 4, 4, 1})
		nearFloats(t, "SimpleTest", n.Outputs[0].Float32s(), []float64{29, 62, 83, 75, 99, 192, 237, 198, 207, 372, 417, 330, 263, 446, 485, 365}, 0)
	})
	t.Run("StrideValidTest", func(t *testing.T) {
		c := tconvCase{batch: 1, inH: 2, inW: 2, inC: 1, outH: 5, outW: 5, outC: 1, fH: 3, fW: 3, sH: 2, sW: 2, pad: ops.PaddingValid}
		n := tconvNode(c, tensorOf(ops.Float32, []int{1, 3, 3, 1}, seq(9)), tensorOf(ops.Float32, []int{1, 2, 2, 1}, seq(4)), nil, ops.Float32, false, 0)
		run(t, NewTransposeConv(), n)
		nearFloats(t, "StrideValidTest", n.Outputs[0].Float32s(), []float64{1, 2, 5, 4, 6, 4, 5, 14, 10, 12, 10, 14, 36,
			24, 30, 12, 15, 34, 20, 24, 21, 24, 55, 32, 36}, 0)
	})
}

// tconvRandomInts fills n values in [lo, hi].
func tconvRandomInts(r *lcg, n, lo, hi int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(r.intn(lo, hi))
	}
	return v
}

func TestTransposeConvFloatAgainstDefinition(t *testing.T) {
	for _, forceMatVec := range []bool{false, true} {
		deconvForceMatVec = forceMatVec
		r := lcg(31)
		for trial := 0; trial < 60; trial++ {
			c := randomTconv(&r)
			runtimeW := trial%5 == 4
			x := make([]float32, c.batch*c.inH*c.inW*c.inC)
			w := make([]float32, c.outC*c.fH*c.fW*c.inC)
			bias := make([]float32, c.outC)
			for i := range x {
				x[i] = r.float(-2, 2)
			}
			for i := range w {
				w[i] = r.float(-1, 1)
			}
			for i := range bias {
				bias[i] = r.float(-1, 1)
			}
			var bt *ops.Tensor
			if trial%3 != 0 {
				bt = tensorOf(ops.Float32, []int{c.outC}, bias)
			}
			n := tconvNode(c, tensorOf(ops.Float32, []int{c.outC, c.fH, c.fW, c.inC}, w), tensorOf(ops.Float32, []int{c.batch, c.inH, c.inW, c.inC}, x), bt, ops.Float32, runtimeW, 0)
			k := NewTransposeConv()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, []int{c.batch, c.outH, c.outW, c.outC})
			want := tconvSumsF(c, x, w)
			lo, hi := ActivationRangeFloat(c.act)
			for i := range want {
				if bt != nil {
					want[i] += float64(bias[i%c.outC])
				}
				want[i] = math.Min(math.Max(want[i], float64(lo)), float64(hi))
			}
			nearFloats(t, c.String(), n.Outputs[0].Float32s(), want, 1e-4)
			noAllocs(t, k, n)
		}
	}
	deconvForceMatVec = false
}

// tconvQuantCase runs one integer case and compares with the reference
// requantisation, returning nothing on success.
func TestTransposeConvInt8AgainstDefinition(t *testing.T) {
	for _, forceMatVec := range []bool{false, true} {
		deconvForceMatVec = forceMatVec
		r := lcg(47)
		for trial := 0; trial < 60; trial++ {
			c := randomTconv(&r)
			perChannel := trial%2 == 0
			runtimeW := trial%7 == 6
			inZP := int64(r.intn(-128, 127))
			outZP := int64(r.intn(-20, 20))
			inScale, outScale := float32(0.05), float32(0.02)*float32(r.intn(1, 20))
			x := tconvRandomInts(&r, c.batch*c.inH*c.inW*c.inC, -128, 127)
			w := tconvRandomInts(&r, c.outC*c.fH*c.fW*c.inC, -127, 127)
			bias := tconvRandomInts(&r, c.outC, -3000, 3000)
			scales := make([]float32, c.outC)
			for i := range scales {
				scales[i] = 0.002 * float32(r.intn(1, 40))
				if !perChannel {
					scales[i] = scales[0]
				}
			}
			wt := tensorOf(ops.Int8, []int{c.outC, c.fH, c.fW, c.inC}, toInt8(to32(w)))
			if perChannel {
				wt.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, c.outC)}
			} else {
				q(wt, scales[0], 0)
			}
			in := q(tensorOf(ops.Int8, []int{c.batch, c.inH, c.inW, c.inC}, toInt8(to32(x))), inScale, inZP)
			var bt *ops.Tensor
			if trial%4 != 1 {
				bt = q(tensorOf(ops.Int32, []int{c.outC}, to32(bias)), inScale*scales[0], 0)
			}
			n := tconvNode(c, wt, in, bt, ops.Int8, runtimeW, 0)
			q(n.Outputs[0], outScale, outZP)
			k := NewTransposeConv()
			run(t, k, n)
			xo := make([]int64, len(x))
			for i, v := range x {
				xo[i] = v - inZP
			}
			sums := tconvSums(c, xo, w)
			lo, hi, err := ActivationRangeQuantized(c.act, n.Outputs[0])
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int32, len(sums))
			for i, s := range sums {
				oc := i % c.outC
				if bt != nil {
					s += bias[oc]
				}
				m, sh := ops.QuantizeMultiplier(float64(inScale) * float64(scales[oc]) / float64(outScale))
				want[i] = min(max(ops.MultiplyByQuantizedMultiplier(int32(s), m, sh)+int32(outZP), lo), hi)
			}
			equalInts(t, c.String(), n.Outputs[0].Int8s(), want)
			noAllocs(t, k, n)
		}
	}
	deconvForceMatVec = false
}

func TestTransposeConvUint8AgainstDefinition(t *testing.T) {
	r := lcg(53)
	for trial := 0; trial < 40; trial++ {
		c := randomTconv(&r)
		inZP, wZP, outZP := int64(r.intn(0, 255)), int64(r.intn(0, 255)), int64(r.intn(0, 255))
		if trial%5 == 0 {
			wZP = 128 // the re-centred weight zero point is 0
		}
		inScale, wScale, outScale := float32(0.05), float32(0.01), float32(0.05)*float32(r.intn(1, 20))
		x := tconvRandomInts(&r, c.batch*c.inH*c.inW*c.inC, 0, 255)
		w := tconvRandomInts(&r, c.outC*c.fH*c.fW*c.inC, 0, 255)
		bias := tconvRandomInts(&r, c.outC, -3000, 3000)
		wt := q(tensorOf(ops.Uint8, []int{c.outC, c.fH, c.fW, c.inC}, toUint8(to32(w))), wScale, wZP)
		in := q(tensorOf(ops.Uint8, []int{c.batch, c.inH, c.inW, c.inC}, toUint8(to32(x))), inScale, inZP)
		bt := q(tensorOf(ops.Int32, []int{c.outC}, to32(bias)), inScale*wScale, 0)
		n := tconvNode(c, wt, in, bt, ops.Uint8, trial%6 == 5, 0)
		q(n.Outputs[0], outScale, outZP)
		k := NewTransposeConv()
		run(t, k, n)
		xo, wo := make([]int64, len(x)), make([]int64, len(w))
		for i, v := range x {
			xo[i] = v - inZP
		}
		for i, v := range w {
			wo[i] = v - wZP
		}
		sums := tconvSums(c, xo, wo)
		lo, hi, _ := ActivationRangeQuantized(c.act, n.Outputs[0])
		m, sh := ops.QuantizeMultiplier(float64(inScale*wScale) / float64(outScale))
		want := make([]int32, len(sums))
		for i, s := range sums {
			want[i] = min(max(ops.MultiplyByQuantizedMultiplier(int32(s+bias[i%c.outC]), m, sh)+int32(outZP), lo), hi)
		}
		equalInts(t, c.String(), n.Outputs[0].Uint8s(), want)
		noAllocs(t, k, n)
	}
}

func TestTransposeConvInt16AgainstDefinition(t *testing.T) {
	for _, forceMatVec := range []bool{false, true} {
		deconvForceMatVec = forceMatVec
		r := lcg(59)
		for trial := 0; trial < 60; trial++ {
			c := randomTconv(&r)
			acc64 := trial%2 == 0
			qbt := ops.DataType(ops.Int32)
			if acc64 {
				qbt = []ops.DataType{0, ops.Int64}[r.intn(0, 1)]
			}
			inScale, outScale := float32(0.001), float32(0.0005)*float32(r.intn(1, 40))
			x := tconvRandomInts(&r, c.batch*c.inH*c.inW*c.inC, -32768, 32767)
			w := tconvRandomInts(&r, c.outC*c.fH*c.fW*c.inC, -127, 127)
			bias := tconvRandomInts(&r, c.outC, -300000, 300000)
			scales := make([]float32, c.outC)
			for i := range scales {
				scales[i] = 0.001 * float32(r.intn(1, 40))
			}
			wt := tensorOf(ops.Int8, []int{c.outC, c.fH, c.fW, c.inC}, toInt8(to32(w)))
			wt.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, c.outC)}
			in := q(tensorOf(ops.Int16, []int{c.batch, c.inH, c.inW, c.inC}, toInt16(to32(x))), inScale, 0)
			var bt *ops.Tensor
			if trial%4 != 1 {
				if acc64 {
					bt = q(tensorOf(ops.Int64, []int{c.outC}, bias), inScale*scales[0], 0)
				} else {
					bt = q(tensorOf(ops.Int32, []int{c.outC}, to32(bias)), inScale*scales[0], 0)
				}
			}
			n := tconvNode(c, wt, in, bt, ops.Int16, trial%7 == 6, qbt)
			q(n.Outputs[0], outScale, 0)
			k := NewTransposeConv()
			run(t, k, n)
			sums := tconvSums(c, x, w)
			lo, hi, _ := ActivationRangeQuantized(c.act, n.Outputs[0])
			want := make([]int32, len(sums))
			for i, s := range sums {
				oc := i % c.outC
				if bt != nil {
					s += bias[oc]
				}
				m, sh := ops.QuantizeMultiplier(float64(inScale) * float64(scales[oc]) / float64(outScale))
				var v int32
				if acc64 {
					v = ops.MultiplyByQuantizedMultiplier64(s, m, sh)
				} else {
					v = ops.MultiplyByQuantizedMultiplier(int32(s), m, sh)
				}
				want[i] = min(max(v, lo), hi)
			}
			equalInts(t, fmt.Sprintf("%v acc64=%v", c, acc64), n.Outputs[0].Int16s(), want)
			noAllocs(t, k, n)
		}
	}
	deconvForceMatVec = false
}

// TestTransposeConvInt16Extremes checks the split of int16 inputs into
// int8 halves at the ends of the range, where a naive split overflows.
func TestTransposeConvInt16Extremes(t *testing.T) {
	c := tconvCase{batch: 1, inH: 1, inW: 4, inC: 3, outH: 1, outW: 4, outC: 2, fH: 1, fW: 1, sH: 1, sW: 1, pad: ops.PaddingValid}
	x := []int64{-32768, 32767, -1, 0, 255, 256, -256, -255, 32640, -32640, 127, -128}
	w := []int64{-127, 127, 1, 127, -127, -1}
	wt := tensorOf(ops.Int8, []int{2, 1, 1, 3}, toInt8(to32(w)))
	q(wt, 1, 0)
	in := q(tensorOf(ops.Int16, []int{1, 1, 4, 3}, toInt16(to32(x))), 1, 0)
	n := tconvNode(c, wt, in, nil, ops.Int16, false, 0)
	q(n.Outputs[0], 1024, 0)
	run(t, NewTransposeConv(), n)
	sums := tconvSums(c, x, w)
	want := make([]int32, len(sums))
	m, sh := ops.QuantizeMultiplier(1.0 / 1024)
	for i, s := range sums {
		want[i] = min(max(ops.MultiplyByQuantizedMultiplier64(s, m, sh), -32768), 32767)
	}
	equalInts(t, "extremes", n.Outputs[0].Int16s(), want)
}

func TestTransposeConvHybridAgainstDefinition(t *testing.T) {
	r := lcg(61)
	for trial := 0; trial < 40; trial++ {
		c := randomTconv(&r)
		x := make([]float32, c.batch*c.inH*c.inW*c.inC)
		for i := range x {
			x[i] = r.float(-3, 2)
		}
		w := tconvRandomInts(&r, c.outC*c.fH*c.fW*c.inC, -127, 127)
		scales := make([]float32, c.outC)
		for i := range scales {
			scales[i] = 0.01 * float32(r.intn(1, 9))
			if trial%2 == 0 {
				scales[i] = scales[0]
			}
		}
		wt := tensorOf(ops.Int8, []int{c.outC, c.fH, c.fW, c.inC}, toInt8(to32(w)))
		if trial%2 == 0 {
			q(wt, scales[0], 0)
		} else {
			wt.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, c.outC)}
		}
		bias := make([]float32, c.outC)
		for i := range bias {
			bias[i] = r.float(-1, 1)
		}
		n := tconvNode(c, wt, tensorOf(ops.Float32, []int{c.batch, c.inH, c.inW, c.inC}, x), tensorOf(ops.Float32, []int{c.outC}, bias), ops.Float32, trial%5 == 4, 0)
		k := NewTransposeConv()
		run(t, k, n)
		// TFLite's HybridTransposeConv: quantise each image, then
		// accumulate acc·channel scale·image scale in float.
		img := c.inH * c.inW * c.inC
		qx := make([]int8, len(x))
		sf := make([]float32, c.batch)
		zp := make([]int32, c.batch)
		for b := 0; b < c.batch; b++ {
			sf[b], zp[b] = ops.AsymmetricQuantizeFloats(x[b*img:(b+1)*img], qx[b*img:])
		}
		xo := make([]int64, len(x))
		for i, v := range qx {
			xo[i] = int64(v) - int64(zp[i/img])
		}
		sums := tconvSums(c, xo, w)
		lo, hi := ActivationRangeFloat(c.act)
		want := make([]float64, len(sums))
		outImg := c.outH * c.outW * c.outC
		for i, s := range sums {
			v := float64(s)*float64(scales[i%c.outC])*float64(sf[i/outImg]) + float64(bias[i%c.outC])
			want[i] = math.Min(math.Max(v, float64(lo)), float64(hi))
		}
		nearFloats(t, c.String(), n.Outputs[0].Float32s(), want, 1e-4)
		noAllocs(t, k, n)
	}
}

func to32(v []int64) []int32 {
	o := make([]int32, len(v))
	for i, x := range v {
		o[i] = int32(x)
	}
	return o
}

func TestTransposeConvOptionsDecoder(t *testing.T) {
	b := flatbuffers.NewBuilder(64)
	b.Finish((&schema.TransposeConvOptionsT{Padding: schema.PaddingVALID, StrideW: 2, StrideH: 3,
		FusedActivationFunction: schema.ActivationFunctionTypeRELU6, QuantizedBiasType: schema.TensorTypeINT64}).Pack(b))
	buf := b.FinishedBytes()
	got, err := decodeTransposeConvOptions(ops.OptionsTable{Type: uint8(schema.BuiltinOptionsTransposeConvOptions), Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
	if err != nil {
		t.Fatal(err)
	}
	want := TransposeConvOptions{Padding: ops.PaddingValid, StrideW: 2, StrideH: 3, Activation: ops.ActRelu6, QuantizedBiasType: ops.Int64}
	if o, ok := got.(*TransposeConvOptions); !ok || *o != want {
		t.Fatalf("decoded %#v, want %#v", got, want)
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for v := 1; v <= 6; v++ {
		if _, err := r.FindBuiltin(ops.OpTransposeConv, v); (err == nil) != (v <= 5) {
			t.Errorf("version %d: %v (TFLite registers 1-5)", v, err)
		}
	}
}

// TestTransposeConvErrors feeds nodes TFLite refuses, and hostile ones;
// each must fail at Prepare naming the problem.
func TestTransposeConvErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	base := tconvCase{batch: 1, inH: 2, inW: 2, inC: 3, outH: 4, outW: 4, outC: 2, fH: 3, fW: 3, sH: 2, sW: 2, pad: ops.PaddingSame}
	good := func() *ops.Node { return tconvNode(base, f32(2, 3, 3, 3), f32(1, 2, 2, 3), nil, ops.Float32, false, 0) }
	if err := prepare(NewTransposeConv(), good()); err != nil {
		t.Fatalf("the base case fails: %v", err)
	}
	edit := func(f func(n *ops.Node)) *ops.Node { n := good(); f(n); return n }
	shape := func(v ...int32) func(n *ops.Node) { return func(n *ops.Node) { n.Inputs[0] = c32(v...) } }
	opts := func(f func(o *TransposeConvOptions)) func(n *ops.Node) {
		return func(n *ops.Node) { f(n.Options.(*TransposeConvOptions)) }
	}
	i8 := func(shape ...int) *ops.Tensor { return q(tensorOf(ops.Int8, shape, make([]int8, prod(shape))), 0.1, 0) }
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"stride 0", edit(opts(func(o *TransposeConvOptions) { o.StrideH = 0 })), []string{"strides 0×2"}},
		{"stride -1", edit(opts(func(o *TransposeConvOptions) { o.StrideW = -1 })), []string{"strides"}},
		{"stride too large", edit(opts(func(o *TransposeConvOptions) { o.StrideW = 1 << 20 })), []string{"strides"}},
		{"no options", edit(func(n *ops.Node) { n.Options = nil }), []string{"strides 0×0"}},
		{"wrong options", edit(func(n *ops.Node) { n.Options = &Conv2DOptions{} }), []string{"need *TransposeConvOptions"}},
		{"bad padding", edit(opts(func(o *TransposeConvOptions) { o.Padding = 7 })), []string{"padding"}},
		{"bad activation", edit(opts(func(o *TransposeConvOptions) { o.Activation = 9 })), []string{"activation"}},
		{"tanh", edit(opts(func(o *TransposeConvOptions) { o.Activation = ops.ActTanh })), []string{"TANH"}},
		{"output_shape not constant", edit(func(n *ops.Node) { n.Inputs[0].Kind = ops.ArenaTensor }), []string{"input 0 (output_shape)", "must be a constant tensor"}},
		{"output_shape int64", edit(func(n *ops.Node) { n.Inputs[0] = constT(tensorOf(ops.Int64, []int{4}, []int64{1, 4, 4, 2})) }), []string{"int64"}},
		{"output_shape 3 elements", edit(shape(1, 4, 4)), []string{"3 elements"}},
		{"output_shape matrix", edit(func(n *ops.Node) { n.Inputs[0] = constT(tensorOf(ops.Int32, []int{2, 2}, []int32{1, 4, 4, 2})) }), []string{"rank 2"}},
		{"negative output dim", edit(shape(1, -4, 4, 2)), []string{"negative"}},
		{"zero output height", edit(shape(1, 0, 4, 2)), []string{"positive height"}},
		{"huge output", edit(shape(1, 1<<30, 1<<30, 2)), []string{"elements"}},
		{"wrong batch", edit(shape(2, 4, 4, 2)), []string{"batch 2"}},
		{"wrong channels", edit(shape(1, 4, 4, 3)), []string{"3 channels"}},
		{"inconsistent height", edit(shape(1, 7, 4, 2)), []string{"height 2 does not match"}},
		{"inconsistent width", edit(shape(1, 4, 1, 2)), []string{"width 2 does not match"}},
		{"weights channels", edit(func(n *ops.Node) { n.Inputs[1] = constT(f32(2, 3, 3, 4)) }), []string{"4 input channels"}},
		{"weights rank", edit(func(n *ops.Node) { n.Inputs[1] = constT(f32(2, 3, 3)) }), []string{"weights", "rank 3"}},
		{"input rank", edit(func(n *ops.Node) { n.Inputs[2] = f32(2, 2, 3) }), []string{"input 2", "rank 3"}},
		{"empty input", edit(func(n *ops.Node) { n.Inputs[2] = f32(1, 0, 2, 3) }), []string{"positive height"}},
		{"empty weights", edit(func(n *ops.Node) { n.Inputs[1] = constT(f32(0, 3, 3, 3)) }), []string{"positive output channels"}},
		{"bias size", edit(func(n *ops.Node) { n.Inputs = append(n.Inputs, constT(f32(3))) }), []string{"3 elements", "2 (output channels)"}},
		{"bias type", edit(func(n *ops.Node) { n.Inputs = append(n.Inputs, constT(tensorOf(ops.Int32, []int{2}, []int32{1, 2}))) }), []string{"bias", "int32"}},
		{"output type", edit(func(n *ops.Node) { n.Outputs[0] = outTensor(ops.Int8) }), []string{"output 0", "int8"}},
		{"int8 input float weights", edit(func(n *ops.Node) { n.Inputs[2] = i8(1, 2, 2, 3) }), []string{"weights", "float32", "int8"}},
		{"int8 unquantized output", edit(func(n *ops.Node) {
			n.Inputs[1], n.Inputs[2], n.Outputs[0] = constT(i8(2, 3, 3, 3)), i8(1, 2, 2, 3), outTensor(ops.Int8)
		}), []string{"output 0", "quantization"}},
		{"int8 bias zero point", edit(func(n *ops.Node) {
			n.Inputs[1], n.Inputs[2], n.Outputs[0] = constT(i8(2, 3, 3, 3)), i8(1, 2, 2, 3), q(outTensor(ops.Int8), 0.1, 0)
			n.Inputs = append(n.Inputs, constT(q(tensorOf(ops.Int32, []int{2}, []int32{1, 2}), 0.01, 3)))
		}), []string{"bias", "zero point 3"}},
		{"int16 input zero point", edit(func(n *ops.Node) {
			n.Inputs[1], n.Outputs[0] = constT(i8(2, 3, 3, 3)), q(outTensor(ops.Int16), 0.1, 0)
			n.Inputs[2] = q(tensorOf(ops.Int16, []int{1, 2, 2, 3}, make([]int16, 12)), 0.1, 5)
		}), []string{"zero points 5"}},
		{"int16 int32 bias without quantized_bias_type", edit(func(n *ops.Node) {
			n.Inputs[1], n.Outputs[0] = constT(i8(2, 3, 3, 3)), q(outTensor(ops.Int16), 0.1, 0)
			n.Inputs[2] = q(tensorOf(ops.Int16, []int{1, 2, 2, 3}, make([]int16, 12)), 0.1, 0)
			n.Inputs = append(n.Inputs, constT(tensorOf(ops.Int32, []int{2}, []int32{1, 2})))
		}), []string{"int64 bias"}},
		{"int16 bad quantized_bias_type", edit(func(n *ops.Node) {
			n.Inputs[1], n.Outputs[0] = constT(i8(2, 3, 3, 3)), q(outTensor(ops.Int16), 0.1, 0)
			n.Inputs[2] = q(tensorOf(ops.Int16, []int{1, 2, 2, 3}, make([]int16, 12)), 0.1, 0)
			n.Options.(*TransposeConvOptions).QuantizedBiasType = ops.Int8
		}), []string{"quantized_bias_type int8"}},
		{"hybrid scales", edit(func(n *ops.Node) {
			w := constT(tensorOf(ops.Int8, []int{2, 3, 3, 3}, make([]int8, 54)))
			w.Quant = &ops.Quantization{Scale: []float32{1, 1, 1}, ZeroPoint: []int64{0, 0, 0}}
			n.Inputs[1] = w
		}), []string{"3 scales"}},
		{"two inputs", edit(func(n *ops.Node) { n.Inputs = n.Inputs[:2] }), []string{"2 inputs"}},
		{"no output", edit(func(n *ops.Node) { n.Outputs = nil }), []string{"0 outputs"}},
		{"omitted weights", edit(func(n *ops.Node) { n.Inputs[1] = nil }), []string{"input 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantPrepareError(t, NewTransposeConv(), c.n, c.wants...)
		})
	}
	if err := NewTransposeConv().Eval(good()); err == nil {
		t.Fatal("Eval without Prepare succeeded")
	}
}
