package interpreter

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// unaryGraph is a subgraph of one unary operator (opcode index op) on a
// float32 [2] tensor.
func unaryGraph(op uint32) *schema.SubGraphT {
	return &schema.SubGraphT{
		Tensors: []*schema.TensorT{
			{Name: "x", Shape: []int32{2}, Type: schema.TensorTypeFLOAT32},
			{Name: "y", Shape: []int32{2}, Type: schema.TensorTypeFLOAT32},
		},
		Inputs: []int32{0}, Outputs: []int32{1},
		Operators: []*schema.OperatorT{{OpcodeIndex: op, Inputs: []int32{0}, Outputs: []int32{1}}},
	}
}

// stablehloCallModel: subgraph 0 runs operator 0 (STABLEHLO_CASE with
// branches 1 = NEG, 2 = ABS on (index, x), or STABLEHLO_COMPOSITE whose
// decomposition is subgraph 1 on x).
func stablehloCallModel(composite bool) *schema.ModelT {
	codes := []*schema.OperatorCodeT{
		{BuiltinCode: schema.BuiltinOperatorSTABLEHLO_CASE, DeprecatedBuiltinCode: 127, Version: 1},
		{BuiltinCode: schema.BuiltinOperatorNEG, DeprecatedBuiltinCode: int8(schema.BuiltinOperatorNEG), Version: 1},
		{BuiltinCode: schema.BuiltinOperatorABS, DeprecatedBuiltinCode: int8(schema.BuiltinOperatorABS), Version: 1},
	}
	main := &schema.SubGraphT{
		Tensors: []*schema.TensorT{
			{Name: "index", Shape: []int32{}, Type: schema.TensorTypeINT32},
			{Name: "x", Shape: []int32{2}, Type: schema.TensorTypeFLOAT32},
			{Name: "out", Shape: []int32{2}, Type: schema.TensorTypeFLOAT32},
		},
		Inputs: []int32{0, 1}, Outputs: []int32{2},
		Operators: []*schema.OperatorT{{OpcodeIndex: 0, Inputs: []int32{0, 1}, Outputs: []int32{2},
			BuiltinOptions2: &schema.BuiltinOptions2T{Type: schema.BuiltinOptions2StablehloCaseOptions, Value: &schema.StablehloCaseOptionsT{BranchSubgraphIndices: []int32{1, 2}}}}},
	}
	if composite {
		codes[0].BuiltinCode = schema.BuiltinOperatorSTABLEHLO_COMPOSITE
		main.Tensors = main.Tensors[1:]
		main.Inputs, main.Outputs = []int32{0}, []int32{1}
		main.Operators = []*schema.OperatorT{{OpcodeIndex: 0, Inputs: []int32{0}, Outputs: []int32{1},
			BuiltinOptions2: &schema.BuiltinOptions2T{Type: schema.BuiltinOptions2StableHLOCompositeOptions, Value: &schema.StableHLOCompositeOptionsT{Name: "test.neg", DecompositionSubgraphIndex: 1, Version: 1}}}}
	}
	return &schema.ModelT{
		Version:       3,
		OperatorCodes: codes,
		Buffers:       []*schema.BufferT{{}},
		Subgraphs:     []*schema.SubGraphT{main, unaryGraph(1), unaryGraph(2)},
	}
}

func TestStablehloCase(t *testing.T) {
	it, err := New(mustLoad(t, stablehloCallModel(false)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	// Index 0 runs NEG, 1 ABS; out-of-range indices pick the last branch.
	for _, tc := range []struct {
		index int32
		want  [2]float32
	}{{0, [2]float32{1, -2}}, {1, [2]float32{1, 2}}, {-1, [2]float32{1, 2}}, {7, [2]float32{1, 2}}, {0, [2]float32{1, -2}}} {
		it.Input(0).Int32s()[0] = tc.index
		copy(it.Input(1).Float32s(), []float32{-1, 2})
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		if got := it.Output(0).Float32s(); got[0] != tc.want[0] || got[1] != tc.want[1] {
			t.Errorf("index %d: got %v, want %v", tc.index, got, tc.want)
		}
	}
}

func TestStablehloComposite(t *testing.T) {
	it, err := New(mustLoad(t, stablehloCallModel(true)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	copy(it.Input(0).Float32s(), []float32{-1, 2})
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got := it.Output(0).Float32s(); got[0] != 1 || got[1] != -2 {
		t.Errorf("got %v, want [1 -2]", got)
	}
}

// loadAllocErr is the first error of loading, creating an interpreter
// for and allocating m.
func loadAllocErr(m *schema.ModelT) error {
	model, err := LoadBytes(pack(m))
	if err != nil {
		return err
	}
	it, err := New(model, nil)
	if err != nil {
		return err
	}
	return it.AllocateTensors()
}

// TestStablehloCallsHostile: a branch index past the model's subgraphs
// and a decomposition with the wrong number of inputs are errors.
func TestStablehloCallsHostile(t *testing.T) {
	m := stablehloCallModel(false)
	m.Subgraphs[0].Operators[0].BuiltinOptions2.Value.(*schema.StablehloCaseOptionsT).BranchSubgraphIndices = []int32{1, 9}
	if err := loadAllocErr(m); err == nil || !strings.Contains(err.Error(), "9") {
		t.Errorf("branch subgraph 9: got %v, want an error naming it", err)
	}
	m = stablehloCallModel(false)
	m.Subgraphs[0].Operators[0].BuiltinOptions2.Value.(*schema.StablehloCaseOptionsT).BranchSubgraphIndices = nil
	if err := loadAllocErr(m); err == nil {
		t.Error("no branches: no error")
	}
	m = stablehloCallModel(true)
	m.Subgraphs[1].Inputs = []int32{0, 1}
	if err := loadAllocErr(m); err == nil {
		t.Error("decomposition with 2 inputs for 1 argument: no error")
	}
}
