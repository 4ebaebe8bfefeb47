package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of the custom NumericVerify (the differences of int8,
// uint8 and int16 tensors from their references, in the summarising
// mode and with a check that passes), and a run through the interpreter
// of a constant input, whose output TFLite computes once.

func numericVerifyCustomOptions(tol float32, logFailed bool) []byte {
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("tolerance")
	b.Float32(tol)
	b.Key("log_if_failed")
	b.Bool(logFailed)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return buf
}

func numericVerifyModel(typ schema.TensorType, q *optest.Quant, constData []byte, tol float32, logFailed bool, shape ...int32) []byte {
	b := optest.NewBuilder()
	var x int32
	if constData != nil {
		x = b.Const("x", typ, shape, q, constData)
	} else {
		x = b.Tensor("x", typ, shape, q)
	}
	ref := b.Tensor("ref", schema.TensorTypeFLOAT32, shape, nil)
	y := b.Tensor("diff", schema.TensorTypeFLOAT32, shape, nil)
	b.Custom("NumericVerify", []int32{x, ref}, []int32{y}, numericVerifyCustomOptions(tol, logFailed))
	if constData != nil {
		b.Inputs(ref)
	} else {
		b.Inputs(x, ref)
	}
	b.Outputs(y)
	return b.Bytes()
}

func numericVerifyVariants() []goldVariant {
	i8, u8, i16 := schema.TensorTypeINT8, schema.TensorTypeUINT8, schema.TensorTypeINT16
	exact := optest.Case{Exact: true}
	return []goldVariant{
		{name: "int8_stats", model: func() []byte {
			return numericVerifyModel(i8, optest.PerTensor(0.01, -3), nil, 5, false, 2, 20)
		}, tol: exact},
		{name: "uint8_checked", model: func() []byte {
			return numericVerifyModel(u8, optest.PerTensor(0.02, 128), nil, 1000, true, 3, 7)
		}, tol: exact},
		{name: "int16_stats", model: func() []byte {
			return numericVerifyModel(i16, optest.PerTensor(0.0001, 4), nil, 0.05, true, 30)
		}, tol: exact},
		{name: "int8_const", model: func() []byte {
			return numericVerifyModel(i8, optest.PerTensor(0.1, 0), optest.I8(-5, 0, 3, 9, 127, -128), 5, false, 6)
		}, tol: exact},
	}
}

func TestRecordNumericVerifyGolden(t *testing.T) {
	goldRecord(t, "numeric_verify", 4700, numericVerifyVariants())
}

func TestNumericVerifyGolden(t *testing.T) {
	goldCheckOrSmoke(t, "numeric_verify", numericVerifyVariants())
}

func TestNumericVerifyInterpreterConstant(t *testing.T) {
	m, err := interpreter.LoadBytes(numericVerifyModel(schema.TensorTypeINT8, optest.PerTensor(0.5, 0), optest.I8(2, 4), 1, false, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for run, ref := range [][]float32{{0.5, 1}, {10, 10}} {
		copy(it.Input(0).Float32s(), ref)
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		// The second Invoke returns the first one's differences.
		if got := it.Output(0).Float32s(); got[0] != 0.5 || got[1] != 1 {
			t.Fatalf("Invoke %d: %v, want [0.5 1]", run, got)
		}
	}
	// A failing check fails the Invoke, naming the operator.
	m2, err := interpreter.LoadBytes(numericVerifyModel(schema.TensorTypeINT8, optest.PerTensor(0.5, 0), nil, 1, true, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	it2, err := interpreter.New(m2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it2.Close()
	if err := it2.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	copy(it2.Input(0).Data, []byte{2, 0})
	copy(it2.Input(1).Float32s(), []float32{1, 3})
	if err := it2.Invoke(); err == nil {
		t.Fatal("Invoke passed a difference of 3 with tolerance 1 × scale 0.5")
	} else {
		t.Log(err)
	}
}
