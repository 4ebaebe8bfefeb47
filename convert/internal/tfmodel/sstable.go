package tfmodel

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/golang/snappy"
)

// This file reads the immutable sorted table ("SSTable") format TensorFlow
// uses for a checkpoint's .index file. The format is LevelDB's table
// format, which TensorFlow's lib/io/table reproduces:
//
//	[data block]... [metaindex block] [index block] [footer]
//
// A block is a run of entries, each
//
//	varint32 shared | varint32 unshared | varint32 value_len |
//	key[shared:] (unshared bytes) | value
//
// (the key shares its first `shared` bytes with the previous key), followed
// by uint32 restart offsets, a uint32 restart count, and a 5-byte trailer:
// a compression type byte and the masked CRC32C of block + type byte. The
// index block maps a separator key to each data block's handle (varint64
// offset, varint64 size). The 48-byte footer holds the metaindex and index
// handles, padding, and the magic number 0xdb4775248b80fb57.
//
// A block is stored raw (type 0) or Snappy-compressed (type 1):
// TensorFlow's tensor-bundle writer leaves blocks raw, but TF 1.x builds
// whose table options default to Snappy (tensorflow/serving's
// half_plus_two test models, TF Hub modules) compress the index. The CRC
// covers the stored bytes; the decompressed sizes of all blocks together
// are bounded by maxIndexBytes. Every length and offset is checked
// against the file before use: a corrupt index gives an error naming the
// block and byte position, never an out-of-range read or a huge
// allocation. (github.com/syndtr/goleveldb's table reader reads these files
// too, but it allocates whatever a block handle says and ignores short
// reads, so it is not safe on untrusted files.)

const (
	tableMagic      = 0xdb4775248b80fb57
	footerLen       = 48
	blockTrailerLen = 5
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maskCRC is LevelDB/TensorFlow's CRC masking (rotate right by 15, add a
// constant), applied so that CRCs of data containing CRCs stay robust.
func maskCRC(c uint32) uint32 { return (c>>15 | c<<17) + 0xa282ead8 }

type blockHandle struct{ offset, size uint64 }

// tableEntry is one key/value pair of a table.
type tableEntry struct {
	key, value []byte
}

// readTable returns every entry of the table in file order (sorted by
// key), or an error naming what is corrupt and where.
func readTable(data []byte) ([]tableEntry, error) {
	if len(data) < footerLen {
		return nil, fmt.Errorf("table is %d bytes, shorter than its %d-byte footer", len(data), footerLen)
	}
	foot := data[len(data)-footerLen:]
	if binary.LittleEndian.Uint64(foot[footerLen-8:]) != tableMagic {
		return nil, fmt.Errorf("table footer at byte %d has no table magic number (not a TensorBundle index?)", len(data)-footerLen)
	}
	_, n, err := decodeHandle(foot)
	if err != nil {
		return nil, fmt.Errorf("table footer: metaindex handle: %v", err)
	}
	index, _, err := decodeHandle(foot[n:])
	if err != nil {
		return nil, fmt.Errorf("table footer: index handle: %v", err)
	}
	budget := int64(maxIndexBytes)
	indexBlock, err := readBlock(data, index, "index block", &budget)
	if err != nil {
		return nil, err
	}
	handles, err := blockEntries(indexBlock, index.offset, "index block")
	if err != nil {
		return nil, err
	}
	var out []tableEntry
	var last []byte
	for i, h := range handles {
		bh, _, err := decodeHandle(h.value)
		if err != nil {
			return nil, fmt.Errorf("index block entry %d: %v", i, err)
		}
		what := fmt.Sprintf("data block %d", i)
		b, err := readBlock(data, bh, what, &budget)
		if err != nil {
			return nil, err
		}
		es, err := blockEntries(b, bh.offset, what)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if last != nil && string(e.key) <= string(last) {
				return nil, fmt.Errorf("%s at byte %d: key %q is not after %q (table keys must be sorted)", what, bh.offset, e.key, last)
			}
			last = e.key
		}
		out = append(out, es...)
	}
	return out, nil
}

func decodeHandle(b []byte) (blockHandle, int, error) {
	off, n := binary.Uvarint(b)
	if n <= 0 {
		return blockHandle{}, 0, fmt.Errorf("bad varint offset")
	}
	size, m := binary.Uvarint(b[n:])
	if m <= 0 {
		return blockHandle{}, 0, fmt.Errorf("bad varint size")
	}
	return blockHandle{off, size}, n + m, nil
}

// readBlock checks a block handle against the file, verifies the
// trailer's CRC and compression type, and returns the block contents,
// decompressed. budget is what decompression may still produce; a block
// that would exceed it is an error.
func readBlock(data []byte, h blockHandle, what string, budget *int64) ([]byte, error) {
	limit := uint64(len(data) - footerLen)
	if h.offset > limit || h.size > limit-h.offset || h.size+blockTrailerLen > limit-h.offset {
		return nil, fmt.Errorf("%s: handle [%d, +%d) runs past the end of the %d-byte table", what, h.offset, h.size, len(data))
	}
	b := data[h.offset : h.offset+h.size]
	trailer := data[h.offset+h.size : h.offset+h.size+blockTrailerLen]
	want := binary.LittleEndian.Uint32(trailer[1:])
	got := crc32.Update(crc32.Checksum(b, castagnoli), castagnoli, trailer[:1])
	if maskCRC(got) != want {
		return nil, fmt.Errorf("%s at byte %d: checksum mismatch (stored %#x, computed %#x)", what, h.offset, want, maskCRC(got))
	}
	switch trailer[0] {
	case 0:
		return b, nil
	case 1:
		// The block starts with its decoded length as a uvarint. Check
		// it against the bound before snappy does: on 32-bit platforms
		// snappy refuses lengths past math.MaxInt32 with its own error,
		// and the bound should be what names the refusal everywhere.
		if v, k := binary.Uvarint(b); k > 0 && v > uint64(*budget) {
			return nil, fmt.Errorf("%s at byte %d: Snappy-compressed block decompresses to %d bytes, past what is left of the %d-byte bound on the index", what, h.offset, v, maxIndexBytes)
		}
		n, err := snappy.DecodedLen(b)
		if err != nil {
			return nil, fmt.Errorf("%s at byte %d: Snappy-compressed block: %v", what, h.offset, err)
		}
		if int64(n) > *budget {
			return nil, fmt.Errorf("%s at byte %d: Snappy-compressed block decompresses to %d bytes, past what is left of the %d-byte bound on the index", what, h.offset, n, maxIndexBytes)
		}
		*budget -= int64(n)
		out, err := snappy.Decode(make([]byte, n), b)
		if err != nil {
			return nil, fmt.Errorf("%s at byte %d: Snappy-compressed block: %v", what, h.offset, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s at byte %d: compression type %d is not supported (0 is none, 1 Snappy)", what, h.offset, trailer[0])
}

// blockEntries decodes a block's prefix-compressed entries.
func blockEntries(b []byte, base uint64, what string) ([]tableEntry, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%s at byte %d: %d bytes, too short for a restart count", what, base, len(b))
	}
	nRestarts := uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	if nRestarts > uint64(len(b)-4)/4 {
		return nil, fmt.Errorf("%s at byte %d: restart count %d does not fit the %d-byte block", what, base, nRestarts, len(b))
	}
	end := len(b) - 4 - int(nRestarts)*4
	var out []tableEntry
	var key []byte
	for p := 0; p < end; {
		shared, n1 := binary.Uvarint(b[p:end])
		if n1 <= 0 {
			return nil, fmt.Errorf("%s at byte %d: bad entry header", what, base+uint64(p))
		}
		unshared, n2 := binary.Uvarint(b[p+n1 : end])
		if n2 <= 0 {
			return nil, fmt.Errorf("%s at byte %d: bad entry header", what, base+uint64(p))
		}
		vlen, n3 := binary.Uvarint(b[p+n1+n2 : end])
		if n3 <= 0 {
			return nil, fmt.Errorf("%s at byte %d: bad entry header", what, base+uint64(p))
		}
		q := p + n1 + n2 + n3
		if shared > uint64(len(key)) {
			return nil, fmt.Errorf("%s at byte %d: entry shares %d key bytes, the previous key has %d", what, base+uint64(p), shared, len(key))
		}
		if unshared > uint64(end-q) || vlen > uint64(end-q)-unshared {
			return nil, fmt.Errorf("%s at byte %d: entry of %d key and %d value bytes runs past the block", what, base+uint64(p), unshared, vlen)
		}
		k := make([]byte, 0, int(shared)+int(unshared))
		k = append(append(k, key[:shared]...), b[q:q+int(unshared)]...)
		q += int(unshared)
		out = append(out, tableEntry{key: k, value: b[q : q+int(vlen)]})
		key = k
		p = q + int(vlen)
	}
	return out, nil
}
