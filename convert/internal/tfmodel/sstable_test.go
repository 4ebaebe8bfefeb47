package tfmodel

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sort"
	"strings"
	"testing"

	"github.com/golang/snappy"
)

// writeTable builds a table in LevelDB's format the way TensorFlow's
// table builder does (prefix-compressed keys, a restart point every
// restartEvery entries, data blocks of about blockSize bytes, an index
// block, an empty metaindex block, the footer), independently of the
// reader under test.
func writeTable(entries []tableEntry, restartEvery, blockSize int) []byte {
	return writeTableCompressed(entries, restartEvery, blockSize, false)
}

// writeTableCompressed is writeTable, Snappy-compressing every block
// (compression type 1, as LevelDB's table builder does when its options
// ask for it) when compress is set.
func writeTableCompressed(entries []tableEntry, restartEvery, blockSize int, compress bool) []byte {
	var file []byte
	type handle struct{ off, size int }
	writeBlock := func(es []tableEntry) handle {
		var b []byte
		var restarts []uint32
		var prev []byte
		for i, e := range es {
			shared := 0
			if i%restartEvery == 0 {
				restarts = append(restarts, uint32(len(b)))
			} else {
				for shared < len(prev) && shared < len(e.key) && prev[shared] == e.key[shared] {
					shared++
				}
			}
			b = binary.AppendUvarint(b, uint64(shared))
			b = binary.AppendUvarint(b, uint64(len(e.key)-shared))
			b = binary.AppendUvarint(b, uint64(len(e.value)))
			b = append(b, e.key[shared:]...)
			b = append(b, e.value...)
			prev = e.key
		}
		if len(restarts) == 0 {
			restarts = []uint32{0}
		}
		for _, r := range restarts {
			b = binary.LittleEndian.AppendUint32(b, r)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(restarts)))
		typ := byte(0)
		if compress {
			b, typ = snappy.Encode(nil, b), 1
		}
		h := handle{len(file), len(b)}
		crc := crc32.Update(crc32.Checksum(b, castagnoli), castagnoli, []byte{typ})
		file = append(file, b...)
		file = append(file, typ)
		file = binary.LittleEndian.AppendUint32(file, maskCRC(crc))
		return h
	}
	var index []tableEntry
	var block []tableEntry
	size := 0
	flush := func() {
		if len(block) == 0 {
			return
		}
		h := writeBlock(block)
		var v []byte
		v = binary.AppendUvarint(v, uint64(h.off))
		v = binary.AppendUvarint(v, uint64(h.size))
		index = append(index, tableEntry{key: block[len(block)-1].key, value: v})
		block, size = nil, 0
	}
	for _, e := range entries {
		block = append(block, e)
		size += len(e.key) + len(e.value)
		if size >= blockSize {
			flush()
		}
	}
	flush()
	meta := writeBlock(nil)
	idx := writeBlock(index)
	var foot []byte
	foot = binary.AppendUvarint(foot, uint64(meta.off))
	foot = binary.AppendUvarint(foot, uint64(meta.size))
	foot = binary.AppendUvarint(foot, uint64(idx.off))
	foot = binary.AppendUvarint(foot, uint64(idx.size))
	foot = append(foot, make([]byte, 40-len(foot))...)
	foot = binary.LittleEndian.AppendUint64(foot, tableMagic)
	return append(file, foot...)
}

func sampleEntries(n int) []tableEntry {
	var es []tableEntry
	for i := 0; i < n; i++ {
		es = append(es, tableEntry{key: []byte(fmt.Sprintf("layer_%03d/kernel/.ATTRIBUTES/VARIABLE_VALUE", i)), value: []byte(strings.Repeat("v", i%7))})
	}
	sort.Slice(es, func(i, j int) bool { return string(es[i].key) < string(es[j].key) })
	return es
}

func TestTableRoundTrip(t *testing.T) {
	for _, restart := range []int{1, 2, 16} {
		for _, bs := range []int{1, 64, 4096} {
			es := sampleEntries(100)
			got, err := readTable(writeTable(es, restart, bs))
			if err != nil {
				t.Fatalf("restart %d block %d: %v", restart, bs, err)
			}
			if len(got) != len(es) {
				t.Fatalf("restart %d block %d: %d entries, want %d", restart, bs, len(got), len(es))
			}
			for i := range es {
				if string(got[i].key) != string(es[i].key) || string(got[i].value) != string(es[i].value) {
					t.Fatalf("entry %d: %q=%q, want %q=%q", i, got[i].key, got[i].value, es[i].key, es[i].value)
				}
			}
		}
	}
	// An empty table is valid.
	if got, err := readTable(writeTable(nil, 16, 4096)); err != nil || len(got) != 0 {
		t.Fatalf("empty table: %v %v", got, err)
	}
}

func TestTableCorruption(t *testing.T) {
	good := writeTable(sampleEntries(50), 4, 256)
	cases := []struct {
		name string
		data func() []byte
		want string
	}{
		{"short", func() []byte { return good[:20] }, "shorter than its 48-byte footer"},
		{"magic", func() []byte { b := clone(good); b[len(b)-1] ^= 1; return b }, "no table magic number"},
		{"truncated", func() []byte { return good[len(good)/2:] }, ""},
		{"data byte", func() []byte { b := clone(good); b[10] ^= 0x40; return b }, "data block 0 at byte 0: checksum mismatch"},
		{"handle", func() []byte {
			b := clone(good)
			foot := b[len(b)-footerLen:]
			// index handle pointing far past the end
			n := binary.PutUvarint(foot, 0)
			n += binary.PutUvarint(foot[n:], 0)
			n += binary.PutUvarint(foot[n:], 1<<40)
			binary.PutUvarint(foot[n:], 10)
			return b
		}, "index block: handle"},
	}
	for _, c := range cases {
		_, err := readTable(c.data())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// A block of an unknown compression type (2) with a valid checksum
	// is refused by name.
	es := []tableEntry{{key: []byte("k"), value: []byte("v")}}
	b := writeTable(es, 1, 4096)
	bl := 0
	for bl < len(b) && !(b[bl] == 0 && binary.LittleEndian.Uint32(b[bl+1:]) == maskCRC(crc32.Update(crc32.Checksum(b[:bl], castagnoli), castagnoli, []byte{0}))) {
		bl++
	}
	b[bl] = 2
	binary.LittleEndian.PutUint32(b[bl+1:], maskCRC(crc32.Update(crc32.Checksum(b[:bl], castagnoli), castagnoli, []byte{2})))
	if _, err := readTable(b); err == nil || !strings.Contains(err.Error(), "compression type 2 is not supported") {
		t.Errorf("compressed block: %v", err)
	}
	// A block marked Snappy (type 1) whose bytes are no Snappy stream,
	// with a valid checksum: an error naming the block, not a panic.
	b[bl] = 1
	binary.LittleEndian.PutUint32(b[bl+1:], maskCRC(crc32.Update(crc32.Checksum(b[:bl], castagnoli), castagnoli, []byte{1})))
	if _, err := readTable(b); err == nil || !strings.Contains(err.Error(), "Snappy-compressed block") {
		t.Errorf("corrupt Snappy block: %v", err)
	}
}

// TestTableSnappy: a table whose blocks are Snappy-compressed (TF 1.x
// bundles such as tensorflow/serving's half_plus_two) reads the same as
// the uncompressed one; a block claiming to decompress past the bound
// is refused before anything is allocated.
func TestTableSnappy(t *testing.T) {
	es := sampleEntries(300)
	for _, bs := range []int{1, 64, 4096} {
		got, err := readTable(writeTableCompressed(es, 16, bs, true))
		if err != nil {
			t.Fatalf("block size %d: %v", bs, err)
		}
		if len(got) != len(es) {
			t.Fatalf("block size %d: %d entries, want %d", bs, len(got), len(es))
		}
		for i := range es {
			if string(got[i].key) != string(es[i].key) || string(got[i].value) != string(es[i].value) {
				t.Fatalf("block size %d: entry %d is %q=%q, want %q=%q", bs, i, got[i].key, got[i].value, es[i].key, es[i].value)
			}
		}
	}
	// A Snappy block whose header (a varint decoded length) claims 2³¹
	// bytes, more than maxIndexBytes.
	huge := binary.AppendUvarint(nil, 1<<31)
	huge = append(huge, 0)
	data := append([]byte(nil), huge...)
	data = append(data, 1)
	data = binary.LittleEndian.AppendUint32(data, maskCRC(crc32.Update(crc32.Checksum(huge, castagnoli), castagnoli, []byte{1})))
	budget := int64(maxIndexBytes)
	data = append(data, make([]byte, footerLen)...)
	if _, err := readBlock(data, blockHandle{0, uint64(len(huge))}, "data block 0", &budget); err == nil || !strings.Contains(err.Error(), "past what is left") {
		t.Fatalf("huge Snappy block: %v", err)
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func TestMaskCRC(t *testing.T) {
	// LevelDB's published example: the masked CRC of "foo" is stable
	// under unmask(mask(x)) = x; check the mask against its definition.
	c := crc32.Checksum([]byte("foo"), castagnoli)
	m := maskCRC(c)
	rot := m - 0xa282ead8
	if rot>>17|rot<<15 != c {
		t.Fatalf("mask %#x does not unmask to %#x", m, c)
	}
}
