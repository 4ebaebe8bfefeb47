package convert

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

// TestLegalizeDense: MatMul + BiasAdd + Relu becomes one FULLY_CONNECTED
// with the bias folded in and RELU fused, as TensorFlow's converter does.
func TestLegalizeDense(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", -1, 4)
	w := g.constF("w", ir.Shape{4, 3}, seq(12, 1, 0))
	b := g.constF("b", ir.Shape{3}, []float32{0.1, -0.2, 0.3})
	mm := g.op("MatMul", "mm", []string{x, w}, nil)
	ba := g.op("BiasAdd", "ba", []string{mm, b}, nil)
	g.op("Relu", "relu", []string{ba}, nil)
	res := g.mustConvert(t, "FULLY_CONNECTED", "relu")
	xv := seq(4, 2, 1)
	wv, bv := seq(12, 1, 0), []float32{0.1, -0.2, 0.3}
	want := make([]float64, 3)
	for o := range want {
		s := float64(bv[o])
		for i := 0; i < 4; i++ {
			s += float64(xv[i]) * float64(wv[i*3+o])
		}
		want[o] = math.Max(s, 0)
	}
	near(t, "dense", runModel(t, res.Model, xv), want, 1e-6)
}

// TestLegalizeMatMulTransposes: transpose_a on a computed operand becomes a
// TRANSPOSE; transpose_b weights are already [out, in].
func TestLegalizeMatMulTransposes(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", 4, 2)
	w := g.constF("w", ir.Shape{3, 4}, seq(12, 1, 0))
	g.op("MatMul", "mm", []string{x, w}, attrs{"transpose_a": bAttr(true), "transpose_b": bAttr(true)})
	res := g.mustConvert(t, "TRANSPOSE FULLY_CONNECTED", "mm")
	xv, wv := seq(8, 1, 2), seq(12, 1, 0)
	want := make([]float64, 2*3) // (xᵀ)[2,4] · (wᵀ)[4,3]
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 4; k++ {
				want[i*3+j] += float64(xv[k*2+i]) * float64(wv[j*4+k])
			}
		}
	}
	near(t, "matmul", runModel(t, res.Model, xv), want, 1e-6)
}

// conv2DRef is a float64 NHWC convolution with TensorFlow's padding.
func conv2DRef(x []float32, h, w, c int, f []float32, kh, kw, oc, sh, sw int, same bool) ([]float64, int, int) {
	var oh, ow, pt, pl int
	if same {
		oh, ow = (h+sh-1)/sh, (w+sw-1)/sw
		pt = max(0, ((oh-1)*sh+kh-h)/2)
		pl = max(0, ((ow-1)*sw+kw-w)/2)
	} else {
		oh, ow = (h-kh)/sh+1, (w-kw)/sw+1
	}
	out := make([]float64, oh*ow*oc)
	for y := 0; y < oh; y++ {
		for xx := 0; xx < ow; xx++ {
			for o := 0; o < oc; o++ {
				s := 0.0
				for ky := 0; ky < kh; ky++ {
					for kx := 0; kx < kw; kx++ {
						iy, ix := y*sh+ky-pt, xx*sw+kx-pl
						if iy < 0 || iy >= h || ix < 0 || ix >= w {
							continue
						}
						for i := 0; i < c; i++ {
							s += float64(x[(iy*w+ix)*c+i]) * float64(f[((ky*kw+kx)*c+i)*oc+o])
						}
					}
				}
				out[(y*ow+xx)*oc+o] = s
			}
		}
	}
	return out, oh, ow
}

// TestLegalizeConv: Conv2D (filter transposed to [out, h, w, in]) with
// BiasAdd folded and Relu6 fused.
func TestLegalizeConv(t *testing.T) {
	for _, padding := range []string{"VALID", "SAME"} {
		g := newGraph()
		x := g.placeholder("x", 1, 7, 6, 3)
		f := g.constF("f", ir.Shape{3, 2, 3, 4}, seq(72, 0.5, 0))
		b := g.constF("b", ir.Shape{4}, []float32{1, -1, 0.5, 0})
		c := g.op("Conv2D", "conv", []string{x, f}, attrs{"strides": lAttr(1, 2, 2, 1), "padding": sAttr(padding)})
		ba := g.op("BiasAdd", "ba", []string{c, b}, nil)
		g.op("Relu6", "r6", []string{ba}, nil)
		res := g.mustConvert(t, "CONV_2D", "r6")
		xv := seq(7*6*3, 3, 1)
		want, _, _ := conv2DRef(xv, 7, 6, 3, seq(72, 0.5, 0), 3, 2, 4, 2, 2, padding == "SAME")
		for i := range want {
			want[i] = math.Min(math.Max(want[i]+[]float64{1, -1, 0.5, 0}[i%4], 0), 6)
		}
		near(t, "conv "+padding, runModel(t, res.Model, xv), want, 1e-5)
	}
}

// TestLegalizeDepthwiseBatchNorm: DepthwiseConv2dNative with a channel
// multiplier, then inference batch normalisation and Relu, all folded into
// one DEPTHWISE_CONV_2D.
func TestLegalizeDepthwiseBatchNorm(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", 1, 5, 5, 2)
	f := g.constF("f", ir.Shape{3, 3, 2, 2}, seq(36, 0.5, 0))
	dw := g.op("DepthwiseConv2dNative", "dw", []string{x, f}, attrs{"strides": lAttr(1, 1, 1, 1), "padding": sAttr("SAME")})
	gamma := g.constF("gamma", ir.Shape{4}, []float32{1, 2, 0.5, 1.5})
	beta := g.constF("beta", ir.Shape{4}, []float32{0.1, 0, -0.1, 0.2})
	mean := g.constF("mean", ir.Shape{4}, []float32{0.5, -0.5, 0, 1})
	variance := g.constF("var", ir.Shape{4}, []float32{1, 4, 0.25, 2})
	bn := g.op("FusedBatchNormV3", "bn", []string{dw, gamma, beta, mean, variance}, attrs{"U": tAttr(ir.Float32), "epsilon": fAttr(0.001), "is_training": bAttr(false)})
	g.op("Relu", "relu", []string{bn}, nil)
	res := g.mustConvert(t, "DEPTHWISE_CONV_2D", "relu")
	xv, fv := seq(50, 2, 3), seq(36, 0.5, 0)
	want := make([]float64, 5*5*4)
	gm, be, mu, va := []float64{1, 2, 0.5, 1.5}, []float64{0.1, 0, -0.1, 0.2}, []float64{0.5, -0.5, 0, 1}, []float64{1, 4, 0.25, 2}
	for y := 0; y < 5; y++ {
		for xx := 0; xx < 5; xx++ {
			for c := 0; c < 2; c++ {
				for m := 0; m < 2; m++ {
					o := c*2 + m
					s := 0.0
					for ky := 0; ky < 3; ky++ {
						for kx := 0; kx < 3; kx++ {
							iy, ix := y+ky-1, xx+kx-1
							if iy >= 0 && iy < 5 && ix >= 0 && ix < 5 {
								s += float64(xv[(iy*5+ix)*2+c]) * float64(fv[((ky*3+kx)*2+c)*2+m])
							}
						}
					}
					s = (s-mu[o])/math.Sqrt(va[o]+0.001)*gm[o] + be[o]
					want[(y*5+xx)*4+o] = math.Max(s, 0)
				}
			}
		}
	}
	near(t, "depthwise", runModel(t, res.Model, xv), want, 1e-5)
}

// TestLegalizePoolMeanSoftmax: MaxPool, Mean over H and W, Softmax.
func TestLegalizePoolMeanSoftmax(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", 1, 4, 4, 2)
	mp := g.op("MaxPool", "mp", []string{x}, attrs{"ksize": lAttr(1, 2, 2, 1), "strides": lAttr(1, 2, 2, 1), "padding": sAttr("VALID")})
	axes := g.constI("axes", ir.Shape{2}, 1, 2)
	mean := g.op("Mean", "mean", []string{mp, axes}, attrs{"Tidx": tAttr(ir.Int32)})
	g.op("Softmax", "sm", []string{mean}, nil)
	res := g.mustConvert(t, "MAX_POOL_2D MEAN SOFTMAX", "sm")
	xv := seq(32, 3, 0)
	var m [2]float64
	for py := 0; py < 2; py++ {
		for px := 0; px < 2; px++ {
			for c := 0; c < 2; c++ {
				best := math.Inf(-1)
				for dy := 0; dy < 2; dy++ {
					for dx := 0; dx < 2; dx++ {
						best = math.Max(best, float64(xv[((py*2+dy)*4+px*2+dx)*2+c]))
					}
				}
				m[c] += best / 4
			}
		}
	}
	e0, e1 := math.Exp(m[0]), math.Exp(m[1])
	near(t, "pool/mean/softmax", runModel(t, res.Model, xv), []float64{e0 / (e0 + e1), e1 / (e0 + e1)}, 1e-6)
}

// TestLegalizeDataMovement: Keras-style Flatten (Shape → StridedSlice →
// Pack → Reshape, folded to one RESHAPE once the batch is pinned),
// Transpose, ConcatV2, StridedSlice with masks, Gather, Pad, Pack, Unpack,
// Split, Squeeze and ExpandDims, checked element by element.
func TestLegalizeDataMovement(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", -1, 2, 3)
	shape := g.node("Shape", "shape", []string{x}, attrs{"T": tAttr(ir.Float32), "out_type": tAttr(ir.Int32)})
	b0, b1, st := g.constI("b0", ir.Shape{1}, 0), g.constI("b1", ir.Shape{1}, 1), g.constI("s1", ir.Shape{1}, 1)
	batch := g.node("StridedSlice", "batch", []string{shape, b0, b1, st}, attrs{"T": tAttr(ir.Int32), "Index": tAttr(ir.Int32), "shrink_axis_mask": iAttr(1)})
	minus1 := g.constI("m1", ir.Shape{}, -1)
	newShape := g.node("Pack", "newshape", []string{batch, minus1}, attrs{"T": tAttr(ir.Int32), "N": iAttr(2)})
	flat := g.op("Reshape", "flat", []string{x, newShape}, attrs{"Tshape": tAttr(ir.Int32)}) // [1, 6]: 0..5
	perm := g.constI("perm", ir.Shape{3}, 0, 2, 1)
	tr := g.op("Transpose", "tr", []string{x, perm}, attrs{"Tperm": tAttr(ir.Int32)}) // [1,3,2]
	trFlat := g.op("Reshape", "trflat", []string{tr, g.constI("s16", ir.Shape{2}, 1, 6)}, attrs{"Tshape": tAttr(ir.Int32)})
	cat := g.op("ConcatV2", "cat", []string{flat, trFlat, g.constI("ax", ir.Shape{}, -1)}, attrs{"N": iAttr(2), "Tidx": tAttr(ir.Int32)}) // [1,12]
	// cat[0, ::-2] → 6 values
	rev := g.node("StridedSlice", "rev", []string{cat, g.constI("rb", ir.Shape{2}, 0, 0), g.constI("re", ir.Shape{2}, 1, 0), g.constI("rs", ir.Shape{2}, 1, -2)},
		attrs{"T": tAttr(ir.Float32), "Index": tAttr(ir.Int32), "shrink_axis_mask": iAttr(1), "begin_mask": iAttr(2), "end_mask": iAttr(2)})
	gat := g.op("GatherV2", "gather", []string{rev, g.constI("idx", ir.Shape{3}, 5, 0, 2), g.constI("gax", ir.Shape{}, 0)},
		attrs{"Tparams": tAttr(ir.Float32), "Tindices": tAttr(ir.Int32), "Taxis": tAttr(ir.Int32)})
	pad := g.op("Pad", "pad", []string{gat, g.constI("pads", ir.Shape{1, 2}, 1, 2)}, attrs{"Tpaddings": tAttr(ir.Int32)}) // [6]
	ex := g.op("ExpandDims", "ex", []string{pad, g.constI("exd", ir.Shape{}, 0)}, attrs{"Tdim": tAttr(ir.Int32)})         // [1,6]
	pk := g.op("Pack", "pk", []string{ex, ex}, attrs{"N": iAttr(2), "axis": iAttr(1)})                                    // [1,2,6]
	sp := g.op("Split", "sp", []string{g.constI("spax", ir.Shape{}, 2), pk}, attrs{"num_split": iAttr(2)})                // 2×[1,2,3]
	up := g.op("Unpack", "up", []string{"sp:1"}, attrs{"num": iAttr(2), "axis": iAttr(1)})                                // 2×[1,3]
	g.op("Squeeze", "sq", []string{up}, attrs{"squeeze_dims": lAttr(0)})                                                  // [3]
	_ = sp
	res := g.mustConvert(t, "RESHAPE TRANSPOSE RESHAPE CONCATENATION STRIDED_SLICE GATHER PAD RESHAPE PACK SPLIT UNPACK RESHAPE", "sq")
	xv := []float32{0, 1, 2, 3, 4, 5}
	// flat = 0..5; tr flattened = x[0][j][i] for i<3, j<2 = 0,3,1,4,2,5
	// cat = 0 1 2 3 4 5 0 3 1 4 2 5; cat[::-2] from the end: 5 4 3 5 3 1
	// gather [5,0,2] = 1 5 3; pad 1 left 2 right = 0 1 5 3 0 0
	// pack, split on axis 2 second half = 3 0 0 (both rows), unpack row 0
	near(t, "data movement", runModel(t, res.Model, xv), []float64{3, 0, 0}, 0)
}

// TestLegalizeElementwise: broadcasting Sub/Mul/AddV2 and Sigmoid/Tanh.
func TestLegalizeElementwise(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", 1, 2, 3)
	c := g.constF("c", ir.Shape{3}, []float32{0.5, -1, 2})
	sub := g.op("Sub", "sub", []string{x, c}, nil)
	mul := g.op("Mul", "mul", []string{sub, sub}, nil)
	sg := g.op("Sigmoid", "sig", []string{mul}, nil)
	th := g.op("Tanh", "tanh", []string{x}, nil)
	g.op("AddV2", "add", []string{sg, th}, nil)
	res := g.mustConvert(t, "SUB MUL LOGISTIC TANH ADD", "add")
	xv := seq(6, 2, 0)
	want := make([]float64, 6)
	for i, v := range xv {
		d := float64(v) - []float64{0.5, -1, 2}[i%3]
		want[i] = 1/(1+math.Exp(-d*d)) + math.Tanh(float64(v))
	}
	near(t, "elementwise", runModel(t, res.Model, xv), want, 1e-6)
}

// TestLegalizeErrors: an op with no legalisation, a Placeholder that is
// not an input, a dynamic dimension left unpinned, training-mode batch
// norm: each error names the node, its op and its function.
func TestLegalizeErrors(t *testing.T) {
	g := newGraph()
	x := g.placeholder("x", 1, 3)
	g.op("Frobnicate", "magic", []string{x}, nil)
	_, err := g.convert(t, "magic")
	if err == nil || err.Error() != `graph test.pb: node "magic" (op Frobnicate): no TFLite legalisation for op Frobnicate` {
		t.Errorf("unknown op: %v", err)
	}

	g = newGraph()
	x = g.placeholder("x", 1, 3)
	y := g.placeholder("y", 1, 3)
	g.op("AddV2", "add", []string{x, y}, nil)
	data := g.g
	_ = data
	res, err := g.convertWith(t, Options{InputArrays: []string{"x"}, OutputArrays: []string{"add"}})
	if err == nil || !strings.Contains(err.Error(), `node "y" (op Placeholder): is needed by the outputs but is not an input`) {
		t.Errorf("placeholder: %v %v", err, res)
	}

	g = newGraph()
	x = g.placeholder("x", 1, -1)
	// A Reshape to a constant holds the size: the model runs at 1 only,
	// so the dynamic dimension is not kept and must be given.
	g.op("Reshape", "r", []string{x, g.constI("shape", ir.Shape{2}, 1, 1)}, attrs{"Tshape": tAttr(ir.Int32)})
	_, err = g.convert(t, "r")
	if err == nil || !strings.Contains(err.Error(), `input 0 "x" has the dynamic shape [1 ?]; give the shape of every input, in order (x), with --input_shapes (InputShapes), e.g. --input_shapes 1,D1`) {
		t.Errorf("dynamic: %v", err)
	}

	g = newGraph()
	x = g.placeholder("x", 1, 2)
	p := g.constF("p", ir.Shape{2}, []float32{1, 1})
	g.op("FusedBatchNormV3", "bn", []string{x, p, p, p, p}, attrs{"U": tAttr(ir.Float32), "is_training": bAttr(true)})
	_, err = g.convert(t, "bn")
	if err == nil || !strings.Contains(err.Error(), `node "bn" (op FusedBatchNormV3): batch normalisation in training mode`) {
		t.Errorf("training bn: %v", err)
	}
}
