package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of the custom aeq.hadamard_rotation (float32 and int32
// bits, TFLite's plain and chunked sizes), and a run through the
// interpreter that checks TFLite's all-ones impulse.

func hadamardCustomOptions(size int) []byte {
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("hadamard_size")
	b.Int(int64(size))
	b.Key("random_binary_vector")
	v := b.StartVector()
	for i := 0; i < size; i++ {
		b.Int(1)
	}
	b.EndVector(v, false, false)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return buf
}

func hadamardModel(typ schema.TensorType, size int, shape ...int32) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", typ, shape, nil)
	y := b.Tensor("y", typ, shape, nil)
	b.Custom("aeq.hadamard_rotation", []int32{x}, []int32{y}, hadamardCustomOptions(size))
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

func hadamardVariants() []goldVariant {
	f32, i32 := schema.TensorTypeFLOAT32, schema.TensorTypeINT32
	exact := optest.Case{Exact: true}
	return []goldVariant{
		{name: "f32_rank3_32", model: func() []byte { return hadamardModel(f32, 32, 2, 3, 64) }, tol: exact},
		{name: "f32_chunked_128", model: func() []byte { return hadamardModel(f32, 128, 1, 256) }, tol: exact},
		{name: "f32_partial_rows", model: func() []byte { return hadamardModel(f32, 8, 3, 20) }, tol: exact},
		{name: "int32_bits", model: func() []byte { return hadamardModel(i32, 4, 2, 8) }, tol: exact},
	}
}

func TestRecordHadamardRotationGolden(t *testing.T) {
	goldRecord(t, "hadamard_rotation", 4600, hadamardVariants())
}

func TestHadamardRotationGolden(t *testing.T) {
	goldCheckOrSmoke(t, "hadamard_rotation", hadamardVariants())
}

func TestHadamardRotationInterpreter(t *testing.T) {
	m, err := interpreter.LoadBytes(hadamardModel(schema.TensorTypeFLOAT32, 64, 1, 128))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, &interpreter.Options{NumThreads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	x := it.Input(0).Float32s()
	for i := range x {
		x[i] = 1
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	for i, v := range it.Output(0).Float32s() {
		want := float32(0)
		if i%64 == 0 {
			want = 8 // 64 ones × float32(1/√64)
		}
		if v != want {
			t.Fatalf("element %d: %v, want %v", i, v, want)
		}
	}
}
