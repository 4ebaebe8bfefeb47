package interpreter

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// TestHostile32Bit: flatbuffer indices are uint32 and tensor byte sizes
// can pass 2^31 while the element count stays below it. On 32-bit ARM
// (GOARCH=arm, run under qemu-arm by .ci/cross) int(uint32) of an index
// at or above 2^31 is negative and a byte count above 2^31 wraps; these
// models must still give a clear error, as they do on 64-bit platforms.
func TestHostile32Bit(t *testing.T) {
	edit := func(f func(m *schema.ModelT)) []byte {
		m := fcModel()
		f(m)
		return pack(m)
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"tensor buffer index 2^31", edit(func(m *schema.ModelT) { m.Subgraphs[0].Tensors[1].Buffer = 1 << 31 }), "out of range"},
		{"tensor buffer index 2^32-1", edit(func(m *schema.ModelT) { m.Subgraphs[0].Tensors[1].Buffer = 1<<32 - 1 }), "out of range"},
		{"opcode index 2^31+1", edit(func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].OpcodeIndex = 1<<31 + 1 }), "opcode index"},
		{"metadata buffer 2^31", edit(func(m *schema.ModelT) {
			m.Metadata = []*schema.MetadataT{{Name: "x", Buffer: 1 << 31}}
		}), "out of range"},
		{"signature subgraph 2^31", edit(func(m *schema.ModelT) {
			m.SignatureDefs = []*schema.SignatureDefT{{SignatureKey: "serving_default", SubgraphIndex: 1 << 31}}
		}), "out of range"},
		{"signature tensor 2^32-1", edit(func(m *schema.ModelT) {
			m.SignatureDefs = []*schema.SignatureDefT{{SignatureKey: "serving_default",
				Inputs: []*schema.TensorMapT{{Name: "input", TensorIndex: 1<<32 - 1}}}}
		}), "out of range"},
		// 600M float32 elements: fewer than 2^31, but 2.4 GB. 32-bit
		// platforms refuse the byte size when loading, 64-bit ones the
		// arena size when allocating.
		{"2.4 GB activation", edit(func(m *schema.ModelT) {
			m.Subgraphs[0].Tensors[0].Shape = []int32{600000000, 4}
			m.Subgraphs[0].Tensors[3].Shape = []int32{600000000, 3}
		}), ""},
	}
	for _, c := range cases {
		err := loadAndAllocate(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
