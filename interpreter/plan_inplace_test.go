package interpreter

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/tflrun/tflrun/schema"
)

// reshapeChainModel is x → ADD(x, x) → a → RESHAPE → b → SQUEEZE → c →
// ADD(c, c) → y1, ADD(y1, c) → y on a [1, 2, 3] float32 input. With alsoRead, a is read
// again after the first RESHAPE (a second RESHAPE of it, a6, and the
// last ADD is ADD(c, a6)), which forbids the first RESHAPE's output to
// share a's buffer.
func reshapeChainModel(alsoRead bool) *schema.ModelT {
	f32 := schema.TensorTypeFLOAT32
	i32 := schema.TensorTypeINT32
	tensors := []*schema.TensorT{
		{Name: "x", Shape: []int32{1, 2, 3}, Type: f32},
		{Name: "a", Shape: []int32{1, 2, 3}, Type: f32},
		{Name: "shape", Shape: []int32{3}, Type: i32, Buffer: 1},
		{Name: "b", Shape: []int32{1, 6, 1}, Type: f32},
		{Name: "c", Shape: []int32{6}, Type: f32},
		{Name: "y", Shape: []int32{6}, Type: f32},
		{Name: "shape6", Shape: []int32{1}, Type: i32, Buffer: 2},
		{Name: "a6", Shape: []int32{6}, Type: f32},
	}
	ops := []*schema.OperatorT{
		{OpcodeIndex: 0, Inputs: []int32{0, 0}, Outputs: []int32{1}},
		{OpcodeIndex: 1, Inputs: []int32{1, 2}, Outputs: []int32{3}},
		{OpcodeIndex: 2, Inputs: []int32{3}, Outputs: []int32{4},
			BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSqueezeOptions, Value: &schema.SqueezeOptionsT{SqueezeDims: []int32{0, 2}}}},
	}
	if alsoRead {
		ops = append(ops,
			&schema.OperatorT{OpcodeIndex: 1, Inputs: []int32{1, 6}, Outputs: []int32{7}},
			&schema.OperatorT{OpcodeIndex: 0, Inputs: []int32{4, 7}, Outputs: []int32{5}})
	} else {
		// y1 = ADD(c, c), y = ADD(y1, c): c must outlive y1's write,
		// so the shared buffer's lifetime must cover the chain's end.
		ops = append(ops,
			&schema.OperatorT{OpcodeIndex: 0, Inputs: []int32{4, 4}, Outputs: []int32{7}},
			&schema.OperatorT{OpcodeIndex: 0, Inputs: []int32{7, 4}, Outputs: []int32{5}})
	}
	return &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{
			{BuiltinCode: schema.BuiltinOperatorADD, DeprecatedBuiltinCode: 0, Version: 1},
			{BuiltinCode: schema.BuiltinOperatorRESHAPE, DeprecatedBuiltinCode: 22, Version: 1},
			{BuiltinCode: schema.BuiltinOperatorSQUEEZE, DeprecatedBuiltinCode: 43, Version: 1},
		},
		Buffers:   []*schema.BufferT{{}, {Data: i32bytes([]int32{1, 6, 1})}, {Data: i32bytes([]int32{6})}},
		Subgraphs: []*schema.SubGraphT{{Tensors: tensors, Inputs: []int32{0}, Outputs: []int32{5}, Operators: ops}},
	}
}

// TestInPlaceReshape checks that RESHAPE and SQUEEZE outputs share their
// input's buffer when the operator is the input's last reader (so nothing
// is copied), that they do not when a later operator still reads the
// input, and that the outputs are right either way, at every Invoke.
func TestInPlaceReshape(t *testing.T) {
	for _, alsoRead := range []bool{false, true} {
		it, err := New(mustLoad(t, reshapeChainModel(alsoRead)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		ts := it.sg.tensors
		same := func(i, j int) bool { return unsafe.SliceData(ts[i].Data) == unsafe.SliceData(ts[j].Data) }
		if got, want := same(1, 3), !alsoRead; got != want {
			t.Errorf("alsoRead %v: RESHAPE output shares its input's buffer: %v, want %v", alsoRead, got, want)
		}
		if !same(3, 4) {
			t.Errorf("alsoRead %v: SQUEEZE (last reader of its input) copies instead of sharing", alsoRead)
		}
		for round := range 3 {
			x := it.Input(0).Float32s()
			for i := range x {
				x[i] = float32(i*i+round) - 3
			}
			if err := it.Invoke(); err != nil {
				t.Fatal(err)
			}
			want := make([]float32, 6)
			for i := range want {
				a := x[i] + x[i]
				want[i] = a + a
				if !alsoRead {
					want[i] += a
				}
			}
			if got := it.Output(0).Float32s(); !slices.Equal(got, want) {
				t.Fatalf("alsoRead %v, round %d: output %v, want %v", alsoRead, round, got, want)
			}
		}
		it.Close()
	}
}
