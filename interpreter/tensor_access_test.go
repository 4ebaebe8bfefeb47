package interpreter

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// The misuses a caller can make of tensors (issue 13): each ends in an
// error or a documented nil, never in a panic or a wrong answer. Run under
// -race in CI.

// allocatedFC returns an allocated interpreter of fcModel.
func allocatedFC(t *testing.T) *Interpreter {
	t.Helper()
	it, err := New(mustLoad(t, fcModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { it.Close() })
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	return it
}

func TestTypedViewsCheckType(t *testing.T) {
	it := allocatedFC(t)
	in := it.Input(0) // float32 [1, 4]
	if got := in.Float32s(); len(got) != 4 {
		t.Fatalf("Float32s of a float32 [1 4] input: %d elements, want 4", len(got))
	}
	for name, n := range map[string]int{
		"Int8s": len(in.Int8s()), "Uint8s": len(in.Uint8s()), "Int16s": len(in.Int16s()),
		"Uint16s": len(in.Uint16s()), "Int32s": len(in.Int32s()), "Uint32s": len(in.Uint32s()),
		"Int64s": len(in.Int64s()), "Uint64s": len(in.Uint64s()), "Float64s": len(in.Float64s()),
		"Bools": len(in.Bools()),
	} {
		if n != 0 {
			t.Errorf("%s of a float32 tensor: %d elements, want nil", name, n)
		}
	}
	if in.Int8s() != nil {
		t.Error("Int8s of a float32 tensor is not nil")
	}
	if _, err := Elements[int8](in); err == nil || !strings.Contains(err.Error(), "holds float32") {
		t.Errorf("Elements[int8] of a float32 tensor: %v, want an error naming float32", err)
	}
	if v, err := Elements[float32](in); err != nil || len(v) != 4 {
		t.Errorf("Elements[float32]: %d elements, %v", len(v), err)
	}
	data := in.Data
	in.Data = in.Data[:8]
	if _, err := Elements[float32](in); err == nil || !strings.Contains(err.Error(), "Data holds 8 bytes but the shape needs 16") {
		t.Errorf("Elements of a shortened Data: %v", err)
	}
	in.Data = data
	if _, err := Elements[float32](nil); err == nil {
		t.Error("Elements of a nil tensor: no error")
	}
	if err := in.CopyFrom([]int8{1, 2, 3, 4}); err == nil || !strings.Contains(err.Error(), "holds float32") {
		t.Errorf("CopyFrom []int8 into float32: %v", err)
	}
	if err := in.CopyFrom([]float32{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "3 elements") {
		t.Errorf("CopyFrom 3 of 4 elements: %v", err)
	}
	if err := it.Output(0).CopyTo(make([]float32, 2)); err == nil {
		t.Error("CopyTo a 2-element slice from a 3-element output: no error")
	}
	if err := in.CopyFrom("1234"); err == nil {
		t.Error("CopyFrom a string: no error")
	}

	// Before AllocateTensors the views are nil and Elements says why.
	it2, err := New(it.Model(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it2.Close()
	if it2.Input(0).Float32s() != nil {
		t.Error("Float32s before AllocateTensors is not nil")
	}
	if _, err := Elements[float32](it2.Input(0)); err == nil || !strings.Contains(err.Error(), "not allocated") {
		t.Errorf("Elements before AllocateTensors: %v", err)
	}
}

func TestInputOutputOutOfRange(t *testing.T) {
	it := allocatedFC(t)
	for _, i := range []int{-1, 1, math.MaxInt - 200} {
		if it.Input(i) != nil || it.Output(i) != nil {
			t.Errorf("Input/Output(%d) not nil", i)
		}
		if _, err := it.InputTensor(i); err == nil || !strings.Contains(err.Error(), "has 1") {
			t.Errorf("InputTensor(%d): %v", i, err)
		}
		if _, err := it.OutputTensor(i); err == nil || !strings.Contains(err.Error(), "has 1") {
			t.Errorf("OutputTensor(%d): %v", i, err)
		}
		if it.Tensor(i+100) != nil {
			t.Errorf("Tensor(%d) not nil", i+100)
		}
		if err := it.ResizeInputTensor(i, []int{1, 4}); err == nil {
			t.Errorf("ResizeInputTensor(%d): no error", i)
		}
	}
	if tt, err := it.InputTensor(0); err != nil || tt.Name != "input" {
		t.Errorf("InputTensor(0) = %v, %v", tt, err)
	}
	if tt, err := it.OutputByName("output"); err != nil || tt != it.Output(0) {
		t.Errorf("OutputByName(output) = %v, %v", tt, err)
	}
	if _, err := it.InputByName("nope"); err == nil || !strings.Contains(err.Error(), `"input"`) {
		t.Errorf("InputByName(nope): %v, want the input names listed", err)
	}
}

// TestInvokeRefusesMutatedInputs: changing an input's Shape, Type or Data
// behind the interpreter's back makes Invoke fail naming the input; the
// interpreter works again once the input is put back.
func TestInvokeRefusesMutatedInputs(t *testing.T) {
	it := allocatedFC(t)
	in := it.Input(0)
	if err := in.CopyFrom([]float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	want := fcWant([4]float32{1, 2, 3, 4})
	shape, data := in.Shape, in.Data
	cases := []struct {
		name, msg string
		mutate    func()
	}{
		{"shape grown", "Shape was changed", func() { in.Shape = []int{1, 400} }},
		{"shape in place", "Shape was changed", func() { in.Shape = []int{2, 2} }},
		{"rank", "Shape was changed", func() { in.Shape = []int{4} }},
		{"data shortened", "Data holds 8 bytes", func() { in.Data = in.Data[:8] }},
		{"data nil", "Data holds 0 bytes", func() { in.Data = nil }},
		{"data replaced", "Data was replaced", func() { in.Data = make([]byte, 16) }},
		{"type", "Type was changed", func() { in.Type = Int32 }},
	}
	for _, c := range cases {
		c.mutate()
		err := it.Invoke()
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), `"input"`) {
			t.Errorf("%s: Invoke = %v, want an error with %q naming the input", c.name, err, c.msg)
		}
		if errors.Is(err, ErrPanic) {
			t.Errorf("%s: a kernel panicked: %v", c.name, err)
		}
		in.Shape, in.Data, in.Type = shape, data, Float32
	}
	if err := it.Invoke(); err != nil {
		t.Fatalf("Invoke after restoring the input: %v", err)
	}
	for i, v := range it.Output(0).Float32s() {
		if v != want[i] {
			t.Fatalf("output %d = %v, want %v", i, v, want[i])
		}
	}

	// The sanctioned way to change a shape still works.
	if err := it.ResizeInputTensor(0, []int{2, 4}); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); !errors.Is(err, ErrNotAllocated) {
		t.Fatalf("Invoke after a resize: %v, want ErrNotAllocated", err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := it.Input(0).CopyFrom([]float32{1, 2, 3, 4, 1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if n := len(it.Output(0).Float32s()); n != 6 {
		t.Errorf("output of a [2 4] input has %d elements, want 6", n)
	}
}

// TestInvokeCheckAllocatesNothing: the input check keeps Invoke free of
// heap allocations.
func TestInvokeCheckAllocatesNothing(t *testing.T) {
	it := allocatedFC(t)
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() { _ = it.Invoke() }); n != 0 {
		t.Errorf("Invoke allocates %v times per call", n)
	}
}

// TestDataTypeReexports: interpreter's type constants are ops' values.
func TestDataTypeReexports(t *testing.T) {
	var d DataType = Int8
	if d.String() != "int8" || Float32.Size() != 4 || BFloat16.String() != "bfloat16" {
		t.Errorf("re-exported types: %v %v %v", d, Float32.Size(), BFloat16)
	}
}
