package interpreter

import (
	"bytes"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// siluModel is x → LOGISTIC (or TANH) → s, y = MUL(x, s) (operands
// swapped with sFirst) on a [4, 128] tensor of typ (int8 or uint8), the
// quantisation of a quantised YOLO's SiLU; with sOut, s is a graph output
// too, which must keep the pair apart.
func siluModel(typ schema.TensorType, act schema.BuiltinOperator, sFirst, sOut bool) *schema.ModelT {
	q := func(scale float32, zp int64) *schema.QuantizationParametersT {
		return &schema.QuantizationParametersT{Scale: []float32{scale}, ZeroPoint: []int64{zp}}
	}
	zx, zs, zy := int64(-37), int64(-128), int64(-121)
	if act == schema.BuiltinOperatorTANH {
		zs = 0
	}
	if typ == schema.TensorTypeUINT8 {
		zx, zs, zy = zx+128, zs+128, zy+128
	}
	sScale := float32(1.0 / 256)
	if act == schema.BuiltinOperatorTANH {
		sScale = 1.0 / 128
	}
	mulIn := []int32{0, 1}
	if sFirst {
		mulIn = []int32{1, 0}
	}
	outputs := []int32{2}
	if sOut {
		outputs = append(outputs, 1)
	}
	return &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{
			{BuiltinCode: act, DeprecatedBuiltinCode: int8(act), Version: 2},
			{BuiltinCode: schema.BuiltinOperatorMUL, DeprecatedBuiltinCode: 18, Version: 2},
		},
		Buffers: []*schema.BufferT{{}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "x", Shape: []int32{4, 128}, Type: typ, Quantization: q(0.0731, zx)},
				{Name: "s", Shape: []int32{4, 128}, Type: typ, Quantization: q(sScale, zs)},
				{Name: "y", Shape: []int32{4, 128}, Type: typ, Quantization: q(0.0402, zy)},
			},
			Inputs:  []int32{0},
			Outputs: outputs,
			Operators: []*schema.OperatorT{
				{OpcodeIndex: 0, Inputs: []int32{0}, Outputs: []int32{1}},
				{OpcodeIndex: 1, Inputs: mulIn, Outputs: []int32{2},
					BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}},
			},
		}},
	}
}

// TestFuseByteTable checks the x·σ(x) fusion: the fused graph gives the
// unfused graph's bytes for every input byte (each appears twice among
// the 512 inputs), for int8 and uint8, LOGISTIC and TANH, either operand
// order, at 1 and 2 threads; and a pair whose σ(x) is also a graph
// output is not fused.
func TestFuseByteTable(t *testing.T) {
	run := func(m *schema.ModelT, fuse bool, threads int) (out []byte, fused bool) {
		t.Helper()
		old := fuseByteTables
		fuseByteTables = fuse
		defer func() { fuseByteTables = old }()
		it, err := New(mustLoad(t, m), &Options{NumThreads: threads})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		x := it.Input(0).Data
		for i := range x {
			x[i] = byte(i*7 + 3)
		}
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		_, fused = it.sg.nodes[1].kernel.(*byteTableKernel)
		return bytes.Clone(it.Output(0).Data), fused
	}
	for _, typ := range []schema.TensorType{schema.TensorTypeINT8, schema.TensorTypeUINT8} {
		for _, act := range []schema.BuiltinOperator{schema.BuiltinOperatorLOGISTIC, schema.BuiltinOperatorTANH} {
			for _, sFirst := range []bool{false, true} {
				for _, sOut := range []bool{false, true} {
					m := siluModel(typ, act, sFirst, sOut)
					want, f := run(m, false, 1)
					if f {
						t.Fatal("fused with fusion off")
					}
					for _, threads := range []int{1, 2} {
						got, fused := run(m, true, threads)
						if fused == sOut {
							t.Errorf("%v %v sFirst %v sOut %v: fused %v", typ, act, sFirst, sOut, fused)
						}
						if !bytes.Equal(got, want) {
							t.Fatalf("%v %v sFirst %v sOut %v threads %d: fused output differs from the unfused one", typ, act, sFirst, sOut, threads)
						}
					}
				}
			}
		}
	}
}
