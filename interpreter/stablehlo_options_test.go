package interpreter

import (
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// TestStablehloPadModel runs a STABLEHLO_PAD whose options are in the
// operator's second options union (builtin_options_2): input [1, 2, 3]
// padded with a constant 7 by low 1, high -1, interior 1 gives
// [7 1 7 2 7] (the full [7 1 7 2 7 3] without its last element).
func TestStablehloPadModel(t *testing.T) {
	m := &schema.ModelT{
		Version:       3,
		OperatorCodes: []*schema.OperatorCodeT{{BuiltinCode: schema.BuiltinOperatorSTABLEHLO_PAD, DeprecatedBuiltinCode: 127, Version: 1}},
		Buffers:       []*schema.BufferT{{}, {Data: f32bytes(7)}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "input", Shape: []int32{3}, Type: schema.TensorTypeFLOAT32},
				{Name: "pad", Shape: []int32{}, Type: schema.TensorTypeFLOAT32, Buffer: 1},
				{Name: "output", Shape: []int32{5}, Type: schema.TensorTypeFLOAT32},
			},
			Inputs:  []int32{0},
			Outputs: []int32{2},
			Operators: []*schema.OperatorT{{
				OpcodeIndex: 0, Inputs: []int32{0, 1}, Outputs: []int32{2},
				BuiltinOptions2: &schema.BuiltinOptions2T{Type: schema.BuiltinOptions2StablehloPadOptions, Value: &schema.StablehloPadOptionsT{
					EdgePaddingLow: []int64{1}, EdgePaddingHigh: []int64{-1}, InteriorPadding: []int64{1},
				}},
			}},
		}},
	}
	it, err := New(mustLoad(t, m), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	copy(it.Input(0).Float32s(), []float32{1, 2, 3})
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	got := it.Output(0).Float32s()
	want := []float32{7, 1, 7, 2, 7}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
