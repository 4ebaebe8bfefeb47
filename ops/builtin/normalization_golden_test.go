package builtin_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// L2_NORMALIZATION, L2_POOL_2D, LOCAL_RESPONSE_NORMALIZATION and GELU
// against TensorFlow Lite's recorded outputs, every type each takes.

// unaryGold is a one-input, one-output model.
func unaryGold(code schema.BuiltinOperator, version int32, typ schema.TensorType, inShape, outShape []int32, inQ, outQ *optest.Quant, opts *schema.BuiltinOptionsT) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", typ, inShape, inQ)
	y := b.Tensor("y", typ, outShape, outQ)
	return goldSingleOp(b, code, version, []int32{x}, []int32{y}, []int32{x}, opts)
}

// wideFloats draws floats over [-4, 4), so GELU's tails and L2 norms of
// various sizes are exercised.
func wideFloats(r *rand.Rand, _ int, typ ops.DataType) float64 {
	if typ == ops.Float32 {
		return 8*r.Float64() - 4
	}
	return optest.Uniform(r, 0, typ)
}

func l2NormGoldVariants() []goldVariant {
	exact := optest.Case{Exact: true}
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsL2NormOptions, Value: &schema.L2NormOptionsT{}}
	f32, u8, i8 := schema.TensorTypeFLOAT32, schema.TensorTypeUINT8, schema.TensorTypeINT8
	s := func(d ...int32) []int32 { return d }
	return []goldVariant{
		{name: "float_rank4", model: func() []byte {
			return unaryGold(schema.BuiltinOperatorL2_NORMALIZATION, 1, f32, s(2, 3, 2, 37), s(2, 3, 2, 37), nil, nil, opts)
		}, gen: wideFloats},
		{name: "float_rank2", model: func() []byte {
			return unaryGold(schema.BuiltinOperatorL2_NORMALIZATION, 1, f32, s(5, 128), s(5, 128), nil, nil, opts)
		}},
		{name: "uint8", model: func() []byte {
			return unaryGold(schema.BuiltinOperatorL2_NORMALIZATION, 1, u8, s(3, 4, 29), s(3, 4, 29), optest.PerTensor(0.05, 121), optest.PerTensor(1.0/128, 128), opts)
		}, tol: exact},
		{name: "int8", model: func() []byte {
			return unaryGold(schema.BuiltinOperatorL2_NORMALIZATION, 2, i8, s(6, 64), s(6, 64), optest.PerTensor(0.05, -3), optest.PerTensor(1.0/128, 0), opts)
		}, tol: exact},
		{name: "int8_rank1", model: func() []byte {
			return unaryGold(schema.BuiltinOperatorL2_NORMALIZATION, 2, i8, s(300), s(300), optest.PerTensor(0.1, 17), optest.PerTensor(1.0/128, 0), opts)
		}, tol: exact},
	}
}

func l2PoolGoldVariants() []goldVariant {
	pool := func(pad schema.Padding, sh, sw, fh, fw int32, act schema.ActivationFunctionType) *schema.BuiltinOptionsT {
		return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPool2DOptions, Value: &schema.Pool2DOptionsT{Padding: pad, StrideH: sh, StrideW: sw, FilterHeight: fh, FilterWidth: fw, FusedActivationFunction: act}}
	}
	f32 := schema.TensorTypeFLOAT32
	s := func(d ...int32) []int32 { return d }
	m := func(in, out []int32, o *schema.BuiltinOptionsT) func() []byte {
		return func() []byte { return unaryGold(schema.BuiltinOperatorL2_POOL_2D, 1, f32, in, out, nil, nil, o) }
	}
	return []goldVariant{
		{name: "valid_2x2_s2", model: m(s(1, 6, 8, 5), s(1, 3, 4, 5), pool(schema.PaddingVALID, 2, 2, 2, 2, schema.ActivationFunctionTypeNONE))},
		{name: "same_3x3_s2_relu6", model: m(s(2, 7, 5, 3), s(2, 4, 3, 3), pool(schema.PaddingSAME, 2, 2, 3, 3, schema.ActivationFunctionTypeRELU6)), gen: wideFloats},
		{name: "same_3x2_s1", model: m(s(1, 5, 6, 17), s(1, 5, 6, 17), pool(schema.PaddingSAME, 1, 1, 3, 2, schema.ActivationFunctionTypeNONE))},
		{name: "valid_3x3_s1x2_relu1", model: m(s(1, 6, 7, 4), s(1, 4, 3, 4), pool(schema.PaddingVALID, 1, 2, 3, 3, schema.ActivationFunctionTypeRELU_N1_TO_1))},
	}
}

func lrnGoldVariants() []goldVariant {
	lrn := func(radius int32, bias, alpha, beta float32) *schema.BuiltinOptionsT {
		return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsLocalResponseNormalizationOptions, Value: &schema.LocalResponseNormalizationOptionsT{Radius: radius, Bias: bias, Alpha: alpha, Beta: beta}}
	}
	f32 := schema.TensorTypeFLOAT32
	s := func(d ...int32) []int32 { return d }
	m := func(shape []int32, o *schema.BuiltinOptionsT) func() []byte {
		return func() []byte {
			return unaryGold(schema.BuiltinOperatorLOCAL_RESPONSE_NORMALIZATION, 1, f32, shape, shape, nil, nil, o)
		}
	}
	return []goldVariant{
		{name: "r2_beta075", model: m(s(1, 3, 4, 23), lrn(2, 1, 0.5, 0.75)), gen: wideFloats},
		{name: "r5_beta05", model: m(s(2, 2, 3, 16), lrn(5, 2, 1e-2, 0.5))},
		{name: "r1_beta1", model: m(s(1, 4, 4, 7), lrn(1, 1.5, 0.3, 1)), gen: wideFloats},
		{name: "radius_over_depth", model: m(s(1, 2, 2, 6), lrn(20, 0.5, 1, 0.6))},
	}
}

func geluGoldVariants() []goldVariant {
	g := func(approx bool) *schema.BuiltinOptionsT {
		return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsGeluOptions, Value: &schema.GeluOptionsT{Approximate: approx}}
	}
	exact := optest.Case{Exact: true}
	s := func(d ...int32) []int32 { return d }
	m := func(version int32, typ schema.TensorType, shape []int32, inQ, outQ *optest.Quant, approx bool) func() []byte {
		return func() []byte {
			return unaryGold(schema.BuiltinOperatorGELU, version, typ, shape, shape, inQ, outQ, g(approx))
		}
	}
	f32, i8, u8, i16 := schema.TensorTypeFLOAT32, schema.TensorTypeINT8, schema.TensorTypeUINT8, schema.TensorTypeINT16
	return []goldVariant{
		{name: "float_exact", model: m(1, f32, s(4, 50), nil, nil, false), gen: wideFloats},
		{name: "float_approximate", model: m(1, f32, s(4, 50), nil, nil, true), gen: wideFloats},
		{name: "int8_exact", model: m(2, i8, s(256), optest.PerTensor(0.03, -5), optest.PerTensor(0.02, -60), false), tol: exact, runs: 1, gen: allBytes()},
		{name: "int8_approximate", model: m(2, i8, s(256), optest.PerTensor(0.05, 10), optest.PerTensor(0.03, -90), true), tol: exact, runs: 1, gen: allBytes()},
		{name: "uint8_exact", model: m(2, u8, s(256), optest.PerTensor(0.04, 128), optest.PerTensor(0.025, 30), false), tol: exact, runs: 1, gen: allBytes()},
		{name: "uint8_approximate", model: m(2, u8, s(256), optest.PerTensor(0.02, 100), optest.PerTensor(0.02, 20), true), tol: exact, runs: 1, gen: allBytes()},
		{name: "int16_exact", model: m(1, i16, s(2000), optest.PerTensor(6.0/32768, 0), optest.PerTensor(6.0/32768, 0), false), tol: exact},
		{name: "int16_approximate", model: m(1, i16, s(2000), optest.PerTensor(4.0/32768, 0), optest.PerTensor(5.0/32768, 0), true), tol: exact},
	}
}

// allBytes makes the 256 elements of an int8 or uint8 input every value
// of the type, in a shuffled order, so the whole table is checked.
func allBytes() optest.InputGen {
	i := 0
	return func(r *rand.Rand, _ int, typ ops.DataType) float64 {
		v := (i*167 + 13) % 256 // 167 is odd: a permutation of 0..255
		i++
		if typ == ops.Int8 {
			return float64(v - 128)
		}
		return float64(v)
	}
}

func TestRecordNormalizationGolden(t *testing.T) {
	for _, c := range []struct {
		op       string
		seed     uint64
		variants []goldVariant
	}{
		{"l2_normalization", 3000, l2NormGoldVariants()},
		{"l2_pool_2d", 3100, l2PoolGoldVariants()},
		{"local_response_normalization", 3200, lrnGoldVariants()},
		{"gelu", 3300, geluGoldVariants()},
	} {
		goldRecord(t, c.op, c.seed, c.variants)
	}
}

func TestNormalizationGolden(t *testing.T) {
	for _, op := range []string{"l2_normalization", "l2_pool_2d", "local_response_normalization", "gelu"} {
		t.Run(op, func(t *testing.T) { optest.Check(t, filepath.Join("testdata", op), nil) })
	}
}
