package interpreter

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/schema"
)

// isGuarded reports whether err is what the interpreter's guard made of a
// kernel panic or a memory fault: a bug the checks missed, which the
// corruption sweeps must report although any other error is fine.
func isGuarded(err error) bool { return errors.Is(err, ErrPanic) || errors.Is(err, ErrMemoryFault) }

// loadAndAllocate runs a model through the whole set-up path and returns
// the first error: LoadBytes, New, AllocateTensors, then one Invoke.
func loadAndAllocate(b []byte) error { return loadAndAllocateLimit(b, 64<<20) }

// hostileResolver is the default resolver, built once: the corruption
// sweeps run thousands of models, and a resolver only maps operators to
// kernel constructors, so interpreters can share it.
var hostileResolver = DefaultResolver()

// loadAndAllocateLimit is loadAndAllocate with an arena limit of
// maxArena bytes.
func loadAndAllocateLimit(b []byte, maxArena int64) error {
	m, err := LoadBytes(b)
	if err != nil {
		return err
	}
	it, err := New(m, &Options{MaxArenaBytes: maxArena, Resolver: hostileResolver})
	if err != nil {
		return err
	}
	if err := it.AllocateTensors(); err != nil {
		return err
	}
	return it.Invoke()
}

// misalign moves the vector that field slot `field` of the first subgraph
// points to by one byte, so it starts at an odd offset.
func misalignSubgraphVector(t *testing.T, b []byte, field int) []byte {
	t.Helper()
	b = append([]byte(nil), b...)
	var sg schema.SubGraph
	if !schema.GetRootAsModel(b, 0).Subgraphs(&sg, 0) {
		t.Fatal("no subgraph")
	}
	tab := sg.Table()
	o := tab.Offset(flatbufferSlot(field))
	if o == 0 {
		t.Fatal("field absent")
	}
	at := int(tab.Pos) + int(o)
	binary.LittleEndian.PutUint32(b[at:], binary.LittleEndian.Uint32(b[at:])+1)
	return b
}

// flatbufferSlot is the vtable offset of field number id.
func flatbufferSlot(id int) flatbuffers.VOffsetT { return flatbuffers.VOffsetT(4 + 2*id) }

func TestHostileModels(t *testing.T) {
	valid := pack(fcModel())
	if err := loadAndAllocate(valid); err != nil {
		t.Fatalf("the base model must be valid: %v", err)
	}
	edit := func(f func(m *schema.ModelT)) []byte {
		m := fcModel()
		f(m)
		return pack(m)
	}
	rootPastEnd := append([]byte(nil), valid...)
	binary.LittleEndian.PutUint32(rootPastEnd, uint32(len(valid)+100))

	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "buffer"},
		{"root offset past the end", rootPastEnd, "root"},
		{"misaligned subgraph inputs vector", misalignSubgraphVector(t, valid, 1), "align"},
		{"operator input index out of range", edit(func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].Inputs[1] = 99 }),
			"subgraph 0: operator 0: FULLY_CONNECTED: input 1: tensor 99 out of range"},
		{"operator output index negative", edit(func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].Outputs[0] = -1 }),
			"output 0: tensor -1 out of range"},
		{"subgraph input out of range", edit(func(m *schema.ModelT) { m.Subgraphs[0].Inputs[0] = 4 }),
			"subgraph 0: input 0: tensor 4 out of range"},
		{"buffer index out of range", edit(func(m *schema.ModelT) { m.Subgraphs[0].Tensors[1].Buffer = 40 }),
			"subgraph 0: tensor 1: \"weights\": buffer 40 out of range"},
		{"opcode index out of range", edit(func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].OpcodeIndex = 3 }),
			"operator 0: opcode index 3 out of range"},
		{"negative dimension", edit(func(m *schema.ModelT) { m.Subgraphs[0].Tensors[0].Shape = []int32{1, -4} }),
			"tensor 0: \"input\": dimension 1 is negative"},
		{"shape product overflows int32", edit(func(m *schema.ModelT) { m.Subgraphs[0].Tensors[0].Shape = []int32{65536, 65536} }),
			"tensor 0: \"input\": shape [65536 65536] has more than"},
		{"shape product overflows int64", edit(func(m *schema.ModelT) {
			m.Subgraphs[0].Tensors[0].Shape = []int32{2147483647, 2147483647, 2147483647}
		}), "has more than 2147483647 elements"},
		{"constant buffer one byte short", edit(func(m *schema.ModelT) { m.Buffers[1].Data = m.Buffers[1].Data[:47] }),
			"tensor 1: \"weights\": constant buffer 1 has 47 bytes, shape [3 4] of float32 needs 48"},
		{"constant buffer one byte long", edit(func(m *schema.ModelT) { m.Buffers[1].Data = append(m.Buffers[1].Data, 0) }),
			"constant buffer 1 has 49 bytes, shape [3 4] of float32 needs 48"},
		{"operator input never produced", edit(func(m *schema.ModelT) {
			m.Subgraphs[0].Tensors = append(m.Subgraphs[0].Tensors, &schema.TensorT{Name: "ghost", Shape: []int32{3}, Type: schema.TensorTypeFLOAT32})
			m.Subgraphs[0].Operators[0].Inputs[2] = 4
		}), "input 2 (tensor 4 \"ghost\") is read before anything produces it"},
		{"graph output never produced", edit(func(m *schema.ModelT) {
			m.Subgraphs[0].Tensors = append(m.Subgraphs[0].Tensors, &schema.TensorT{Name: "orphan", Shape: []int32{3}, Type: schema.TensorTypeFLOAT32})
			m.Subgraphs[0].Outputs = []int32{4}
		}), "output 0 (tensor 4 \"orphan\") is never produced"},
		{"operator writes a constant", edit(func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].Outputs[0] = 2 }),
			"output 0 (tensor 2 \"bias\") is also a constant"},
		{"quantization scale/zero point count mismatch", edit(func(m *schema.ModelT) {
			m.Subgraphs[0].Tensors[0].Quantization = &schema.QuantizationParametersT{Scale: []float32{1, 2}, ZeroPoint: []int64{0}}
		}), "2 scales and 1 zero points"},
		{"string tensor offsets past the buffer", withString(1, []uint32{12, 40}, "abc"), "string offset 1 (40) is out of order or past the 15-byte buffer"},
		{"string tensor count differs from its shape", withString(2, []uint32{16, 17, 18}, "ab"), "string buffer holds 2 strings, the shape needs 1"},
		{"string tensor first offset wrong", withString(1, []uint32{8, 15}, "abc"), "string 0 starts at 8, expected 12"},
		{"wrong schema version", edit(func(m *schema.ModelT) { m.Version = 2 }), "schema version is 2"},
		{"unknown tensor type", edit(func(m *schema.ModelT) { m.Subgraphs[0].Tensors[0].Type = 99 }), "unknown tensor type 99"},
		{"no subgraphs", edit(func(m *schema.ModelT) { m.Subgraphs = nil }), "no subgraphs"},
		{"RESHAPE new_shape rank above the output's", pack(reshapeModel([]int32{1, 1, 2, 3}, []int32{2, 3})),
			"produces shape [1 1 2 3] but the model declares [2 3]"},
		{"RESHAPE new_shape beyond rank 8", pack(reshapeModel([]int32{1, 1, 1, 1, 1, 1, 1, 2, 3}, []int32{1, 1, 1, 1, 1, 1, 1, 2, 3})),
			"RESHAPE"},
		{"RESHAPE element count mismatch", pack(reshapeModel([]int32{4, 2}, []int32{4, 2})), "RESHAPE"},
		{"arena larger than the limit", edit(func(m *schema.ModelT) {
			m.Subgraphs[0].Tensors[0].Shape = []int32{1 << 24, 4}
		}), "would exceed the memory bound"},
		{"LSTM state input that is not a variable", func() []byte {
			m := lstmModel()
			m.Subgraphs[0].Tensors[13].IsVariable = false
			m.Subgraphs[0].Inputs = []int32{0, 13}
			return pack(m)
		}(), "UNIDIRECTIONAL_SEQUENCE_LSTM v1 (operator 0, subgraph 0)"},
		{"LSTM state input that is a constant", func() []byte {
			m := lstmModel()
			m.Subgraphs[0].Tensors[14].IsVariable = false
			m.Buffers = append(m.Buffers, &schema.BufferT{Data: f32bytes(0, 0, 0)})
			m.Subgraphs[0].Tensors[14].Buffer = uint32(len(m.Buffers) - 1)
			return pack(m)
		}(), "UNIDIRECTIONAL_SEQUENCE_LSTM v1 (operator 0, subgraph 0)"},
		{"LSTM weight of the wrong shape", func() []byte {
			m := lstmModel()
			m.Subgraphs[0].Tensors[1].Shape = []int32{2, 3}
			return pack(m)
		}(), "UNIDIRECTIONAL_SEQUENCE_LSTM v1 (operator 0, subgraph 0)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := loadAndAllocate(tc.b)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// withString returns fcModel with an extra constant string tensor of shape
// [1] whose buffer has the given count, offsets and bytes.
func withString(count uint32, offsets []uint32, text string) []byte {
	m := fcModel()
	buf := binary.LittleEndian.AppendUint32(nil, count)
	for _, o := range offsets {
		buf = binary.LittleEndian.AppendUint32(buf, o)
	}
	buf = append(buf, text...)
	m.Buffers = append(m.Buffers, &schema.BufferT{Data: buf})
	m.Subgraphs[0].Tensors = append(m.Subgraphs[0].Tensors, &schema.TensorT{Name: "label", Shape: []int32{1},
		Type: schema.TensorTypeSTRING, Buffer: uint32(len(m.Buffers) - 1)})
	return pack(m)
}

func TestValidStringTensorLoads(t *testing.T) {
	if err := loadAndAllocate(withString(1, []uint32{12, 15}, "abc")); err != nil {
		t.Fatal(err)
	}
}

// TestTruncatedRealModel cuts a real model at every byte: every proper
// prefix must be refused with an error, none may panic.
func TestTruncatedRealModel(t *testing.T) {
	b, err := os.ReadFile(sharedModel(t, "mnist_lstm/trained_lstm.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	if err := loadAndAllocate(b); err != nil {
		t.Fatalf("full model: %v", err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := LoadBytes(b[:n:n]); err == nil {
			t.Fatalf("prefix of %d of %d bytes accepted", n, len(b))
		}
	}
}

// TestCorruptedRealModel flips single bytes of a real model through the
// whole pipeline: load, allocate, invoke. Errors are fine; panics are not.
// The model's structure (tables, vectors, strings, and the first and last
// 16 bytes of each constant buffer, where a vector's length and bounds
// live) is swept at every third byte, which touches every field of every
// table (fields are at least 4 bytes apart or adjacent scalars of one
// table), each byte set to 0x00, 0xFF and itself ^ 0x80. Inside the
// constant buffers a byte is tensor data that loading never reads as
// structure: there only every 61st is flipped (each still runs the
// operators on a corrupted weight). The arena limit is 1 MiB (the model
// needs a few KB), so a corrupted dimension that makes the model huge is
// refused at allocation rather than run for seconds. Every ninth byte
// under -short; the fuzz target covers the rest.
func TestCorruptedRealModel(t *testing.T) {
	b, err := os.ReadFile(sharedModel(t, "mnist_lstm/trained_lstm_int8.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	interior := dataInterior(b, 16)
	step := 3
	if testing.Short() {
		step = 9
	}
	c := append([]byte(nil), b...)
	for i := 0; i < len(b); i++ {
		if interior[i] && i%61 != 0 || !interior[i] && i%step != 0 {
			continue
		}
		for _, v := range []byte{0x00, 0xFF, b[i] ^ 0x80} {
			c[i] = v
			if err := loadAndAllocateLimit(c, 1<<20); isGuarded(err) {
				t.Fatalf("byte %d = %#x: %v", i, v, err)
			}
		}
		c[i] = b[i]
	}
}

// dataInterior marks the bytes of b, a valid model, that lie inside the
// data of a constant buffer, more than edge bytes from either end: tensor
// values, which neither the verifier nor the loader reads as structure.
func dataInterior(b []byte, edge int) []bool {
	in := make([]bool, len(b))
	m := schema.GetRootAsModel(b, 0)
	var buf schema.Buffer
	for i := 0; i < m.BuffersLength(); i++ {
		if !m.Buffers(&buf, i) {
			continue
		}
		d := buf.DataBytes()
		start := cap(b) - cap(d) // d is a sub-slice of b
		for j := start + edge; j < start+len(d)-edge; j++ {
			in[j] = true
		}
	}
	return in
}
