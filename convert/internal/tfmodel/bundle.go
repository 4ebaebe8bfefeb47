package tfmodel

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/proto"
)

// maxIndexBytes bounds the .index file read into memory.
const maxIndexBytes = 256 << 20

// Bundle is an open TensorFlow checkpoint in TensorBundle format: the
// table PREFIX.index (see sstable.go) maps "" to a BundleHeaderProto and
// each tensor key to a BundleEntryProto locating its bytes in one of the
// data shards PREFIX.data-NNNNN-of-MMMMM.
//
// OpenBundle checks the whole index up front: the header, every entry's
// type and shape against its byte size, and every entry's byte range
// against the size of its shard file, so a missing shard or an index that
// does not match its data fails at open with the file and key named.
type Bundle struct {
	Prefix  string
	Header  *tfpb.BundleHeaderProto
	entries map[string]*tfpb.BundleEntryProto
	shards  []string
}

// ShardName is the path of data shard i of n for a bundle prefix.
func ShardName(prefix string, i, n int) string {
	return fmt.Sprintf("%s.data-%05d-of-%05d", prefix, i, n)
}

// OpenBundle reads and validates the bundle at prefix (for a SavedModel,
// DIR/variables/variables).
func OpenBundle(prefix string) (*Bundle, error) {
	idx := prefix + ".index"
	data, err := readFileLimited(idx, maxIndexBytes)
	if err != nil {
		return nil, err
	}
	return openBundle(prefix, data)
}

func openBundle(prefix string, index []byte) (*Bundle, error) {
	idx := prefix + ".index"
	entries, err := readTable(index)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", idx, err)
	}
	b := &Bundle{Prefix: prefix, entries: map[string]*tfpb.BundleEntryProto{}}
	for _, e := range entries {
		if len(e.key) == 0 {
			h := &tfpb.BundleHeaderProto{}
			if err := proto.Unmarshal(e.value, h); err != nil {
				return nil, fmt.Errorf("%s: header: %v", idx, err)
			}
			b.Header = h
			continue
		}
		be := &tfpb.BundleEntryProto{}
		if err := proto.Unmarshal(e.value, be); err != nil {
			return nil, fmt.Errorf("%s: entry %q: %v", idx, e.key, err)
		}
		b.entries[string(e.key)] = be
	}
	if b.Header == nil {
		return nil, fmt.Errorf("%s: no bundle header (empty key)", idx)
	}
	if b.Header.Endianness != tfpb.BundleHeaderProto_LITTLE {
		return nil, fmt.Errorf("%s: big-endian bundles are not supported", idx)
	}
	n := int(b.Header.NumShards)
	if n < 1 || n > 1<<14 {
		return nil, fmt.Errorf("%s: header says %d data shards", idx, b.Header.NumShards)
	}
	sizes := make([]int64, n)
	b.shards = make([]string, n)
	for i := range sizes {
		b.shards[i] = ShardName(prefix, i, n)
		sizes[i] = -1
	}
	for _, key := range b.Keys() {
		e := b.entries[key]
		if len(e.Slices) > 0 {
			continue // partitioned: the slices are separate entries
		}
		if e.ShardId < 0 || int(e.ShardId) >= n {
			return nil, fmt.Errorf("%s: entry %q names shard %d of %d", idx, key, e.ShardId, n)
		}
		if sizes[e.ShardId] < 0 {
			st, err := os.Stat(b.shards[e.ShardId])
			if err != nil {
				return nil, fmt.Errorf("checkpoint data shard missing: %v (needed by entry %q of %s)", err, key, idx)
			}
			sizes[e.ShardId] = st.Size()
		}
		if e.Offset < 0 || e.Size < 0 || e.Offset > sizes[e.ShardId] || e.Size > sizes[e.ShardId]-e.Offset {
			return nil, fmt.Errorf("%s: entry %q says bytes [%d, +%d) of %s, which has %d bytes (index and data do not match)",
				idx, key, e.Offset, e.Size, b.shards[e.ShardId], sizes[e.ShardId])
		}
		if err := checkEntrySize(e); err != nil {
			return nil, fmt.Errorf("%s: entry %q: %v", idx, key, err)
		}
	}
	return b, nil
}

// checkEntrySize compares a fixed-size tensor's byte count with its type
// and shape.
func checkEntrySize(e *tfpb.BundleEntryProto) error {
	dt, err := ir.FromTF(e.Dtype)
	if err != nil {
		return err
	}
	if dt == ir.String || dt.Size() == 0 {
		return nil
	}
	shape, err := ir.ShapeFromTF(e.Shape)
	if err != nil {
		return err
	}
	if shape == nil {
		shape = ir.Shape{}
	}
	n, ok := shape.NumElements()
	if !ok {
		return fmt.Errorf("shape %s is not static", shape)
	}
	if int64(n)*int64(dt.Size()) != e.Size {
		return fmt.Errorf("%s%s needs %d bytes, the entry has %d", dt, shape, n*dt.Size(), e.Size)
	}
	return nil
}

// Keys returns the tensor keys, sorted.
func (b *Bundle) Keys() []string {
	keys := make([]string, 0, len(b.entries))
	for k := range b.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Entry returns the metadata of a key (nil when absent).
func (b *Bundle) Entry(key string) *tfpb.BundleEntryProto { return b.entries[key] }

// Read returns the tensor stored under key, after checking its CRC32C.
// Errors name the key and the shard. The tensor is bounded by
// ir.DefaultLimits.MaxTensorBytes; ReadWithin reads within a
// conversion's budget.
func (b *Bundle) Read(key string) (*ir.Tensor, error) { return b.ReadWithin(key, nil) }

// ReadWithin is Read within budget lim: the tensor must fit in its
// MaxTensorBytes, and its bytes are reserved against MaxConstantBytes
// before the shard is read and counted once the tensor is made
// (ir.Budget). A nil lim applies ir.DefaultLimits to the tensor alone.
func (b *Bundle) ReadWithin(key string, lim *ir.Budget) (*ir.Tensor, error) {
	e, ok := b.entries[key]
	if !ok {
		return nil, fmt.Errorf("checkpoint %s has no tensor %q", b.Prefix, key)
	}
	if len(e.Slices) > 0 {
		return nil, fmt.Errorf("checkpoint %s: tensor %q is partitioned into slices, which tflrun does not read", b.Prefix, key)
	}
	if max := lim.Get().MaxTensorBytes; e.Size > max {
		return nil, fmt.Errorf("checkpoint %s: tensor %q has %d bytes, above the %d-byte limit on one tensor (%s)", b.Prefix, key, e.Size, max, lim.Name("MaxTensorBytes"))
	}
	what := func() string { return fmt.Sprintf("checkpoint %s: reading tensor %q", b.Prefix, key) }
	if err := lim.Reserve(e.Size, what); err != nil {
		return nil, err
	}
	shard := b.shards[e.ShardId]
	f, err := os.Open(shard)
	if err != nil {
		return nil, fmt.Errorf("checkpoint data shard missing: %v (needed by %q)", err, key)
	}
	defer f.Close()
	raw := make([]byte, e.Size)
	if _, err := f.ReadAt(raw, e.Offset); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: reading %q at byte %d: %v", shard, key, e.Offset, err)
	}
	if got := maskCRC(entryCRC(e, raw)); got != e.Crc32C {
		return nil, fmt.Errorf("%s: tensor %q at byte %d: checksum mismatch (stored %#x, computed %#x)", shard, key, e.Offset, e.Crc32C, got)
	}
	t, err := decodeEntry(e, raw)
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %v", shard, key, err)
	}
	if err := lim.Add(t, what); err != nil {
		return nil, err
	}
	return t, nil
}

func decodeEntry(e *tfpb.BundleEntryProto, raw []byte) (*ir.Tensor, error) {
	dt, err := ir.FromTF(e.Dtype)
	if err != nil {
		return nil, err
	}
	shape, err := ir.ShapeFromTF(e.Shape)
	if err != nil {
		return nil, err
	}
	if shape == nil {
		shape = ir.Shape{}
	}
	if dt != ir.String {
		return ir.NewTensor(dt, shape, raw)
	}
	n, ok := shape.NumElements()
	if !ok || n > len(raw) {
		return nil, fmt.Errorf("string tensor of shape %s does not fit %d bytes", shape, len(raw))
	}
	return decodeStrings(raw, shape, n)
}

// decodeStrings reads a bundle string tensor: the varint64 length of
// every element, a masked CRC32C of those length bytes (uint32), then the
// element bytes back to back.
func decodeStrings(raw []byte, shape ir.Shape, n int) (*ir.Tensor, error) {
	lens := make([]uint64, n)
	p := 0
	for i := range lens {
		l, k := binary.Uvarint(raw[p:])
		if k <= 0 {
			return nil, fmt.Errorf("string length %d: bad varint", i)
		}
		lens[i] = l
		p += k
	}
	if len(raw)-p < 4 {
		return nil, fmt.Errorf("string tensor: no checksum after the lengths")
	}
	if got := maskCRC(stringLengthsCRC(lens)); got != binary.LittleEndian.Uint32(raw[p:]) {
		return nil, fmt.Errorf("string tensor: length checksum mismatch")
	}
	p += 4
	out := make([][]byte, n)
	for i, l := range lens {
		if l > uint64(len(raw)-p) {
			return nil, fmt.Errorf("string %d of %d bytes runs past the entry", i, l)
		}
		out[i] = raw[p : p+int(l)]
		p += int(l)
	}
	if p != len(raw) {
		return nil, fmt.Errorf("string tensor: %d bytes left over", len(raw)-p)
	}
	return &ir.Tensor{DType: ir.String, Shape: shape, Strings: out}, nil
}

// readFileLimited reads a whole file, refusing files above limit bytes.
func readFileLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is more than the %d-byte limit", path, st.Size(), limit)
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// entryCRC is the CRC32C TensorFlow stores for an entry. For fixed-size
// types it covers the raw bytes. For strings it covers, instead of the
// varint lengths, each length as a little-endian uint32 (uint64 when it
// does not fit), then the stored 4-byte length checksum and the string
// bytes: that is how TensorFlow's bundle writer accumulates it. A string
// entry whose lengths do not decode gets the plain CRC (and then fails the
// length check with a clearer message).
func entryCRC(e *tfpb.BundleEntryProto, raw []byte) uint32 {
	if e.Dtype != tfpb.DataType_DT_STRING {
		return crc32.Checksum(raw, castagnoli)
	}
	shape, err := ir.ShapeFromTF(e.Shape)
	if err != nil {
		return crc32.Checksum(raw, castagnoli)
	}
	if shape == nil {
		shape = ir.Shape{}
	}
	n, ok := shape.NumElements()
	if !ok || n > len(raw) {
		return crc32.Checksum(raw, castagnoli)
	}
	lens := make([]uint64, n)
	p := 0
	for i := range lens {
		l, k := binary.Uvarint(raw[p:])
		if k <= 0 {
			return crc32.Checksum(raw, castagnoli)
		}
		lens[i] = l
		p += k
	}
	c := stringLengthsCRC(lens)
	return crc32.Update(c, castagnoli, raw[p:])
}

func stringLengthsCRC(lens []uint64) uint32 {
	var c uint32
	var b [8]byte
	for _, l := range lens {
		if l <= 0xffffffff {
			binary.LittleEndian.PutUint32(b[:4], uint32(l))
			c = crc32.Update(c, castagnoli, b[:4])
		} else {
			binary.LittleEndian.PutUint64(b[:], l)
			c = crc32.Update(c, castagnoli, b[:])
		}
	}
	return c
}
