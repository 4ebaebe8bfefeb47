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

// scalarModel is y = op(x, c) (c first with cFirst) on an x of shape
// [2, 3, 128] of typ (int8 or uint8) and a constant c of shape cShape
// holding the bytes cData, with the given builtin options.
func scalarModel(typ schema.TensorType, op schema.BuiltinOperator, opts *schema.BuiltinOptionsT, cFirst bool, cShape []int32, cData []byte, yShape []int32) *schema.ModelT {
	q := func(scale float32, zp int64) *schema.QuantizationParametersT {
		if typ == schema.TensorTypeUINT8 {
			zp += 128
		}
		return &schema.QuantizationParametersT{Scale: []float32{scale}, ZeroPoint: []int64{zp}}
	}
	in := []int32{0, 1}
	if cFirst {
		in = []int32{1, 0}
	}
	return &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{
			{BuiltinCode: op, DeprecatedBuiltinCode: int8(op), Version: 2},
		},
		Buffers: []*schema.BufferT{{}, {Data: cData}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "x", Shape: []int32{2, 3, 128}, Type: typ, Quantization: q(0.0731, -37)},
				{Name: "c", Shape: cShape, Type: typ, Buffer: 1, Quantization: q(0.0213, 11)},
				{Name: "y", Shape: yShape, Type: typ, Quantization: q(0.0402, -21)},
			},
			Inputs:    []int32{0},
			Outputs:   []int32{2},
			Operators: []*schema.OperatorT{{OpcodeIndex: 0, Inputs: in, Outputs: []int32{2}, BuiltinOptions: opts}},
		}},
	}
}

// TestFuseScalarTable checks the scalar-constant fusion: for every
// operator of scalarByteOps that tflrun's kernels take in int8 or uint8
// (ADD, SUB, MUL with activations, MAXIMUM, MINIMUM and
// SQUARED_DIFFERENCE at least), constants of shape [], [1] and
// [1, 1, 1], either operand order, the fused graph gives the unfused
// graph's bytes for every input byte at 1 and 2 threads; a constant of
// two elements, or one whose rank makes the output's shape differ from
// the input's, is not fused, nor is a DIV whose divisor is the varying
// input (its zero point divides by zero: the table cannot be made, and
// Invoke reports the error as before).
func TestFuseScalarTable(t *testing.T) {
	run := func(m *schema.ModelT, fuse bool, threads int) (out []byte, fused bool, err error) {
		t.Helper()
		old := fuseByteTables
		fuseByteTables = fuse
		defer func() { fuseByteTables = old }()
		it, err := New(mustLoad(t, m), &Options{NumThreads: threads})
		if err != nil {
			return nil, false, err
		}
		defer it.Close()
		if err := it.AllocateTensors(); err != nil {
			return nil, false, err
		}
		x := it.Input(0).Data
		for i := range x {
			x[i] = byte(i*7 + 3)
		}
		_, fused = it.sg.nodes[0].kernel.(*byteTableKernel)
		if err := it.Invoke(); err != nil {
			return nil, fused, err
		}
		return bytes.Clone(it.Output(0).Data), fused, nil
	}
	type opCase struct {
		op   schema.BuiltinOperator
		opts *schema.BuiltinOptionsT
		must bool // tflrun takes both byte types
	}
	cases := []opCase{
		{schema.BuiltinOperatorADD, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeRELU}}, true},
		{schema.BuiltinOperatorSUB, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSubOptions, Value: &schema.SubOptionsT{}}, true},
		{schema.BuiltinOperatorSUB, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSubOptions, Value: &schema.SubOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeRELU6}}, true},
		{schema.BuiltinOperatorMUL, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{}}, true},
		{schema.BuiltinOperatorMUL, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeRELU_N1_TO_1}}, true},
		{schema.BuiltinOperatorDIV, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDivOptions, Value: &schema.DivOptionsT{}}, false},
		{schema.BuiltinOperatorMAXIMUM, nil, true},
		{schema.BuiltinOperatorMINIMUM, nil, true},
		{schema.BuiltinOperatorSQUARED_DIFFERENCE, nil, false},
		{schema.BuiltinOperatorFLOOR_DIV, nil, false},
		{schema.BuiltinOperatorFLOOR_MOD, nil, false},
	}
	full := []int32{2, 3, 128}
	for _, typ := range []schema.TensorType{schema.TensorTypeINT8, schema.TensorTypeUINT8} {
		for _, c := range cases {
			for _, cShape := range [][]int32{{}, {1}, {1, 1, 1}} {
				for _, cFirst := range []bool{false, true} {
					for _, cv := range []byte{0x05, 0x9c} {
						m := scalarModel(typ, c.op, c.opts, cFirst, cShape, []byte{cv}, full)
						want, f, err := run(m, false, 1)
						if err != nil {
							if c.must {
								t.Fatalf("%v %v: %v", typ, c.op, err)
							}
							continue
						}
						if f {
							t.Fatal("fused with fusion off")
						}
						for _, threads := range []int{1, 2} {
							got, fused, err := run(m, true, threads)
							if err != nil {
								t.Fatalf("%v %v c%v=%#x first %v: the unfused graph runs, the fused one: %v", typ, c.op, cShape, cv, cFirst, err)
							}
							if !fused {
								t.Errorf("%v %v c%v first %v: not fused", typ, c.op, cShape, cFirst)
							}
							if !bytes.Equal(got, want) {
								t.Fatalf("%v %v c%v=%#x first %v threads %d: fused output differs from the unfused one", typ, c.op, cShape, cv, cFirst, threads)
							}
						}
					}
				}
			}
		}
		add := cases[0]
		for _, m := range []*schema.ModelT{
			scalarModel(typ, add.op, add.opts, false, []int32{128}, make([]byte, 128), full),
			scalarModel(typ, add.op, add.opts, false, []int32{1, 1, 1, 1}, []byte{1}, []int32{1, 2, 3, 128}),
		} {
			if _, fused, err := run(m, true, 1); err != nil || fused {
				t.Errorf("%v: a constant that is not a same-shape scalar: fused %v, error %v", typ, fused, err)
			}
		}
		div := cases[5]
		if _, fused, err := run(scalarModel(typ, div.op, div.opts, true, []int32{1}, []byte{9}, full), true, 1); fused || err == nil && typ == schema.TensorTypeUINT8 {
			t.Errorf("%v: DIV by the varying input: fused %v, error %v", typ, fused, err)
		}
	}
}

// byteTableCorpusModels are corpus models with operators that become
// byte tables (x·σ(x) pairs or scalar-constant operators) and how many.
var byteTableCorpusModels = []corpusFusionCase{
	{"detection/coral_traffic_model.tflite", 4},
	{"detection/nxp_yolo11n_full_integer_quant.tflite", 79},
	{"image_cls/smartgallery_mobilenet_v3_small_int8.tflite", 11},
	{"image_cls/tactilelens_efficientnet_lite0_int8.tflite", 33},
	{"pose/support_movenet_lightning_int8.tflite", 3},
	{"style_sr/flutter_magenta_style_transfer_int8.tflite", 13},
}

// TestCorpusByteTables runs corpus models with byte tables made, at 1
// and 3 threads, and requires the outputs of the graph without them, bit
// for bit, and the expected number of tables.
func TestCorpusByteTables(t *testing.T) {
	testCorpusFusion(t, "byte tables", byteTableCorpusModels, &fuseByteTables, func(it *Interpreter) (n int) {
		for k := range it.sg.nodes {
			if _, ok := it.sg.nodes[k].kernel.(*byteTableKernel); ok {
				n++
			}
		}
		return n
	})
}
