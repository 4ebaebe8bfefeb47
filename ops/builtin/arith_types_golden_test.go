package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of the ADD, MUL, DIV and comparison types TFLite accepts
// beyond float32/int32/uint8: non-quantised int16 ADD and MUL (wrapping,
// then the activation's bounds), MUL's uint32, float16 (constant inputs:
// the case files' random inputs cannot draw it), quantised DIV for uint8,
// int8 and int16 (TFLite's DivElementwise), and float16 comparisons.
// complex64 and bfloat16 have no npy dtype; the unit tests cover them.

// binModel is a single binary operator with inputs a and b.
func binModel(code schema.BuiltinOperator, version int32, opts *schema.BuiltinOptionsT, a, b gIn, out gOut) []byte {
	return opModel(code, version, opts, []gIn{a, b}, []gOut{out})
}

func addOpts(act schema.ActivationFunctionType) *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{FusedActivationFunction: act}}
}

func mulOpts(act schema.ActivationFunctionType) *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{FusedActivationFunction: act}}
}

func divOpts(act schema.ActivationFunctionType) *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDivOptions, Value: &schema.DivOptionsT{FusedActivationFunction: act}}
}

// divisorNot draws input 1 uniformly over its type but never zp (a
// quantised zero divisor, which TFLite's kernel only debug-checks).
func divisorNot(zp int) optest.InputGen {
	return func(r *rand.Rand, input int, typ ops.DataType) float64 {
		for {
			v := optest.Uniform(r, input, typ)
			if input != 1 || int(v) != zp {
				return v
			}
		}
	}
}

func TestRecordAdd(t *testing.T) {
	i16, f16 := schema.TensorTypeINT16, schema.TensorTypeFLOAT16
	exact := optest.Case{Exact: true}
	recordGolden(t, "add", []goldenModel{
		{variant: "int16", tol: exact, model: binModel(schema.BuiltinOperatorADD, 5, addOpts(schema.ActivationFunctionTypeNONE), act(i16, 3, 5), act(i16, 3, 5), res(i16, 3, 5))},
		{variant: "int16_relu6_broadcast", tol: exact, model: binModel(schema.BuiltinOperatorADD, 5, addOpts(schema.ActivationFunctionTypeRELU6), act(i16, 2, 3, 4), act(i16, 1, 4), res(i16, 2, 3, 4))},
		{variant: "f16_const", runs: 1, tol: exact, model: binModel(schema.BuiltinOperatorADD, 6, addOpts(schema.ActivationFunctionTypeNONE),
			cst(f16, halfConsts(21, 12, false), 3, 4), cst(f16, halfConsts(22, 4, false), 4), res(f16, 3, 4))},
		{variant: "f16_const_relu", runs: 1, tol: exact, model: binModel(schema.BuiltinOperatorADD, 6, addOpts(schema.ActivationFunctionTypeRELU),
			cst(f16, halfConsts(23, 10, false), 2, 5), cst(f16, halfConsts(24, 10, false), 2, 5), res(f16, 2, 5))},
	})
}

func TestRecordMul(t *testing.T) {
	i16, u32, f16 := schema.TensorTypeINT16, schema.TensorTypeUINT32, schema.TensorTypeFLOAT16
	exact := optest.Case{Exact: true}
	recordGolden(t, "mul", []goldenModel{
		{variant: "int16", tol: exact, model: binModel(schema.BuiltinOperatorMUL, 7, mulOpts(schema.ActivationFunctionTypeNONE), act(i16, 4, 3), act(i16, 4, 3), res(i16, 4, 3))},
		{variant: "int16_relu_n1_to_1_broadcast", tol: exact, model: binModel(schema.BuiltinOperatorMUL, 7, mulOpts(schema.ActivationFunctionTypeRELU_N1_TO_1), act(i16, 3, 1, 5), act(i16, 2, 1), res(i16, 3, 2, 5))},
		{variant: "uint32", tol: exact, model: binModel(schema.BuiltinOperatorMUL, 7, mulOpts(schema.ActivationFunctionTypeNONE), act(u32, 2, 7), act(u32, 7), res(u32, 2, 7))},
		{variant: "uint32_relu6", tol: exact, model: binModel(schema.BuiltinOperatorMUL, 7, mulOpts(schema.ActivationFunctionTypeRELU6), act(u32, 9), act(u32, 9), res(u32, 9))},
		{variant: "f16_const", runs: 1, tol: exact, model: binModel(schema.BuiltinOperatorMUL, 8, mulOpts(schema.ActivationFunctionTypeNONE),
			cst(f16, halfConsts(31, 15, false), 3, 5), cst(f16, halfConsts(32, 5, false), 5), res(f16, 3, 5))},
	})
}

func TestRecordDiv(t *testing.T) {
	u8, i8, i16 := schema.TensorTypeUINT8, schema.TensorTypeINT8, schema.TensorTypeINT16
	exact := optest.Case{Exact: true}
	none, relu := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU
	qa, qb, qo := optest.PerTensor(0.05, 128), optest.PerTensor(0.02, 120), optest.PerTensor(0.1, 100)
	sa, sb, so := optest.PerTensor(0.04, -3), optest.PerTensor(0.03, 5), optest.PerTensor(0.25, -10)
	ha, hb, ho := optest.PerTensor(0.001, 0), optest.PerTensor(0.0005, 0), optest.PerTensor(0.002, 0)
	// A small quotient scale: s1/(s2·so) above 1, a multiplier shift the
	// other way.
	ta, tb, to := optest.PerTensor(0.5, 0), optest.PerTensor(0.01, 2), optest.PerTensor(0.8, -1)
	recordGolden(t, "div", []goldenModel{
		{variant: "uint8", tol: exact, gen: divisorNot(120), model: binModel(schema.BuiltinOperatorDIV, 2, divOpts(none), actQ(u8, qa, 3, 6), actQ(u8, qb, 3, 6), resQ(u8, qo, 3, 6))},
		{variant: "uint8_relu_broadcast", tol: exact, gen: divisorNot(120), model: binModel(schema.BuiltinOperatorDIV, 2, divOpts(relu), actQ(u8, qa, 2, 3, 4), actQ(u8, qb, 4), resQ(u8, qo, 2, 3, 4))},
		{variant: "int8", tol: exact, gen: divisorNot(5), model: binModel(schema.BuiltinOperatorDIV, 2, divOpts(none), actQ(i8, sa, 4, 5), actQ(i8, sb, 4, 5), resQ(i8, so, 4, 5))},
		{variant: "int8_large_multiplier", tol: exact, gen: divisorNot(2), model: binModel(schema.BuiltinOperatorDIV, 2, divOpts(none), actQ(i8, ta, 17), actQ(i8, tb, 17), resQ(i8, to, 17))},
		{variant: "int16", tol: exact, gen: divisorNot(0), model: binModel(schema.BuiltinOperatorDIV, 2, divOpts(none), actQ(i16, ha, 3, 7), actQ(i16, hb, 3, 7), resQ(i16, ho, 3, 7))},
		{variant: "int16_relu6_broadcast", tol: exact, gen: divisorNot(0), model: binModel(schema.BuiltinOperatorDIV, 2, divOpts(schema.ActivationFunctionTypeRELU6), actQ(i16, ha, 2, 6), actQ(i16, hb, 2, 1), resQ(i16, ho, 2, 6))},
	})
}

func TestRecordComparisonFloat16(t *testing.T) {
	f16, b := schema.TensorTypeFLOAT16, schema.TensorTypeBOOL
	exact := optest.Case{Exact: true}
	x, y := cst(f16, halfConsts(41, 12, false), 3, 4), cst(f16, halfConsts(42, 4, false), 4)
	// Ties: the first row holds the same half values on both sides.
	a8 := halfConsts(41, 8, false)
	same := cst(f16, a8, 2, 4)
	sameB := cst(f16, append(append([]byte{}, a8[:8]...), halfConsts(43, 4, false)...), 2, 4)
	var models []goldenModel
	for _, c := range []struct {
		name string
		code schema.BuiltinOperator
	}{
		{"less", schema.BuiltinOperatorLESS},
		{"less_equal", schema.BuiltinOperatorLESS_EQUAL},
		{"greater", schema.BuiltinOperatorGREATER},
		{"greater_equal", schema.BuiltinOperatorGREATER_EQUAL},
		{"equal", schema.BuiltinOperatorEQUAL},
		{"not_equal", schema.BuiltinOperatorNOT_EQUAL},
	} {
		models = append(models,
			goldenModel{variant: c.name + "_f16_broadcast", runs: 1, tol: exact, model: binModel(c.code, 1, nil, x, y, res(b, 3, 4))},
			goldenModel{variant: c.name + "_f16_ties", runs: 1, tol: exact, model: binModel(c.code, 1, nil, same, sameB, res(b, 2, 4))})
	}
	recordGolden(t, "comparison_f16", models)
}

func TestGoldenAdd(t *testing.T)               { checkGolden(t, "add") }
func TestGoldenMul(t *testing.T)               { checkGolden(t, "mul") }
func TestGoldenDiv(t *testing.T)               { checkGolden(t, "div") }
func TestGoldenComparisonFloat16(t *testing.T) { checkGolden(t, "comparison_f16") }
