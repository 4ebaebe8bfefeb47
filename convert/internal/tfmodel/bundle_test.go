package tfmodel

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/proto"
)

// writeBundle writes a one-shard TensorBundle at dir/variables as
// TensorFlow's bundle writer lays it out, and returns the prefix.
func writeBundle(t *testing.T, dir string, tensors map[string]*ir.Tensor) string {
	t.Helper()
	prefix := filepath.Join(dir, "variables")
	var data []byte
	var entries []tableEntry
	keys := make([]string, 0, len(tensors))
	for k := range tensors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tt := tensors[k]
		var raw []byte
		var crc uint32
		if tt.DType == ir.String {
			var lens []byte
			var c uint32
			for _, s := range tt.Strings {
				lens = binary.AppendUvarint(lens, uint64(len(s)))
				c = crc32.Update(c, castagnoli, binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
			}
			lc := binary.LittleEndian.AppendUint32(nil, maskCRC(c))
			raw = append(append(raw, lens...), lc...)
			c = crc32.Update(c, castagnoli, lc)
			for _, s := range tt.Strings {
				raw = append(raw, s...)
				c = crc32.Update(c, castagnoli, s)
			}
			crc = c
		} else {
			raw = tt.Data
			crc = crc32.Checksum(raw, castagnoli)
		}
		e := &tfpb.BundleEntryProto{Dtype: tt.DType.TF(), Shape: tt.Shape.TF(), Offset: int64(len(data)), Size: int64(len(raw)), Crc32C: maskCRC(crc)}
		data = append(data, raw...)
		v, err := proto.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, tableEntry{key: []byte(k), value: v})
	}
	h, _ := proto.Marshal(&tfpb.BundleHeaderProto{NumShards: 1, Version: &tfpb.VersionDef{Producer: 1}})
	entries = append([]tableEntry{{key: nil, value: h}}, entries...)
	if err := os.WriteFile(prefix+".index", writeTable(entries, 16, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ShardName(prefix, 0, 1), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return prefix
}

func sampleTensors() map[string]*ir.Tensor {
	i32, _ := ir.FromInt64s(ir.Int32, ir.Shape{3}, []int64{1, -2, 3})
	return map[string]*ir.Tensor{
		"a/kernel":   ir.FromFloat32s(ir.Shape{2, 2}, []float32{1, 2, 3, 4}),
		"b/count":    i32,
		"c/names":    {DType: ir.String, Shape: ir.Shape{2}, Strings: [][]byte{[]byte("hello"), []byte("")}},
		"d/scalar":   ir.FromFloat32s(ir.Shape{}, []float32{0.25}),
		"e/empty":    ir.FromFloat32s(ir.Shape{0, 3}, nil),
		"f/longname": ir.FromFloat32s(ir.Shape{1}, []float32{-1}),
	}
}

func TestBundleRoundTrip(t *testing.T) {
	want := sampleTensors()
	b, err := OpenBundle(writeBundle(t, t.TempDir(), want))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Keys()) != len(want) {
		t.Fatalf("keys %v", b.Keys())
	}
	for k, w := range want {
		got, err := b.Read(k)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if got.DType != w.DType || !got.Shape.Equal(w.Shape) || string(got.Data) != string(w.Data) {
			t.Errorf("%s: got %v, want %v", k, got, w)
		}
		for i := range w.Strings {
			if string(got.Strings[i]) != string(w.Strings[i]) {
				t.Errorf("%s[%d] = %q", k, i, got.Strings[i])
			}
		}
	}
	if _, err := b.Read("nope"); err == nil || !strings.Contains(err.Error(), `no tensor "nope"`) {
		t.Errorf("missing key: %v", err)
	}
}

func TestBundleErrors(t *testing.T) {
	t.Run("missing shard", func(t *testing.T) {
		prefix := writeBundle(t, t.TempDir(), sampleTensors())
		os.Remove(ShardName(prefix, 0, 1))
		_, err := OpenBundle(prefix)
		if err == nil || !strings.Contains(err.Error(), "checkpoint data shard missing") || !strings.Contains(err.Error(), "variables.data-00000-of-00001") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("index and data sizes differ", func(t *testing.T) {
		prefix := writeBundle(t, t.TempDir(), sampleTensors())
		shard := ShardName(prefix, 0, 1)
		data, _ := os.ReadFile(shard)
		os.WriteFile(shard, data[:len(data)-3], 0o644)
		_, err := OpenBundle(prefix)
		if err == nil || !strings.Contains(err.Error(), "index and data do not match") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("checksum", func(t *testing.T) {
		prefix := writeBundle(t, t.TempDir(), sampleTensors())
		shard := ShardName(prefix, 0, 1)
		data, _ := os.ReadFile(shard)
		data[0] ^= 1 // first bytes belong to a/kernel
		os.WriteFile(shard, data, 0o644)
		b, err := OpenBundle(prefix)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Read("a/kernel")
		if err == nil || !strings.Contains(err.Error(), `tensor "a/kernel" at byte 0: checksum mismatch`) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("missing index", func(t *testing.T) {
		_, err := OpenBundle(filepath.Join(t.TempDir(), "variables"))
		if err == nil || !strings.Contains(err.Error(), "variables.index") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("entry size against type", func(t *testing.T) {
		dir := t.TempDir()
		prefix := writeBundle(t, dir, map[string]*ir.Tensor{"x": ir.FromFloat32s(ir.Shape{2}, []float32{1, 2})})
		// Rewrite the entry to claim 3 floats in 8 bytes.
		idx, _ := os.ReadFile(prefix + ".index")
		es, _ := readTable(idx)
		for i, e := range es {
			if string(e.key) == "x" {
				be := &tfpb.BundleEntryProto{}
				proto.Unmarshal(e.value, be)
				be.Shape = ir.Shape{3}.TF()
				es[i].value, _ = proto.Marshal(be)
			}
		}
		os.WriteFile(prefix+".index", writeTable(es, 16, 4096), 0o644)
		_, err := OpenBundle(prefix)
		if err == nil || !strings.Contains(err.Error(), `entry "x": float32[3] needs 12 bytes, the entry has 8`) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("no header", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "variables")
		os.WriteFile(prefix+".index", writeTable([]tableEntry{{key: []byte("k"), value: nil}}, 16, 4096), 0o644)
		_, err := OpenBundle(prefix)
		if err == nil || !strings.Contains(err.Error(), "no bundle header") {
			t.Errorf("got %v", err)
		}
	})
}
