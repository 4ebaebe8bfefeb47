package interpreter

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/parallel"
)

// goldenThreadFolders are every golden folder the interpreter's tests
// check, for TestGoldenThreads.
func goldenThreadFolders() []string {
	roots := []string{
		filepath.Join(sharedGolden, "mnist_lstm"),
		filepath.Join(sharedGolden, "dtln"),
		filepath.Join("..", "testdata", "golden", "recurrent"),
	}
	for _, f := range goldenSharedFolders {
		roots = append(roots, filepath.Join(sharedGolden, f))
	}
	return roots
}

// TestGoldenThreads runs every golden case at 1 thread (checked against
// TensorFlow Lite as in the other golden tests) and at 2, 3 and 4 threads
// with every operator split whatever its size (parallel.SetMinWork(0)),
// and requires every output to be bit-identical to the one-thread
// output. Folders absent from ../shared are skipped, naming them.
func TestGoldenThreads(t *testing.T) {
	defer parallel.SetMinWork(parallel.SetMinWork(0))
	ran := 0
	for _, root := range goldenThreadFolders() {
		if _, err := os.Stat(root); err != nil {
			t.Logf("skipped: %s is absent", root)
			continue
		}
		dirs := goldenCases(t, root)
		if root == filepath.Join("..", "testdata", "golden", "recurrent") {
			kept := dirs[:0]
			for _, d := range dirs {
				for _, p := range goldenRecurrentFamilies {
					if len(filepath.Base(d)) >= len(p) && filepath.Base(d)[:len(p)] == p {
						kept = append(kept, d)
						break
					}
				}
			}
			dirs = kept
		}
		for _, dir := range dirs {
			name, _ := filepath.Rel(filepath.Dir(root), dir)
			t.Run(name, func(t *testing.T) {
				var one [][]byte
				if _, err := runGoldenCaseThreads(dir, 1, &one); err != nil {
					t.Fatal(err)
				}
				for threads := 2; threads <= 4; threads++ {
					var got [][]byte
					if _, err := runGoldenCaseThreads(dir, threads, &got); err != nil {
						t.Fatalf("%d threads: %v", threads, err)
					}
					for j := range one {
						if !bytes.Equal(got[j], one[j]) {
							t.Fatalf("%d threads: output %d differs from one thread's", threads, j)
						}
					}
				}
			})
			ran++
		}
	}
	if ran == 0 {
		t.Skip("no golden cases found")
	}
}
