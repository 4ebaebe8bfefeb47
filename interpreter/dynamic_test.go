package interpreter_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Dynamic tensors: models whose shapes are only known at Invoke, recorded
// against TensorFlow Lite under testdata/dynamic.

// flattenModel is what Keras' Flatten with a dynamic batch converts to:
// SHAPE → STRIDED_SLICE (the batch) → PACK (batch, 12) → RESHAPE →
// FULLY_CONNECTED.
func flattenModel(batch int32) []byte {
	r := rand.New(rand.NewPCG(11, 12))
	b := optest.NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{batch, 4, 3}, nil)
	b.SetSignature(x, []int32{-1, 4, 3})
	s := b.Tensor("shape", schema.TensorTypeINT32, []int32{3}, nil)
	b.Op(schema.BuiltinOperatorSHAPE, 1, []int32{x}, []int32{s}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsShapeOptions, Value: &schema.ShapeOptionsT{OutType: schema.TensorTypeINT32}})
	begin := b.Const("begin", schema.TensorTypeINT32, []int32{1}, nil, optest.I32(0))
	end := b.Const("end", schema.TensorTypeINT32, []int32{1}, nil, optest.I32(1))
	stride := b.Const("strides", schema.TensorTypeINT32, []int32{1}, nil, optest.I32(1))
	bt := b.Tensor("batch", schema.TensorTypeINT32, []int32{}, nil)
	b.Op(schema.BuiltinOperatorSTRIDED_SLICE, 1, []int32{s, begin, end, stride}, []int32{bt}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsStridedSliceOptions, Value: &schema.StridedSliceOptionsT{ShrinkAxisMask: 1}})
	twelve := b.Const("twelve", schema.TensorTypeINT32, []int32{}, nil, optest.I32(12))
	packed := b.Tensor("packed", schema.TensorTypeINT32, []int32{2}, nil)
	b.Op(schema.BuiltinOperatorPACK, 1, []int32{bt, twelve}, []int32{packed}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPackOptions, Value: &schema.PackOptionsT{ValuesCount: 2}})
	flat := b.Tensor("flat", schema.TensorTypeFLOAT32, []int32{batch, 12}, nil)
	b.SetSignature(flat, []int32{-1, 12})
	b.Op(schema.BuiltinOperatorRESHAPE, 1, []int32{x, packed}, []int32{flat}, nil)
	w := make([]float32, 5*12)
	for i := range w {
		w[i] = 2*r.Float32() - 1
	}
	wt := b.Const("w", schema.TensorTypeFLOAT32, []int32{5, 12}, nil, optest.F32(w...))
	bias := b.Const("bias", schema.TensorTypeFLOAT32, []int32{5}, nil, optest.F32(0.5, -0.25, 0, 1, -1))
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{batch, 5}, nil)
	b.SetSignature(y, []int32{-1, 5})
	b.Op(schema.BuiltinOperatorFULLY_CONNECTED, 1, []int32{flat, wt, bias}, []int32{y}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}})
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

// fillModel fills a tensor shaped like its input and adds the two:
// SHAPE → FILL → ADD.
func fillModel(batch int32) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{batch, 3}, nil)
	b.SetSignature(x, []int32{-1, 3})
	s := b.Tensor("shape", schema.TensorTypeINT32, []int32{2}, nil)
	b.Op(schema.BuiltinOperatorSHAPE, 1, []int32{x}, []int32{s}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsShapeOptions, Value: &schema.ShapeOptionsT{OutType: schema.TensorTypeINT32}})
	v := b.Const("value", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(0.25))
	f := b.Tensor("filled", schema.TensorTypeFLOAT32, []int32{batch, 3}, nil)
	b.SetSignature(f, []int32{-1, 3})
	b.Op(schema.BuiltinOperatorFILL, 1, []int32{s, v}, []int32{f}, nil)
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{batch, 3}, nil)
	b.SetSignature(y, []int32{-1, 3})
	b.Op(schema.BuiltinOperatorADD, 1, []int32{x, f}, []int32{y}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}})
	b.Inputs(x)
	b.Outputs(f, y)
	return b.Bytes()
}

// fillDimsModel fills a tensor of the dims given as its input.
func fillDimsModel() []byte {
	b := optest.NewBuilder()
	d := b.Tensor("dims", schema.TensorTypeINT32, []int32{2}, nil)
	v := b.Const("value", schema.TensorTypeFLOAT32, []int32{}, nil, optest.F32(1.5))
	f := b.Tensor("filled", schema.TensorTypeFLOAT32, []int32{1, 1}, nil)
	b.SetSignature(f, []int32{-1, -1})
	b.Op(schema.BuiltinOperatorFILL, 1, []int32{d, v}, []int32{f}, nil)
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{1, 1}, nil)
	b.SetSignature(y, []int32{-1, -1})
	b.Op(schema.BuiltinOperatorADD, 1, []int32{f, f}, []int32{y}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}})
	b.Inputs(d)
	b.Outputs(y)
	return b.Bytes()
}

// topkModel takes TOPK_V2 of a [2,10] input with k a model input.
func topkModel() []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{2, 10}, nil)
	k := b.Tensor("k", schema.TensorTypeINT32, []int32{}, nil)
	v := b.Tensor("values", schema.TensorTypeFLOAT32, []int32{2, 1}, nil)
	b.SetSignature(v, []int32{2, -1})
	ix := b.Tensor("indices", schema.TensorTypeINT32, []int32{2, 1}, nil)
	b.SetSignature(ix, []int32{2, -1})
	b.Op(schema.BuiltinOperatorTOPK_V2, 1, []int32{x, k}, []int32{v, ix}, nil)
	b.Inputs(x, k)
	b.Outputs(v, ix)
	return b.Bytes()
}

// resizeModel resizes a [1,3,4,2] image to a size computed from a model
// input: size = s + 2 (ADD feeds RESIZE_NEAREST_NEIGHBOR).
func resizeModel() []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{1, 3, 4, 2}, nil)
	s := b.Tensor("s", schema.TensorTypeINT32, []int32{2}, nil)
	two := b.Const("two", schema.TensorTypeINT32, []int32{}, nil, optest.I32(2))
	size := b.Tensor("size", schema.TensorTypeINT32, []int32{2}, nil)
	b.Op(schema.BuiltinOperatorADD, 1, []int32{s, two}, []int32{size}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}})
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{1, 1, 1, 2}, nil)
	b.SetSignature(y, []int32{1, -1, -1, 2})
	b.Op(schema.BuiltinOperatorRESIZE_NEAREST_NEIGHBOR, 1, []int32{x, size}, []int32{y}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsResizeNearestNeighborOptions, Value: &schema.ResizeNearestNeighborOptionsT{HalfPixelCenters: true}})
	b.Inputs(x, s)
	b.Outputs(y)
	return b.Bytes()
}

var dynamicModels = []struct {
	name    string
	model   func(batch int32) []byte
	batches []int
	gen     optest.InputGen
}{
	{"flatten", flattenModel, []int{1, 3, 7}, nil},
	{"fill", fillModel, []int{1, 4}, nil},
	// The dims are random input values; "batch" only numbers the cases.
	{"fill_dims", func(int32) []byte { return fillDimsModel() }, []int{1, 2, 3}, nil},
	{"topk_runtime_k", func(int32) []byte { return topkModel() }, []int{1, 2, 3}, nil},
	{"resize_runtime_size", func(int32) []byte { return resizeModel() }, []int{1, 2, 3}, nil},
}

func TestRecordDynamic(t *testing.T) {
	if os.Getenv(optest.RecordEnv) != "1" {
		t.Skipf("recording golden cases: run with %s=1 and %s=/path/to/tflite_ref", optest.RecordEnv, optest.RefEnv)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("testdata", "dynamic")
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for i, m := range dynamicModels {
		for k, batch := range m.batches {
			err := optest.RecordCases(ref, filepath.Join(root, m.name, fmt.Sprintf("batch%d", batch)), m.model(int32(batch)), 1, uint64(100*i+k), m.gen,
				optest.Case{Atol: 1e-5, Rtol: 1e-5})
			if err != nil {
				t.Fatalf("%s batch %d: %v", m.name, batch, err)
			}
		}
	}
}

func TestDynamicGolden(t *testing.T) {
	root := filepath.Join("testdata", "dynamic")
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("no recorded cases under %s: %v", root, err)
	}
	optest.Check(t, root, nil)
}

func loadBytes(t *testing.T, b []byte, opts *interpreter.Options) *interpreter.Interpreter {
	t.Helper()
	m, err := interpreter.LoadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	it, err := interpreter.New(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { it.Close(); m.Close() })
	return it
}

// TestDynamicInvokeAllocs checks that a deferred chain allocates nothing
// once its shapes are stable, and that a value-driven shape may grow and
// shrink from one Invoke to the next.
func TestDynamicInvokeAllocs(t *testing.T) {
	it := loadBytes(t, flattenModel(1), nil)
	if err := it.ResizeInputTensor(0, []int{3, 4, 3}); err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got := it.Output(0).Shape; len(got) != 2 || got[0] != 3 || got[1] != 5 {
		t.Fatalf("output shape %v, want [3 5]", got)
	}
	if a := testing.AllocsPerRun(20, func() {
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("Invoke allocates %v times once shapes are stable", a)
	}

	it = loadBytes(t, fillDimsModel(), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for _, dims := range [][]int32{{2, 3}, {4, 5}, {1, 1}, {0, 7}, {4, 5}} {
		copy(it.Input(0).Int32s(), dims)
		if err := it.Invoke(); err != nil {
			t.Fatalf("dims %v: %v", dims, err)
		}
		out := it.Output(0)
		if len(out.Shape) != 2 || out.Shape[0] != int(dims[0]) || out.Shape[1] != int(dims[1]) {
			t.Fatalf("dims %v: output shape %v", dims, out.Shape)
		}
		for i, v := range out.Float32s() {
			if v != 3 {
				t.Fatalf("dims %v: element %d is %v, want 3", dims, i, v)
			}
		}
	}
	grown := it.DynamicBytes()
	if a := testing.AllocsPerRun(20, func() {
		copy(it.Input(0).Int32s(), []int32{3, 2})
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("Invoke allocates %v times for a shape smaller than the largest seen", a)
	}
	if it.DynamicBytes() != grown {
		t.Fatalf("dynamic buffers grew from %d to %d bytes for a smaller shape", grown, it.DynamicBytes())
	}
}

// TestDynamicErrors: a value-driven shape past the memory bound, or
// invalid, is an error naming the operator and the shape.
func TestDynamicErrors(t *testing.T) {
	it := loadBytes(t, fillDimsModel(), &interpreter.Options{MaxArenaBytes: 1 << 20})
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dims  []int32
		frags []string
	}{
		{[]int32{1024, 1024}, []string{"FILL", "[1024 1024]", "memory bound"}},
		{[]int32{-1, 3}, []string{"FILL", "entry 0 is -1"}},
		{[]int32{1 << 30, 1 << 30}, []string{"FILL", "1073741824"}},
	} {
		copy(it.Input(0).Int32s(), tc.dims)
		err := it.Invoke()
		if err == nil {
			t.Fatalf("dims %v: Invoke succeeded", tc.dims)
		}
		for _, f := range tc.frags {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("dims %v: error %q does not name %q", tc.dims, err, f)
			}
		}
	}
	copy(it.Input(0).Int32s(), []int32{2, 2})
	if err := it.Invoke(); err != nil {
		t.Fatalf("after the errors: %v", err)
	}
}
