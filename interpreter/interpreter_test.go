package interpreter

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

func TestFullyConnectedModelRuns(t *testing.T) {
	it, err := New(mustLoad(t, fcModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); !errors.Is(err, ErrNotAllocated) {
		t.Fatalf("Invoke before AllocateTensors: got %v, want ErrNotAllocated", err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	x := [4]float32{1, -2, 0.5, 3}
	if err := it.Input(0).CopyFrom(x[:]); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	want := fcWant(x)
	got := it.Output(0).Float32s()
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			t.Errorf("output[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if !ops.SameShape(it.Output(0).Shape, []int{1, 3}) {
		t.Errorf("output shape %v, want [1 3]", it.Output(0).Shape)
	}
	if it.ArenaBytes() == 0 {
		t.Error("arena size 0 for a model with activations")
	}
}

func TestInputOutputByName(t *testing.T) {
	it, err := New(mustLoad(t, fcModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if i, err := it.InputIndex("input"); err != nil || i != 0 {
		t.Errorf("InputIndex(input) = %d, %v", i, err)
	}
	if i, err := it.OutputIndex("output"); err != nil || i != 0 {
		t.Errorf("OutputIndex(output) = %d, %v", i, err)
	}
	if _, err := it.InputIndex("nope"); err == nil || !strings.Contains(err.Error(), `"input"`) {
		t.Errorf("InputIndex(nope) error %v should list the inputs", err)
	}
	if it.Input(1) != nil || it.Output(-1) != nil {
		t.Error("out-of-range Input/Output should be nil")
	}
}

func TestCopyChecks(t *testing.T) {
	it, err := New(mustLoad(t, fcModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.Input(0).CopyFrom([]float32{1, 2, 3, 4}); err == nil {
		t.Error("CopyFrom before AllocateTensors should fail")
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src  any
		want string
	}{
		{[]float32{1, 2, 3}, "3 elements: the tensor has 4"},
		{[]int8{1, 2, 3, 4}, "[]int8: the tensor holds float32"},
		{"text", "cannot copy from a string"},
	} {
		err := it.Input(0).CopyFrom(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CopyFrom(%T): %v, want error containing %q", tc.src, err, tc.want)
		}
	}
	if err := it.Input(0).CopyFromBytes(make([]byte, 15)); err == nil {
		t.Error("CopyFromBytes of 15 bytes into a 16-byte tensor should fail")
	}
}

func TestResizeReplans(t *testing.T) {
	it, err := New(mustLoad(t, fcModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	small := it.ArenaBytes()
	if err := it.ResizeInputTensor(0, []int{5, 4}); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); !errors.Is(err, ErrNotAllocated) {
		t.Fatalf("Invoke after resize without AllocateTensors: %v", err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if !ops.SameShape(it.Output(0).Shape, []int{5, 3}) {
		t.Fatalf("output shape after resize %v, want [5 3]", it.Output(0).Shape)
	}
	if it.ArenaBytes() <= small {
		t.Errorf("arena did not grow: %d then %d", small, it.ArenaBytes())
	}
	in := make([]float32, 20)
	for i := range in {
		in[i] = float32(i%7) - 3
	}
	if err := it.Input(0).CopyFrom(in); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	out := it.Output(0).Float32s()
	for b := 0; b < 5; b++ {
		want := fcWant([4]float32(in[4*b : 4*b+4]))
		for r := 0; r < 3; r++ {
			if math.Abs(float64(out[3*b+r]-want[r])) > 1e-5 {
				t.Errorf("batch %d row %d: %v, want %v", b, r, out[3*b+r], want[r])
			}
		}
	}
	if err := it.ResizeInputTensor(0, []int{-1, 4}); err == nil {
		t.Error("negative dimension accepted")
	}
	if err := it.ResizeInputTensorStrict(0, []int{2, 4}); err == nil {
		t.Error("strict resize of a dimension without -1 in the signature accepted")
	}
}

func TestInvokeAllocatesNothing(t *testing.T) {
	it, err := New(mustLoad(t, lstmModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() { _ = it.Invoke() }); n != 0 {
		t.Errorf("Invoke allocates %v times per call, want 0", n)
	}
	it.SetProfiling(true)
	if n := testing.AllocsPerRun(50, func() { _ = it.Invoke() }); n != 0 {
		t.Errorf("profiled Invoke allocates %v times per call, want 0", n)
	}
	if p := it.Profile(); len(p) != 1 || p[0].Count == 0 || p[0].Name != "UNIDIRECTIONAL_SEQUENCE_LSTM" {
		t.Errorf("profile %+v", p)
	}
}

func TestVariableStatePersistsAndResets(t *testing.T) {
	it, err := New(mustLoad(t, lstmModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := it.Input(0).CopyFrom([]float32{0.5, -1, 1, 0.25}); err != nil {
		t.Fatal(err)
	}
	run := func() []float32 {
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), it.Output(0).Float32s()...)
	}
	first := run()
	second := run()
	if equalF32(first, second) {
		t.Fatal("second invoke equals the first: state did not persist")
	}
	it.ResetVariableTensors()
	if again := run(); !equalF32(first, again) {
		t.Fatalf("after ResetVariableTensors got %v, want the first run's %v", again, first)
	}
	state := it.Tensor(13)
	if state.Kind != ops.VariableTensor {
		t.Fatalf("tensor 13 kind %v, want variable", state.Kind)
	}
	it.ResetVariableTensors()
	for _, v := range state.Float32s() {
		if v != 0 {
			t.Fatal("float state not reset to zero")
		}
	}
}

func TestResetInt8VariableToZeroPoint(t *testing.T) {
	m := fcModel()
	sg := m.Subgraphs[0]
	sg.Tensors = append(sg.Tensors, &schema.TensorT{Name: "state", Shape: []int32{4}, Type: schema.TensorTypeINT8, IsVariable: true,
		Quantization: &schema.QuantizationParametersT{Scale: []float32{0.5}, ZeroPoint: []int64{-7}}},
		&schema.TensorT{Name: "state_u8", Shape: []int32{2}, Type: schema.TensorTypeUINT8, IsVariable: true,
			Quantization: &schema.QuantizationParametersT{Scale: []float32{0.5}, ZeroPoint: []int64{128}}})
	it, err := New(mustLoad(t, m), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for _, v := range it.Tensor(4).Int8s() {
		if v != -7 {
			t.Fatalf("int8 variable reset to %d, want its zero point -7", v)
		}
	}
	for _, v := range it.Tensor(5).Uint8s() {
		if v != 0 {
			t.Fatalf("uint8 variable reset to %d, want 0 as TFLite does", v)
		}
	}
}

func TestUnsupportedOperatorNamed(t *testing.T) {
	m := fcModel()
	m.OperatorCodes[0] = &schema.OperatorCodeT{BuiltinCode: schema.BuiltinOperatorBATCH_MATMUL, DeprecatedBuiltinCode: 126, Version: 1}
	it, err := New(mustLoad(t, m), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = it.AllocateTensors()
	if err == nil || !strings.Contains(err.Error(), "BATCH_MATMUL v1 (operator 0, subgraph 0)") {
		t.Fatalf("got %v, want an error naming BATCH_MATMUL v1, operator 0, subgraph 0", err)
	}

	m = fcModel()
	m.OperatorCodes[0].Version = 99
	it, err = New(mustLoad(t, m), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = it.AllocateTensors()
	if err == nil || !strings.Contains(err.Error(), "FULLY_CONNECTED v99") || !strings.Contains(err.Error(), "version 99 is not supported") {
		t.Fatalf("got %v, want an unsupported-version error", err)
	}

	m = fcModel()
	m.OperatorCodes[0] = &schema.OperatorCodeT{BuiltinCode: schema.BuiltinOperatorCUSTOM, DeprecatedBuiltinCode: 32, CustomCode: "MyOp", Version: 1}
	it, err = New(mustLoad(t, m), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = it.AllocateTensors()
	if err == nil || !strings.Contains(err.Error(), `custom operator "MyOp"`) {
		t.Fatalf("got %v, want an error naming the custom op", err)
	}
}

func TestCustomKernelRegistration(t *testing.T) {
	m := fcModel()
	m.OperatorCodes[0] = &schema.OperatorCodeT{BuiltinCode: schema.BuiltinOperatorCUSTOM, DeprecatedBuiltinCode: 32, CustomCode: "Double", Version: 1}
	m.Subgraphs[0].Operators[0].Inputs = []int32{0}
	m.Subgraphs[0].Operators[0].BuiltinOptions = nil
	m.Subgraphs[0].Tensors[3].Shape = []int32{1, 4}
	r := DefaultResolver()
	r.AddCustom("Double", func() ops.Kernel { return &doubleKernel{} })
	it, err := New(mustLoad(t, m), &Options{Resolver: r})
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	_ = it.Input(0).CopyFrom([]float32{1, 2, 3, 4})
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got := it.Output(0).Float32s(); !equalF32(got, []float32{2, 4, 6, 8}) {
		t.Fatalf("custom kernel output %v", got)
	}
}

// doubleKernel is a custom kernel for the registration test: y = 2x.
type doubleKernel struct{}

func (*doubleKernel) Prepare(n *ops.Node) error {
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	n.Outputs[0].Shape = append([]int(nil), n.Inputs[0].Shape...)
	return nil
}

func (*doubleKernel) Eval(n *ops.Node) error {
	out := n.Outputs[0].Float32s()
	for i, v := range n.Inputs[0].Float32s() {
		out[i] = 2 * v
	}
	return nil
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
