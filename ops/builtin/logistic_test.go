package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Float vectors from TFLite's activations_test.cc (Sigmoid and Tanh
// float tests); the 8-bit tables are checked against float64 for every
// input value (within one step: the table is float32 arithmetic) and at
// points where the rounding is unambiguous.

func TestLogisticFloat(t *testing.T) {
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, softmaxIn)}, outTensor(ops.Float32))
	k := NewLogistic()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{1, 2, 4, 1})
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{0.5, 0.002473, 0.880797, 0.982014, 0.952574, 0.119203, 0.999955, 0.731059}, 1e-5)
	noAllocs(t, k, n)
}

func TestTanhFloat(t *testing.T) {
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, softmaxIn)}, outTensor(ops.Float32))
	k := NewTanh()
	run(t, k, n)
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{0, -0.9999877, 0.9640275, 0.999329, 0.99505475, -0.9640275, 1, 0.7615941}, 1e-5)
	noAllocs(t, k, n)
}

func checkLUTKernel(t *testing.T, newK func() ops.Kernel, f func(float64) float64, typ ops.DataType, inScale float32, inZP int64, outScale float32, outZP int64) {
	t.Helper()
	lo, hi, _ := ops.TypeRange(typ)
	var all []int32
	for v := lo; v <= hi; v++ {
		all = append(all, v)
	}
	var inT *ops.Tensor
	if typ == ops.Int8 {
		inT = tensorOf(ops.Int8, []int{len(all)}, toInt8(all))
	} else {
		inT = tensorOf(ops.Uint8, []int{len(all)}, toUint8(all))
	}
	n := node(nil, []*ops.Tensor{q(inT, inScale, inZP)}, q(outTensor(typ), outScale, outZP))
	k := newK()
	run(t, k, n)
	exact := 0
	for i, v := range all {
		real := f(float64(inScale) * float64(v-int32(inZP)))
		want := math.Min(math.Max(math.Round(real/float64(outScale))+float64(outZP), float64(lo)), float64(hi))
		var got float64
		if typ == ops.Int8 {
			got = float64(n.Outputs[0].Int8s()[i])
		} else {
			got = float64(n.Outputs[0].Uint8s()[i])
		}
		if math.Abs(got-want) > 1 {
			t.Fatalf("input %d: got %v, float64 reference %v", v, got, want)
		}
		if got == want {
			exact++
		}
	}
	if exact < len(all)-4 {
		t.Fatalf("only %d of %d table entries equal the float64 rounding", exact, len(all))
	}
	noAllocs(t, k, n)
}

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func TestLogisticQuantized(t *testing.T) {
	checkLUTKernel(t, NewLogistic, sigmoid64, ops.Int8, 20.0/255, 0, 1.0/256, -128)
	checkLUTKernel(t, NewLogistic, sigmoid64, ops.Uint8, 20.0/255, 128, 1.0/256, 0)
	// activations_test.cc SigmoidInt8: input range [-10, 10], exact
	// points: 0 → 0.5 → q 0 with zero point -128.
	n := node(nil, []*ops.Tensor{q(tensorOf(ops.Int8, []int{3}, []int8{0, 127, -128}), 10.0/128, 0)}, q(outTensor(ops.Int8), 1.0/256, -128))
	run(t, NewLogistic(), n)
	equalInts(t, "output", n.Outputs[0].Int8s(), []int{0, 127, -128})
}

func TestTanhQuantized(t *testing.T) {
	checkLUTKernel(t, NewTanh, math.Tanh, ops.Int8, 8.0/128, 0, 1.0/128, 0)
	checkLUTKernel(t, NewTanh, math.Tanh, ops.Uint8, 8.0/128, 128, 1.0/128, 128)
}

func TestActivationErrors(t *testing.T) {
	in := q(tensorOf(ops.Int8, []int{4}, make([]int8, 4)), 0.1, 0)
	wantPrepareError(t, NewLogistic(), node(nil, []*ops.Tensor{in}, q(outTensor(ops.Int8), 1.0/128, -128)), "output 0", "1/256")
	wantPrepareError(t, NewLogistic(), node(nil, []*ops.Tensor{in}, outTensor(ops.Uint8)), "output 0", "uint8")
	wantPrepareError(t, NewTanh(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{1})}, outTensor(ops.Int32)), "input 0", "int32")
	wantPrepareError(t, NewTanh(), node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{1}, []int8{1})}, q(outTensor(ops.Int8), 1, 0)), "input 0", "quantization")
}
