package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/internal/sparse"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of FULLY_CONNECTED with sparse weights (version 8: float32
// random and 1×4 blocks, int8 1×16 blocks, hybrid 1×16 blocks) and with
// the shuffled 4×16 uint8 weights format (version 2), recorded from
// TensorFlow Lite's builtin kernels.

// sparseFCModel is one FULLY_CONNECTED of input [batch, cols] with sparse
// weights [units, cols] (about density of the values non-zero) and a
// bias. in, w, bias and out give the types and quantisation.
func sparseFCModel(seed uint64, batch, units, cols, block int, wType schema.TensorType, in, wq, bq, out *optest.Quant, inType, outType schema.TensorType) []byte {
	r := rand.New(rand.NewPCG(seed, 8))
	dense, elem := sparseValues(r, units*cols, wType, 0.4)
	l := sparseLayout{traversal: []int{0, 1}, formats: []sparse.Format{sparse.Dense, sparse.SparseCSR}, index: schema.SparseIndexVectorInt32Vector}
	if block > 1 {
		l = sparseLayout{traversal: []int{0, 1, 2}, blockMap: []int{1}, blockSizes: []int{block},
			formats: []sparse.Format{sparse.Dense, sparse.SparseCSR, sparse.Dense}, index: schema.SparseIndexVectorUint8Vector}
	}
	b := optest.NewBuilder()
	x := b.Tensor("x", inType, []int32{int32(batch), int32(cols)}, in)
	w := sparseConst(b, "weights", wType, []int32{int32(units), int32(cols)}, wq, dense, elem, l)
	var bias int32
	if bq != nil {
		v := make([]int32, units)
		for i := range v {
			v[i] = int32(r.IntN(2001) - 1000)
		}
		bias = b.Const("bias", schema.TensorTypeINT32, []int32{int32(units)}, bq, optest.I32(v...))
	} else {
		v := make([]float32, units)
		for i := range v {
			v[i] = float32(r.Float64() - 0.5)
		}
		bias = b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(units)}, nil, optest.F32(v...))
	}
	y := b.Tensor("y", outType, []int32{int32(batch), int32(units)}, out)
	b.Op(schema.BuiltinOperatorFULLY_CONNECTED, 8, []int32{x, w, bias}, []int32{y}, &schema.BuiltinOptionsT{
		Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeRELU}})
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

// shuffledFCModel is FULLY_CONNECTED version 2: uint8 input [batch, cols]
// (zero point 128), uint8 weights [units, cols] in the shuffled 4×16
// layout, int32 bias, int16 output, and the uint8 workspace output.
func shuffledFCModel(seed uint64, batch, units, cols int) []byte {
	r := rand.New(rand.NewPCG(seed, 9))
	w := make([]byte, units*cols)
	for i := range w {
		w[i] = byte(r.IntN(256)) // already shuffled and sign-flipped: any bytes
	}
	bias := make([]int32, units)
	for i := range bias {
		bias[i] = int32(r.IntN(32769) - 16384)
	}
	b := optest.NewBuilder()
	u8 := schema.TensorTypeUINT8
	x := b.Tensor("x", u8, []int32{int32(batch), int32(cols)}, optest.PerTensor(1.0/128, 128))
	wt := b.Const("weights", u8, []int32{int32(units), int32(cols)}, optest.PerTensor(1.0/128, 128), w)
	bt := b.Const("bias", schema.TensorTypeINT32, []int32{int32(units)}, optest.PerTensor(1.0/16384, 0), optest.I32(bias...))
	y := b.Tensor("y", schema.TensorTypeINT16, []int32{int32(batch), int32(units)}, optest.PerTensor(1.0/4096, 0))
	ws := b.Tensor("workspace", u8, []int32{int32(batch), int32(cols)}, nil)
	b.Op(schema.BuiltinOperatorFULLY_CONNECTED, 2, []int32{x, wt, bt}, []int32{y, ws}, &schema.BuiltinOptionsT{
		Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{WeightsFormat: schema.FullyConnectedOptionsWeightsFormatSHUFFLED4x16INT8}})
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

func fcGapCases() []goldenModel {
	f32, i8 := schema.TensorTypeFLOAT32, schema.TensorTypeINT8
	return []goldenModel{
		{variant: "sparse_f32_random", model: sparseFCModel(1, 3, 7, 24, 1, f32, nil, nil, nil, nil, f32, f32), tol: optest.Case{Exact: true}},
		{variant: "sparse_f32_1x4", model: sparseFCModel(2, 2, 9, 64, 4, f32, nil, nil, nil, nil, f32, f32), tol: optest.Case{Exact: true}},
		{variant: "sparse_int8_1x16", model: sparseFCModel(3, 3, 6, 64, 16, i8, optest.PerTensor(0.05, 3), optest.PerTensor(0.02, 0),
			optest.PerTensor(0.001, 0), optest.PerTensor(0.04, -2), i8, i8)},
		{variant: "sparse_hybrid_1x16", model: sparseFCModel(4, 2, 5, 48, 16, i8, nil, optest.PerTensor(0.02, 0), nil, nil, f32, f32)},
		{variant: "shuffled_batch1", model: shuffledFCModel(5, 1, 8, 32)},
		{variant: "shuffled_batch4", model: shuffledFCModel(6, 4, 12, 48)},
	}
}

func TestRecordFullyConnectedGaps(t *testing.T) {
	recordGoldenFrom(t, "fully_connected_gaps", fcGapCases(), 11)
}
func TestGoldenFullyConnectedGaps(t *testing.T) { checkGolden(t, "fully_connected_gaps") }
