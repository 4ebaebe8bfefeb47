package tfmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/proto"
)

// FuzzBundleIndex feeds arbitrary bytes to the TensorBundle index reader
// (the SSTable reader and the header/entry checks), with one real data
// shard beside it (the DS-CNN's, from the shared data; skipped without):
//
//	go test ./convert/internal/tfmodel -run='^$' -fuzz=FuzzBundleIndex -fuzztime=2m -fuzzminimizetime=2s
//
// With the default minute of minimisation per new input, the first input
// found from the large seeds (twenty thousand entries, the DS-CNN's index)
// holds the run: ten executions in a minute instead of some two thousand
// a second.
func FuzzBundleIndex(f *testing.F) {
	kwsDir := kwsModel(f)
	if b, err := os.ReadFile(kwsDir + "/variables/variables.index"); err == nil {
		f.Add(b)
	}
	f.Add(writeTable(sampleEntries(20), 4, 128))
	for _, seed := range hostileIndexes() {
		f.Add(seed)
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
