package builtin

import (
	"fmt"
	"math"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Tests of CONV_3D and CONV_3D_TRANSPOSE against TFLite's reference loops
// (reference_ops::Conv3D, Conv3DTranspose) on random shapes, strides,
// dilations and paddings, GEMM and matrix-vector paths, constant and
// run-time filters; the options decoder and the nodes TFLite refuses. The
// recorded TensorFlow Lite outputs are checked in conv_3d_golden_test.go.

type conv3DCase struct {
	batch, inC, outC int
	in, f, s, dil    [3]int
	pad              ops.Padding
	act              ops.Activation
}

func (c conv3DCase) String() string {
	type plain conv3DCase // no String method
	return fmt.Sprintf("%+v", plain(c))
}

// outDims is CONV_3D's output size per spatial dimension and leading pad.
func (c conv3DCase) outDims() (out, pad [3]int) {
	for d := 0; d < 3; d++ {
		eff := (c.f[d]-1)*c.dil[d] + 1
		if c.pad == ops.PaddingSame {
			out[d] = (c.in[d] + c.s[d] - 1) / c.s[d]
		} else {
			out[d] = (c.in[d] + c.s[d] - eff) / c.s[d]
		}
		pad[d] = max(0, ((out[d]-1)*c.s[d]+eff-c.in[d])/2)
	}
	return out, pad
}

func conv3DRef(c conv3DCase, x, w, bias []float32) []float64 {
	od, pad := c.outDims()
	out := make([]float64, c.batch*od[0]*od[1]*od[2]*c.outC)
	lo, hi := ActivationRangeFloat(c.act)
	i := 0
	for b := 0; b < c.batch; b++ {
		for oz := 0; oz < od[0]; oz++ {
			for oy := 0; oy < od[1]; oy++ {
				for ox := 0; ox < od[2]; ox++ {
					for oc := 0; oc < c.outC; oc++ {
						s := float64(bias[oc])
						for fz := 0; fz < c.f[0]; fz++ {
							iz := oz*c.s[0] - pad[0] + fz*c.dil[0]
							for fy := 0; fy < c.f[1]; fy++ {
								iy := oy*c.s[1] - pad[1] + fy*c.dil[1]
								for fx := 0; fx < c.f[2]; fx++ {
									ix := ox*c.s[2] - pad[2] + fx*c.dil[2]
									if iz < 0 || iz >= c.in[0] || iy < 0 || iy >= c.in[1] || ix < 0 || ix >= c.in[2] {
										continue
									}
									for ic := 0; ic < c.inC; ic++ {
										xv := x[(((b*c.in[0]+iz)*c.in[1]+iy)*c.in[2]+ix)*c.inC+ic]
										wv := w[(((fz*c.f[1]+fy)*c.f[2]+fx)*c.inC+ic)*c.outC+oc]
										s += float64(xv) * float64(wv)
									}
								}
							}
						}
						out[i] = math.Min(math.Max(s, float64(lo)), float64(hi))
						i++
					}
				}
			}
		}
	}
	return out
}

func randomConv3D(r *lcg) conv3DCase {
	c := conv3DCase{batch: r.intn(1, 2), inC: r.intn(1, 9), outC: r.intn(1, 19)}
	for d := 0; d < 3; d++ {
		c.in[d], c.f[d], c.s[d], c.dil[d] = r.intn(1, 6), r.intn(1, 3), r.intn(1, 2), 1
		if r.intn(0, 3) == 0 {
			c.dil[d] = 2
		}
	}
	c.pad = ops.Padding(r.intn(0, 1))
	if c.pad == ops.PaddingValid {
		for d := 0; d < 3; d++ {
			c.in[d] = max(c.in[d], (c.f[d]-1)*c.dil[d]+1)
		}
	}
	c.act = []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActRelu6, ops.ActReluN1To1}[r.intn(0, 3)]
	return c
}

func TestConv3DAgainstDefinition(t *testing.T) {
	for _, mv := range []bool{false, true} {
		deconvForceMatVec = mv
		r := lcg(101)
		for trial := 0; trial < 60; trial++ {
			c := randomConv3D(&r)
			if trial%10 == 0 {
				c.f, c.s, c.pad = [3]int{1, 1, 1}, [3]int{1, 1, 1}, ops.PaddingValid // the direct path
			}
			x := randFloats(&r, c.batch*c.in[0]*c.in[1]*c.in[2]*c.inC, -1, 1)
			w := randFloats(&r, c.f[0]*c.f[1]*c.f[2]*c.inC*c.outC, -1, 1)
			bias := randFloats(&r, c.outC, -1, 1)
			ft := tensorOf(ops.Float32, []int{c.f[0], c.f[1], c.f[2], c.inC, c.outC}, w)
			if trial%4 != 3 {
				constT(ft)
			}
			ins := []*ops.Tensor{tensorOf(ops.Float32, []int{c.batch, c.in[0], c.in[1], c.in[2], c.inC}, x), ft}
			zero := make([]float32, c.outC)
			if trial%3 != 0 {
				ins = append(ins, constT(tensorOf(ops.Float32, []int{c.outC}, bias)))
			} else {
				bias = zero
			}
			n := node(&Conv3DOptions{Padding: c.pad, StrideD: c.s[0], StrideH: c.s[1], StrideW: c.s[2],
				DilationDFactor: c.dil[0], DilationHFactor: c.dil[1], DilationWFactor: c.dil[2], Activation: c.act}, ins, outTensor(ops.Float32))
			k := NewConv3D()
			run(t, k, n)
			od, _ := c.outDims()
			wantShape(t, n.Outputs[0].Shape, []int{c.batch, od[0], od[1], od[2], c.outC})
			nearFloats(t, c.String(), n.Outputs[0].Float32s(), conv3DRef(c, x, w, bias), 1e-4)
			noAllocs(t, k, n)
		}
	}
}

// conv3DTransposeRef is TFLite's reference Conv3DTranspose: x is the
// input (c.in spatial sizes), the output has sizes outS.
func conv3DTransposeRef(c conv3DCase, outS [3]int, x, w, bias []float32) []float64 {
	var pad [3]int
	for d := 0; d < 3; d++ {
		eff := (c.f[d]-1)*c.dil[d] + 1
		pad[d] = max(0, ((c.in[d]-1)*c.s[d]+eff-outS[d])/2)
	}
	out := make([]float64, c.batch*outS[0]*outS[1]*outS[2]*c.outC)
	for b := 0; b < c.batch; b++ {
		for iz := 0; iz < c.in[0]; iz++ {
			for iy := 0; iy < c.in[1]; iy++ {
				for ix := 0; ix < c.in[2]; ix++ {
					for ic := 0; ic < c.inC; ic++ {
						xv := float64(x[(((b*c.in[0]+iz)*c.in[1]+iy)*c.in[2]+ix)*c.inC+ic])
						for fz := 0; fz < c.f[0]; fz++ {
							for fy := 0; fy < c.f[1]; fy++ {
								for fx := 0; fx < c.f[2]; fx++ {
									oz, oy, ox := iz*c.s[0]-pad[0]+fz*c.dil[0], iy*c.s[1]-pad[1]+fy*c.dil[1], ix*c.s[2]-pad[2]+fx*c.dil[2]
									if oz < 0 || oz >= outS[0] || oy < 0 || oy >= outS[1] || ox < 0 || ox >= outS[2] {
										continue
									}
									for oc := 0; oc < c.outC; oc++ {
										wv := float64(w[((((fz*c.f[1]+fy)*c.f[2]+fx)*c.outC)+oc)*c.inC+ic])
										out[(((b*outS[0]+oz)*outS[1]+oy)*outS[2]+ox)*c.outC+oc] += xv * wv
									}
								}
							}
						}
					}
				}
			}
		}
	}
	lo, hi := ActivationRangeFloat(c.act)
	for i := range out {
		out[i] = math.Min(math.Max(out[i]+float64(bias[i%c.outC]), float64(lo)), float64(hi))
	}
	return out
}

func TestConv3DTransposeAgainstDefinition(t *testing.T) {
	trials := 60
	if testing.Short() {
		trials = 15 // the slowest test of the package under qemu
	}
	defer func() { deconvForceMatVec = false }()
	for _, mv := range []bool{false, true} {
		deconvForceMatVec = mv
		r := lcg(103)
		for trial := 0; trial < trials; trial++ {
			c := randomConv3D(&r)
			// An output size whose forward convolution gives c.in.
			var outS [3]int
			for d := 0; d < 3; d++ {
				eff := (c.f[d]-1)*c.dil[d] + 1
				if c.pad == ops.PaddingSame {
					outS[d] = (c.in[d]-1)*c.s[d] + r.intn(1, c.s[d])
				} else {
					outS[d] = (c.in[d]-1)*c.s[d] + eff + r.intn(0, c.s[d]-1)
				}
			}
			x := randFloats(&r, c.batch*c.in[0]*c.in[1]*c.in[2]*c.inC, -1, 1)
			w := randFloats(&r, c.f[0]*c.f[1]*c.f[2]*c.outC*c.inC, -1, 1)
			bias := randFloats(&r, c.outC, -1, 1)
			ft := tensorOf(ops.Float32, []int{c.f[0], c.f[1], c.f[2], c.outC, c.inC}, w)
			if trial%4 != 3 {
				constT(ft)
			}
			shape := c32(int32(c.batch), int32(outS[0]), int32(outS[1]), int32(outS[2]), int32(c.outC))
			ins := []*ops.Tensor{shape, ft, tensorOf(ops.Float32, []int{c.batch, c.in[0], c.in[1], c.in[2], c.inC}, x)}
			if trial%3 != 0 {
				ins = append(ins, constT(tensorOf(ops.Float32, []int{c.outC}, bias)))
			} else {
				bias = make([]float32, c.outC)
			}
			n := node(&Conv3DOptions{Padding: c.pad, StrideD: c.s[0], StrideH: c.s[1], StrideW: c.s[2],
				DilationDFactor: c.dil[0], DilationHFactor: c.dil[1], DilationWFactor: c.dil[2], Activation: c.act}, ins, outTensor(ops.Float32))
			k := NewConv3DTranspose()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, []int{c.batch, outS[0], outS[1], outS[2], c.outC})
			nearFloats(t, fmt.Sprintf("%v out %v", c, outS), n.Outputs[0].Float32s(), conv3DTransposeRef(c, outS, x, w, bias), 1e-4)
			noAllocs(t, k, n)
		}
	}
}

func TestConv3DOptionsDecoder(t *testing.T) {
	b := flatbuffers.NewBuilder(64)
	b.Finish((&schema.Conv3DOptionsT{Padding: schema.PaddingVALID, StrideD: 1, StrideW: 2, StrideH: 3, DilationDFactor: 4,
		DilationWFactor: 5, DilationHFactor: 6, FusedActivationFunction: schema.ActivationFunctionTypeRELU}).Pack(b))
	buf := b.FinishedBytes()
	got, err := decodeConv3DOptions(ops.OptionsTable{Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
	want := Conv3DOptions{Padding: ops.PaddingValid, StrideD: 1, StrideH: 3, StrideW: 2, DilationDFactor: 4, DilationHFactor: 6, DilationWFactor: 5, Activation: ops.ActRelu}
	if o, ok := got.(*Conv3DOptions); err != nil || !ok || *o != want {
		t.Fatalf("decoded %#v, %v", got, err)
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for _, op := range []ops.BuiltinOperator{ops.OpConv3D, ops.OpConv3DTranspose} {
		if _, err := r.FindBuiltin(op, 1); err != nil {
			t.Errorf("operator %d version 1: %v", op, err)
		}
		if _, err := r.FindBuiltin(op, 2); err == nil {
			t.Errorf("operator %d version 2 registered", op)
		}
	}
}

func TestConv3DErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	opts := func() *Conv3DOptions {
		return &Conv3DOptions{StrideD: 1, StrideH: 1, StrideW: 1, DilationDFactor: 1, DilationHFactor: 1, DilationWFactor: 1}
	}
	conv := func(o *Conv3DOptions, x, w *ops.Tensor, extra ...*ops.Tensor) *ops.Node {
		return node(o, append([]*ops.Tensor{x, constT(w)}, extra...), outTensor(ops.Float32))
	}
	deconv := func(o *Conv3DOptions, shape, w, x *ops.Tensor) *ops.Node {
		return node(o, []*ops.Tensor{shape, constT(w), x}, outTensor(ops.Float32))
	}
	withO := func(f func(o *Conv3DOptions)) *Conv3DOptions { o := opts(); f(o); return o }
	cases := []struct {
		name  string
		k     ops.Kernel
		n     *ops.Node
		wants []string
	}{
		{"conv rank", NewConv3D(), conv(opts(), f32(1, 2, 2, 2), f32(1, 1, 1, 2, 3)), []string{"rank 4"}},
		{"conv filter rank", NewConv3D(), conv(opts(), f32(1, 2, 2, 2, 2), f32(1, 1, 2, 3)), []string{"filter", "rank 4"}},
		{"conv channels", NewConv3D(), conv(opts(), f32(1, 2, 2, 2, 2), f32(1, 1, 1, 3, 3)), []string{"3 input channels"}},
		{"conv stride 0", NewConv3D(), conv(withO(func(o *Conv3DOptions) { o.StrideD = 0 }), f32(1, 2, 2, 2, 2), f32(1, 1, 1, 2, 3)), []string{"depth stride 0"}},
		{"conv dilation 0", NewConv3D(), conv(withO(func(o *Conv3DOptions) { o.DilationWFactor = 0 }), f32(1, 2, 2, 2, 2), f32(1, 1, 1, 2, 3)), []string{"width dilation"}},
		{"conv no options", NewConv3D(), node(nil, []*ops.Tensor{f32(1, 2, 2, 2, 2), constT(f32(1, 1, 1, 2, 3))}, outTensor(ops.Float32)), []string{"stride 0"}},
		{"conv tanh", NewConv3D(), conv(withO(func(o *Conv3DOptions) { o.Activation = ops.ActTanh }), f32(1, 2, 2, 2, 2), f32(1, 1, 1, 2, 3)), []string{"TANH"}},
		{"conv bias", NewConv3D(), conv(opts(), f32(1, 2, 2, 2, 2), f32(1, 1, 1, 2, 3), f32(4)), []string{"4 elements"}},
		{"conv int8", NewConv3D(), conv(opts(), q(tensorOf(ops.Int8, []int{1, 1, 1, 1, 1}, []int8{1}), 1, 0), f32(1, 1, 1, 1, 1)), []string{"int8"}},
		{"conv filter too big", NewConv3D(), conv(withO(func(o *Conv3DOptions) { o.Padding = ops.PaddingValid }), f32(1, 2, 2, 2, 2), f32(4, 3, 3, 2, 3)), []string{"exceeds"}},
		{"deconv shape not constant", NewConv3DTranspose(), deconv(opts(), tensorOf(ops.Int32, []int{5}, []int32{1, 2, 2, 2, 3}), f32(1, 1, 1, 3, 2), f32(1, 2, 2, 2, 2)), []string{"input 0 (output_shape)", "must be a constant tensor"}},
		{"deconv shape length", NewConv3DTranspose(), deconv(opts(), c32(1, 2, 2, 2), f32(1, 1, 1, 3, 2), f32(1, 2, 2, 2, 2)), []string{"vector of 5"}},
		{"deconv negative", NewConv3DTranspose(), deconv(opts(), c32(1, -2, 2, 2, 3), f32(1, 1, 1, 3, 2), f32(1, 2, 2, 2, 2)), []string{"negative"}},
		{"deconv batch", NewConv3DTranspose(), deconv(opts(), c32(2, 2, 2, 2, 3), f32(1, 1, 1, 3, 2), f32(1, 2, 2, 2, 2)), []string{"batch 2"}},
		{"deconv channels", NewConv3DTranspose(), deconv(opts(), c32(1, 2, 2, 2, 4), f32(1, 1, 1, 3, 2), f32(1, 2, 2, 2, 2)), []string{"4 channels"}},
		{"deconv inconsistent", NewConv3DTranspose(), deconv(opts(), c32(1, 5, 2, 2, 3), f32(1, 1, 1, 3, 2), f32(1, 2, 2, 2, 2)), []string{"depth 2 does not match"}},
		{"deconv in channels", NewConv3DTranspose(), deconv(opts(), c32(1, 2, 2, 2, 3), f32(1, 1, 1, 3, 4), f32(1, 2, 2, 2, 2)), []string{"4 input channels"}},
		{"deconv huge", NewConv3DTranspose(), deconv(opts(), c32(1, 1<<12, 1<<12, 1<<12, 3), f32(1, 1, 1, 3, 2), f32(1, 2, 2, 2, 2)), []string{"elements"}},
		{"deconv stride 0", NewConv3DTranspose(), deconv(withO(func(o *Conv3DOptions) { o.StrideH = 0 }), c32(1, 2, 2, 2, 3), f32(1, 1, 1, 3, 2), f32(1, 2, 2, 2, 2)), []string{"height stride 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, c.k, c.n, c.wants...) })
	}
}
