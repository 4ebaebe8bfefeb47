package builtin_test

import (
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// CONV_3D and CONV_3D_TRANSPOSE against TensorFlow Lite's recorded
// outputs: SAME and VALID padding, strides, dilations, bias or none, fused
// activations, batches.

type conv3DGold struct {
	batch, inC, outC int
	in, f, s, dil    [3]int32
	out              [3]int32 // CONV_3D_TRANSPOSE: the output's spatial sizes
	pad              schema.Padding
	act              schema.ActivationFunctionType
	bias             bool
}

func (g conv3DGold) options() *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv3DOptions, Value: &schema.Conv3DOptionsT{
		Padding: g.pad, StrideD: g.s[0], StrideH: g.s[1], StrideW: g.s[2],
		DilationDFactor: g.dil[0], DilationHFactor: g.dil[1], DilationWFactor: g.dil[2], FusedActivationFunction: g.act}}
}

// conv3DOut is CONV_3D's output size for one dimension.
func conv3DOut(pad schema.Padding, in, f, s, d int32) int32 {
	if pad == schema.PaddingSAME {
		return (in + s - 1) / s
	}
	return (in + s - ((f-1)*d + 1)) / s
}

func (g conv3DGold) convModel(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	var out [3]int32
	for d := range out {
		out[d] = conv3DOut(g.pad, g.in[d], g.f[d], g.s[d], g.dil[d])
	}
	nw := int(g.f[0]*g.f[1]*g.f[2]) * g.inC * g.outC
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{int32(g.batch), g.in[0], g.in[1], g.in[2], int32(g.inC)}, nil)
	w := b.Const("filter", schema.TensorTypeFLOAT32, []int32{g.f[0], g.f[1], g.f[2], int32(g.inC), int32(g.outC)}, nil, optest.F32(goldF32(r, nw, -1, 1)...))
	ins := []int32{x, w}
	if g.bias {
		ins = append(ins, b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(g.outC)}, nil, optest.F32(goldF32(r, g.outC, -1, 1)...)))
	}
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{int32(g.batch), out[0], out[1], out[2], int32(g.outC)}, nil)
	return goldSingleOp(b, schema.BuiltinOperatorCONV_3D, 1, ins, []int32{y}, []int32{x}, g.options())
}

func (g conv3DGold) deconvModel(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	nw := int(g.f[0]*g.f[1]*g.f[2]) * g.inC * g.outC
	outS := []int32{int32(g.batch), g.out[0], g.out[1], g.out[2], int32(g.outC)}
	shape := b.Const("output_shape", schema.TensorTypeINT32, []int32{5}, nil, optest.I32(outS...))
	w := b.Const("filter", schema.TensorTypeFLOAT32, []int32{g.f[0], g.f[1], g.f[2], int32(g.outC), int32(g.inC)}, nil, optest.F32(goldF32(r, nw, -1, 1)...))
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{int32(g.batch), g.in[0], g.in[1], g.in[2], int32(g.inC)}, nil)
	ins := []int32{shape, w, x}
	if g.bias {
		ins = append(ins, b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(g.outC)}, nil, optest.F32(goldF32(r, g.outC, -1, 1)...)))
	}
	y := b.Tensor("y", schema.TensorTypeFLOAT32, outS, nil)
	return goldSingleOp(b, schema.BuiltinOperatorCONV_3D_TRANSPOSE, 1, ins, []int32{y}, []int32{x}, g.options())
}

func conv3DGoldVariants() []goldVariant {
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	none, relu, relu6 := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU, schema.ActivationFunctionTypeRELU6
	v := func(name string, g conv3DGold, seed uint64) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.convModel(seed) }}
	}
	t3 := func(a, b, c int32) [3]int32 { return [3]int32{a, b, c} }
	return []goldVariant{
		v("same_s1_bias", conv3DGold{batch: 1, inC: 3, outC: 5, in: t3(4, 5, 6), f: t3(3, 3, 3), s: t3(1, 1, 1), dil: t3(1, 1, 1), pad: same, act: none, bias: true}, 1),
		v("valid_s2_relu", conv3DGold{batch: 2, inC: 4, outC: 7, in: t3(5, 6, 5), f: t3(2, 3, 2), s: t3(2, 2, 1), dil: t3(1, 1, 1), pad: valid, act: relu, bias: true}, 2),
		v("same_dilated_nobias", conv3DGold{batch: 1, inC: 2, outC: 17, in: t3(5, 5, 6), f: t3(2, 2, 3), s: t3(1, 2, 2), dil: t3(2, 1, 2), pad: same, act: relu6}, 3),
		v("pointwise", conv3DGold{batch: 1, inC: 9, outC: 6, in: t3(2, 3, 4), f: t3(1, 1, 1), s: t3(1, 1, 1), dil: t3(1, 1, 1), pad: valid, act: none, bias: true}, 4),
	}
}

func conv3DTransposeGoldVariants() []goldVariant {
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	none, relu := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU
	v := func(name string, g conv3DGold, seed uint64) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.deconvModel(seed) }}
	}
	t3 := func(a, b, c int32) [3]int32 { return [3]int32{a, b, c} }
	return []goldVariant{
		v("same_s2_bias", conv3DGold{batch: 1, inC: 4, outC: 3, in: t3(2, 3, 3), out: t3(4, 6, 5), f: t3(3, 3, 3), s: t3(2, 2, 2), dil: t3(1, 1, 1), pad: same, act: none, bias: true}, 1),
		v("valid_s1_relu", conv3DGold{batch: 2, inC: 3, outC: 5, in: t3(3, 2, 3), out: t3(4, 4, 5), f: t3(2, 3, 3), s: t3(1, 1, 1), dil: t3(1, 1, 1), pad: valid, act: relu, bias: true}, 2),
		v("valid_dilated_nobias", conv3DGold{batch: 1, inC: 2, outC: 6, in: t3(2, 3, 2), out: t3(4, 5, 6), f: t3(2, 2, 2), s: t3(1, 1, 2), dil: t3(2, 2, 2), pad: valid, act: none}, 3),
		v("same_s1x2x3_odd", conv3DGold{batch: 1, inC: 7, outC: 9, in: t3(3, 2, 2), out: t3(3, 4, 5), f: t3(1, 3, 2), s: t3(1, 2, 3), dil: t3(1, 1, 1), pad: same, act: none, bias: true}, 4),
	}
}

func TestRecordConv3DGolden(t *testing.T) {
	goldRecord(t, "conv_3d", 4000, conv3DGoldVariants())
	goldRecord(t, "conv_3d_transpose", 4100, conv3DTransposeGoldVariants())
}

func TestConv3DGolden(t *testing.T) {
	optest.Check(t, filepath.Join("testdata", "conv_3d"), nil)
	optest.Check(t, filepath.Join("testdata", "conv_3d_transpose"), nil)
}
