package tfmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/proto"
)

// FuzzBundleIndex feeds arbitrary bytes to the TensorBundle index reader
// (the SSTable reader and the header/entry checks), with one real data
// shard beside it (the DS-CNN's, from the shared data; skipped without):
//
//	go test ./convert/internal/tfmodel -run='^$' -fuzz=FuzzBundleIndex -fuzztime=2m
//
// Every seed is kept to a few hundred bytes. Each seed is a well-formed
// table, so almost any first mutation of it reaches an error path none of
// the seeds takes and is queued for minimisation, and Go's minimiser tries
// some n²/2 candidates on an n-byte input (it removes every subrange). A
// kilobyte seed thus holds the single worker for the whole default minute
// of -fuzzminimizetime, and the run made ten executions in forty seconds;
// the DS-CNN's 9 KiB index and the twenty-thousand-entry hostile index
// were such seeds. The DS-CNN index is cut down here to its header and
// first entries (still pointing into the real shard, so Read, the CRC and
// the decoders run), and the large hostile indexes are checked by
// TestHostileIndexes instead.
func FuzzBundleIndex(f *testing.F) {
	kwsDir := kwsModel(f)
	if b, err := os.ReadFile(kwsDir + "/variables/variables.index"); err == nil {
		if es, err := readTable(b); err == nil && len(es) > 3 {
			f.Add(writeTable(es[:3], 2, 128))
		}
	}
	f.Add(writeTable(sampleEntries(3), 2, 64))
	for _, seed := range hostileIndexes() {
		if len(seed) <= maxFuzzSeed {
			f.Add(seed)
		}
	}
	dir := f.TempDir()
	prefix := filepath.Join(dir, "variables")
	data, err := os.ReadFile(kwsDir + "/variables/variables.data-00000-of-00001")
	if err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(ShardName(prefix, 0, 1), data, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, index []byte) {
		b, err := openBundle(prefix, index)
		if err != nil {
			return
		}
		for i, k := range b.Keys() {
			if i > 16 {
				break
			}
			b.Read(k)
		}
	})
}

// maxFuzzSeed is the largest seed FuzzBundleIndex takes, in bytes: the
// minimiser's quadratic cost on a seed's mutations stays near a second.
const maxFuzzSeed = 512

// TestHostileIndexes opens each hostile index beside the DS-CNN's data
// shard: every one must be refused with an error naming the index, except
// the twenty thousand small entries, which are valid and must all open.
func TestHostileIndexes(t *testing.T) {
	kwsDir := kwsModel(t)
	data, err := os.ReadFile(kwsDir + "/variables/variables.data-00000-of-00001")
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(t.TempDir(), "variables")
	if err := os.WriteFile(ShardName(prefix, 0, 1), data, 0o644); err != nil {
		t.Fatal(err)
	}
	seeds := hostileIndexes()
	for i, seed := range seeds {
		b, err := openBundle(prefix, seed)
		if i == len(seeds)-1 {
			if err != nil {
				t.Fatalf("index of 20000 entries: %v", err)
			}
			if n := len(b.Keys()); n != 20000 {
				t.Fatalf("index of 20000 entries opened with %d keys", n)
			}
			continue
		}
		if err == nil {
			for _, k := range b.Keys() {
				if _, err = b.Read(k); err != nil {
					break
				}
			}
		}
		if err == nil {
			t.Errorf("hostile index %d: opened and read without error", i)
		} else if !strings.Contains(err.Error(), "variables") {
			t.Errorf("hostile index %d: error does not name the checkpoint: %v", i, err)
		}
	}
}

// hostileIndexes are bundle indexes of the classes a hostile checkpoint
// tries: entries declaring huge shapes and sizes (past the shard, past
// the one-tensor limit, overflowing), and very many entries.
func hostileIndexes() [][]byte {
	header, _ := proto.Marshal(&tfpb.BundleHeaderProto{NumShards: 1, Version: &tfpb.VersionDef{Producer: 1}})
	entry := func(dims []int64, size, offset int64) []byte {
		sh := &tfpb.TensorShapeProto{}
		for _, d := range dims {
			sh.Dim = append(sh.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
		}
		b, _ := proto.Marshal(&tfpb.BundleEntryProto{Dtype: tfpb.DataType_DT_FLOAT, Shape: sh, Size: size, Offset: offset})
		return b
	}
	var out [][]byte
	for _, e := range []struct {
		dims         []int64
		size, offset int64
	}{
		{[]int64{1 << 28}, 1 << 30, 0},                          // 1 GiB, past the shard
		{[]int64{1<<31 - 1, 1<<31 - 1}, 1 << 62, 0},             // elements overflow int32 dims
		{[]int64{1 << 40, 1 << 40}, 16, 0},                      // elements overflow int64
		{[]int64{4}, 16, 1<<63 - 8},                             // offset past everything
		{[]int64{-1, 4}, 16, 0},                                 // not static
		{[]int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4}, 16, 0}, // deep rank
	} {
		out = append(out, writeTable([]tableEntry{{key: []byte(""), value: header}, {key: []byte("w"), value: entry(e.dims, e.size, e.offset)}}, 16, 4096))
	}
	// Twenty thousand entries.
	many := []tableEntry{{key: []byte(""), value: header}}
	small := entry([]int64{1}, 4, 0)
	for i := 0; i < 20000; i++ {
		many = append(many, tableEntry{key: []byte(fmt.Sprintf("v%06d", i)), value: small})
	}
	out = append(out, writeTable(many, 16, 4096))
	return out
}
