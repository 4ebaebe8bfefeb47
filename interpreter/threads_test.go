package interpreter

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestInvokeAllocatesNothingThreaded: Invoke on 4 threads allocates
// nothing (no goroutine, channel or closure per Invoke), with operators
// split at their measured threshold and with every operator split.
func TestInvokeAllocatesNothingThreaded(t *testing.T) {
	for _, name := range []string{"vww_96/vww_96_int8.tflite", "vww_96/vww_96_float.tflite", "mobilenet_v1_025_128_uint8/mobilenet_v1_0.25_128_quant.tflite", "mnist_lstm/trained_lstm.tflite"} {
		path := filepath.Join("..", "..", "shared", "models", name)
		if _, err := os.Stat(path); err != nil {
			t.Logf("skipped: %s is absent", path)
			continue
		}
		for _, minWork := range []int{parallel.MinWork, 0} {
			old := parallel.SetMinWork(minWork)
			m, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			it, err := New(m, &Options{NumThreads: 4})
			if err != nil {
				t.Fatal(err)
			}
			if err := it.AllocateTensors(); err != nil {
				t.Fatal(err)
			}
			if it.NumThreads() != 4 {
				t.Errorf("NumThreads() = %d, want 4", it.NumThreads())
			}
			allocs := testing.AllocsPerRun(10, func() {
				if err := it.Invoke(); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s (min work %d): Invoke on 4 threads allocates %v times, want 0", name, minWork, allocs)
			}
			it.Close()
			m.Close()
			parallel.SetMinWork(old)
		}
	}
}

// TestNumThreadsOption: the values Options.NumThreads takes, and the
// ones New refuses.
func TestNumThreadsOption(t *testing.T) {
	m, err := LoadBytes(pack(fcModel()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want int }{{0, 1}, {1, 1}, {3, 3}, {-1, parallel.Threads(-1)}} {
		it, err := New(m, &Options{NumThreads: c.in})
		if err != nil {
			t.Fatalf("NumThreads %d: %v", c.in, err)
		}
		if it.NumThreads() != c.want {
			t.Errorf("NumThreads %d: resolved to %d, want %d", c.in, it.NumThreads(), c.want)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []int{-2, MaxThreads + 1} {
		if _, err := New(m, &Options{NumThreads: bad}); err == nil || !strings.Contains(err.Error(), "NumThreads") {
			t.Errorf("NumThreads %d: error %v, want one naming NumThreads", bad, err)
		}
	}
}

// TestCloseStopsWorkers: Close ends the worker goroutines AllocateTensors
// started.
func TestCloseStopsWorkers(t *testing.T) {
	m, err := LoadBytes(pack(fcModel()))
	if err != nil {
		t.Fatal(err)
	}
	it, err := New(m, &Options{NumThreads: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	pool := it.pool
	if err := it.AllocateTensors(); err != nil { // a second plan reuses the pool
		t.Fatal(err)
	}
	if it.pool != pool {
		t.Error("a second AllocateTensors started another pool")
	}
	// The pool's own count, not the process's goroutines: other tests'
	// come and go meanwhile (under -race in CI they did).
	if n := pool.Workers(); n != 7 {
		t.Errorf("%d pool workers after AllocateTensors on 8 threads, want 7", n)
	}
	it.Close()
	deadline := time.Now().Add(5 * time.Second)
	for pool.Workers() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := pool.Workers(); n > 0 {
		t.Errorf("%d pool workers left 5 s after Close, want 0", n)
	}
}
