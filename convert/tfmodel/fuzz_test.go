package tfmodel

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzBundleIndex feeds arbitrary bytes to the TensorBundle index reader
// (the SSTable reader and the header/entry checks), with one real data
// shard beside it (the DS-CNN's, from the shared data; skipped without):
//
//	go test ./convert/tfmodel -run='^$' -fuzz=FuzzBundleIndex -fuzztime=2m
func FuzzBundleIndex(f *testing.F) {
	kwsDir := kwsModel(f)
	if b, err := os.ReadFile(kwsDir + "/variables/variables.index"); err == nil {
		f.Add(b)
	}
	f.Add(writeTable(sampleEntries(20), 4, 128))
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
