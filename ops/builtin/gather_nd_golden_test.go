package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of GATHER_ND: element and slice gathers (nd from 1 to the
// params rank; nd 0 with slices to gather is an error in TFLite, which the
// unit tests check), an empty gather, every params type but bfloat16
// (which the npy case files cannot hold; the unit tests cover it), every
// index type, quantised params. Indexed dimensions all have size 4, so
// random indices in [0, 4) are in range.

// indicesBelow4 draws model input idxInput (the indices) in [0, 4) and the
// others uniformly.
func indicesBelow4(idxInput int) optest.InputGen {
	return func(r *rand.Rand, input int, typ ops.DataType) float64 {
		if input == idxInput {
			return float64(r.IntN(4))
		}
		return optest.Uniform(r, input, typ)
	}
}

func gatherNDModel(version int32, params gIn, indices gIn, outType schema.TensorType, q *optest.Quant, out ...int32) []byte {
	return opModel(schema.BuiltinOperatorGATHER_ND, version, nil, []gIn{params, indices}, []gOut{resQ(outType, q, out...)})
}

func TestRecordGatherND(t *testing.T) {
	f32, i32, i64, i16 := schema.TensorTypeFLOAT32, schema.TensorTypeINT32, schema.TensorTypeINT64, schema.TensorTypeINT16
	exact := optest.Case{Exact: true}
	q8 := optest.PerTensor(0.05, 3)
	gen := indicesBelow4(1)
	var idx4 []int32 // constant indices for constant-params variants
	for i := 0; i < 10; i++ {
		idx4 = append(idx4, int32(i*7%4))
	}
	recordGolden(t, "gather_nd", []goldenModel{
		{variant: "f32_elements", gen: gen, model: gatherNDModel(1, act(f32, 4, 4, 3), act(i32, 5, 2), f32, nil, 5, 3)},
		{variant: "f32_slices", gen: gen, model: gatherNDModel(1, act(f32, 4, 3, 2), act(i32, 2, 3, 1), f32, nil, 2, 3, 3, 2)},
		{variant: "f32_scalars_int64", gen: gen, model: gatherNDModel(1, act(f32, 4, 4, 4), act(i64, 6, 3), f32, nil, 6)},
		// nd 0 with slices to gather fails in TFLite (the unit tests
		// check tflrun's error); with no slices it is a no-op.
		{variant: "f32_no_slices", model: gatherNDModel(1, act(f32, 2, 3), act(i32, 0, 2), f32, nil, 0)},
		{variant: "int8", gen: gen, model: gatherNDModel(1, actQ(schema.TensorTypeINT8, q8, 4, 4, 5), act(i32, 3, 2), schema.TensorTypeINT8, q8, 3, 5), tol: exact},
		{variant: "uint8", gen: gen, model: gatherNDModel(1, act(schema.TensorTypeUINT8, 4, 9), act(i32, 2, 2, 1), schema.TensorTypeUINT8, nil, 2, 2, 9), tol: exact},
		{variant: "int16", gen: gen, model: gatherNDModel(3, act(i16, 4, 4, 2), act(i32, 3, 2), i16, nil, 3, 2), tol: exact},
		{variant: "int16_indices", gen: gen, model: gatherNDModel(4, act(f32, 4, 4), act(i16, 7, 2), f32, nil, 7)},
		{variant: "int32", gen: gen, model: gatherNDModel(1, act(i32, 4, 3), act(i32, 5, 1), i32, nil, 5, 3)},
		{variant: "int64", gen: gen, model: gatherNDModel(1, act(i64, 4, 4, 2), act(i64, 2, 2), i64, nil, 2, 2)},
		{variant: "bool", gen: gen, model: gatherNDModel(5, act(schema.TensorTypeBOOL, 4, 4, 3), act(i32, 4, 1), schema.TensorTypeBOOL, nil, 4, 4, 3)},
		{variant: "f16_const", gen: indicesBelow4(0), model: gatherNDModel(1, cst(schema.TensorTypeFLOAT16, halfConsts(5, 48, false), 4, 4, 3), act(i32, 5, 2), schema.TensorTypeFLOAT16, nil, 5, 3)},
		{variant: "const_indices", model: gatherNDModel(1, act(f32, 4, 4, 2), cst(i32, optest.I32(idx4...), 5, 2), f32, nil, 5, 2)},
	})
}

func TestGoldenGatherND(t *testing.T) { checkGolden(t, "gather_nd") }
