package optest

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// addModel is x + [1, 2, 3] for float32 x of shape [1, 3].
func addModel() []byte {
	b := NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 3}, nil)
	c := b.Const("c", schema.TensorTypeFLOAT32, []int32{3}, nil, F32(1, 2, 3))
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{1, 3}, nil)
	b.Op(schema.BuiltinOperatorADD, 1, []int32{x, c}, []int32{y},
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}})
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

func TestCheckRoundTrip(t *testing.T) {
	dir := t.TempDir()
	mp := filepath.Join(dir, "model.tflite")
	if err := writeFile(mp, addModel()); err != nil {
		t.Fatal(err)
	}
	in := &npy.Array{Type: ops.Float32, Shape: []int{1, 3}, Data: F32(0.5, -1, 10)}
	want := &npy.Array{Type: ops.Float32, Shape: []int{1, 3}, Data: F32(1.5, 1, 13)}
	c := &Case{Dir: filepath.Join(dir, "run0"), Model: mp, Inputs: []*npy.Array{in}, Outputs: []*npy.Array{want}}
	if err := WriteCase(c); err != nil {
		t.Fatal(err)
	}
	back, err := LoadCase(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	if msg := Compare(back, 0, got[0], back.Outputs[0]); msg != "" {
		t.Fatal(msg)
	}
	Check(t, dir, nil)

	// A wrong recorded value must be caught, within and beyond tolerance.
	bad := &npy.Array{Type: ops.Float32, Shape: []int{1, 3}, Data: F32(1.5, 1, 13.001)}
	if msg := Compare(back, 0, got[0], bad); msg == "" {
		t.Fatal("a difference of 1e-3 passed")
	}
	close := &npy.Array{Type: ops.Float32, Shape: []int{1, 3}, Data: F32(1.5, 1, 13.0001)}
	if msg := Compare(back, 0, got[0], close); msg != "" {
		t.Fatalf("a difference within atol+rtol*13 failed: %s", msg)
	}
	back.Exact = true
	if msg := Compare(back, 0, got[0], close); msg == "" {
		t.Fatal("an exact case accepted a float difference")
	}
	ints := &npy.Array{Type: ops.Int8, Shape: []int{2}, Data: I8(1, 2)}
	if msg := Compare(back, 0, ints, &npy.Array{Type: ops.Int8, Shape: []int{2}, Data: I8(1, 3)}); msg == "" {
		t.Fatal("integer difference passed")
	}
	if msg := Compare(back, 0, ints, &npy.Array{Type: ops.Int8, Shape: []int{1, 2}, Data: I8(1, 2)}); msg == "" {
		t.Fatal("shape difference passed")
	}
}

func TestRandomInputsDeterministic(t *testing.T) {
	dir := t.TempDir()
	mp := filepath.Join(dir, "model.tflite")
	if err := writeFile(mp, addModel()); err != nil {
		t.Fatal(err)
	}
	a, err := RandomInputs(mp, 7, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RandomInputs(mp, 7, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(a[0].Data) != string(b[0].Data) || len(a[0].Data) != 12 {
		t.Fatalf("inputs differ or have the wrong size: %v %v", a[0].Data, b[0].Data)
	}
	c, _ := RandomInputs(mp, 8, nil, nil)
	if string(a[0].Data) == string(c[0].Data) {
		t.Fatal("another seed gave the same inputs")
	}
}

func TestHalfToFloat(t *testing.T) {
	for h, want := range map[uint16]float32{0x3c00: 1, 0xc000: -2, 0x0001: 5.9604645e-08, 0x7bff: 65504, 0x8000: 0} {
		if got := halfToFloat(h); got != want {
			t.Errorf("halfToFloat(%#x) = %v, want %v", h, got, want)
		}
	}
}

// TestCompareComplex: complex outputs are compared part by part within the
// float tolerance.
func TestCompareComplex(t *testing.T) {
	c := &Case{}
	want := &npy.Array{Type: ops.Complex64, Shape: []int{2}, Data: F32(1, -2, 3, 4)}
	near := &npy.Array{Type: ops.Complex64, Shape: []int{2}, Data: F32(1, -2, 3, 4.00001)}
	if msg := Compare(c, 0, near, want); msg != "" {
		t.Fatalf("a difference within tolerance failed: %s", msg)
	}
	far := &npy.Array{Type: ops.Complex64, Shape: []int{2}, Data: F32(1, -2.01, 3, 4)}
	if msg := Compare(c, 0, far, want); msg == "" {
		t.Fatal("an imaginary part 0.01 off passed")
	}
	w128 := &npy.Array{Type: ops.Complex128, Shape: []int{1}, Data: I64(0, 0)}
	g128 := &npy.Array{Type: ops.Complex128, Shape: []int{1}, Data: I64(0, int64(math.Float64bits(1)))}
	if msg := Compare(c, 0, g128, w128); msg == "" {
		t.Fatal("a complex128 difference of 1 passed")
	}
}
