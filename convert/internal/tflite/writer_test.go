package tflite

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func TestWriteAlignedSignedModel(t *testing.T) {
	f := ir.NewFunction("main", nil)
	x := f.AddParam("in:0", ir.Float32, ir.Shape{1, 3})
	// Odd-sized constants so that unaligned packing would show.
	w := f.NewConst("w", ir.FromFloat32s(ir.Shape{3, 3}, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}))
	b := f.NewConst("b", ir.FromFloat32s(ir.Shape{3}, []float32{1, 1, 1}))
	s := f.NewConst("s", &ir.Tensor{DType: ir.String, Shape: ir.Shape{2}, Strings: [][]byte{[]byte("ab"), []byte("c")}})
	fc := f.NewTFL("fc", &ir.TFLOp{Builtin: schema.BuiltinOperatorFULLY_CONNECTED, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}}},
		[]*ir.Value{x, w, b}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{1, 3}})
	f.Results = []*ir.Value{fc.Outputs[0], s}
	f.ResultNames = []string{"Identity:0", "names:0"}
	data, err := Write(f, Signature{Key: "serving_default", InputNames: []string{"x"}, OutputNames: []string{"y", "names"}}, "tflrun test")
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.VerifyModel(data); err != nil {
		t.Fatalf("VerifyModel: %v", err)
	}
	if string(data[4:8]) != "TFL3" {
		t.Errorf("identifier %q", data[4:8])
	}
	m := schema.GetRootAsModel(data, 0)
	if string(m.Description()) != "tflrun test" || m.Version() != 3 {
		t.Errorf("description %q version %d", m.Description(), m.Version())
	}
	base := uintptr(unsafe.Pointer(&data[0]))
	var buf schema.Buffer
	for i := 0; i < m.BuffersLength(); i++ {
		m.Buffers(&buf, i)
		if d := buf.DataBytes(); len(d) > 0 {
			if off := uintptr(unsafe.Pointer(&d[0])) - base; off%16 != 0 {
				t.Errorf("buffer %d data at offset %d, not 16-byte aligned", i, off)
			}
		}
	}
	mt := m.UnPack()
	sg := mt.Subgraphs[0]
	if len(sg.Operators) != 1 || len(sg.Inputs) != 1 || len(sg.Outputs) != 2 {
		t.Fatalf("subgraph %d ops, %v in, %v out", len(sg.Operators), sg.Inputs, sg.Outputs)
	}
	if name := sg.Tensors[sg.Outputs[0]].Name; name != "Identity:0" {
		t.Errorf("output tensor named %q", name)
	}
	st := sg.Tensors[sg.Outputs[1]]
	sb := mt.Buffers[st.Buffer].Data
	// TFLite string layout: count, offsets, bytes.
	if len(sb) != 4*4+3 || sb[0] != 2 || string(sb[16:]) != "abc" || sb[4] != 16 || sb[8] != 18 || sb[12] != 19 {
		t.Errorf("string buffer %v", sb)
	}
	sd := mt.SignatureDefs[0]
	if sd.SignatureKey != "serving_default" || sd.Inputs[0].Name != "x" || sd.Outputs[0].Name != "y" || sd.Outputs[1].Name != "names" ||
		sd.Outputs[1].TensorIndex != uint32(sg.Outputs[1]) {
		t.Errorf("signature %+v %+v %+v", sd, sd.Inputs[0], sd.Outputs)
	}
	oc := mt.OperatorCodes[0]
	if oc.BuiltinCode != schema.BuiltinOperatorFULLY_CONNECTED || oc.DeprecatedBuiltinCode != int8(schema.BuiltinOperatorFULLY_CONNECTED) {
		t.Errorf("operator code %+v", oc)
	}
}

func TestWriteErrors(t *testing.T) {
	f := ir.NewFunction("main", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1, 3})
	n := f.NewNode("relu", "Relu", []*ir.Value{x}, 1)
	n.Outputs[0].DType, n.Outputs[0].Shape = ir.Float32, ir.Shape{1, 3}
	f.Results = []*ir.Value{n.Outputs[0]}
	_, err := Write(f, Signature{InputNames: []string{"x"}, OutputNames: []string{"y"}}, "")
	if err == nil || err.Error() != `function main: node "relu" (op Relu): has no TFLite equivalent (not legalised)` {
		t.Errorf("got %v", err)
	}
	f2 := ir.NewFunction("main", nil)
	y := f2.AddParam("y", ir.Float32, ir.Shape{-1, 3})
	f2.Results = []*ir.Value{y}
	_, err = Write(f2, Signature{InputNames: []string{"y"}, OutputNames: []string{"y"}}, "")
	if err == nil || !strings.Contains(err.Error(), "not static") {
		t.Errorf("got %v", err)
	}
	if _, err := Write(f2, Signature{}, ""); err == nil || !strings.Contains(err.Error(), "signature names 0 inputs") {
		t.Errorf("got %v", err)
	}
}

// TestWriteOverflowingShape checks that a tensor whose element count
// overflows is an error naming it, not a model no interpreter can load.
func TestWriteOverflowingShape(t *testing.T) {
	f := ir.NewFunction("f", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1 << 30, 1 << 30, 1 << 30})
	f.Results = []*ir.Value{x}
	f.ResultNames = []string{"y"}
	_, err := Write(f, Signature{Key: "serving_default", InputNames: []string{"x"}, OutputNames: []string{"y"}}, "t")
	if err == nil || !strings.Contains(err.Error(), `tensor "x" has shape [1073741824 1073741824 1073741824], more elements than a tensor can hold`) {
		t.Fatalf("err = %v", err)
	}
}
