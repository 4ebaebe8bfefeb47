package interpreter

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// threadCorpusModels are corpus CNNs (internal/corpus/tflite.tsv names)
// whose operators cover every threaded family: CONV_2D,
// DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, MUL, MAX_POOL_2D, SOFTMAX,
// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR and CONCATENATION, in float32,
// int8 and uint8, and hybrid (dynamic-range) CONV_2D.
var threadCorpusModels = []string{
	"image_cls/coral_mobilenet_v2_1.0_224_quant.tflite",
	"image_cls/tiny_pretrainedResnet_float.tflite",
	"detection/support_coco_ssd_mobilenet_v1_quant.tflite",
	"detection/nxp_yolo11n_full_integer_quant.tflite",
	"segmentation/support_deeplabv3.tflite",
	"face_hand/mediapipe_palm_detection_lite.tflite",
	"detection/nxp_yolov8n_int8.tflite",
	"image_cls/examples_mobilenet_v2_035_96_embedder.tflite",
}

// threadCorpusDir is the .tflite corpus folder (TFLRUN_TFLITE_CORPUS),
// or "" after skipping t when it is not set.
func threadCorpusDir(t *testing.T) string {
	dir := os.Getenv("TFLRUN_TFLITE_CORPUS")
	if dir == "" {
		t.Skip("TFLRUN_TFLITE_CORPUS is not set: no .tflite corpus")
	}
	return dir
}

// fillDeterministic sets every input of it to pseudo-random values of
// its type (floats in [-1, 1), integers over their range) from seed.
func fillDeterministic(it *Interpreter, seed uint32) {
	s := seed
	next := func() uint32 { s = s*1664525 + 1013904223; return s }
	for i := 0; i < it.InputCount(); i++ {
		in := it.Input(i)
		d := in.Data
		if in.Type == ops.Float32 {
			for j := 0; j+4 <= len(d); j += 4 {
				binary.LittleEndian.PutUint32(d[j:], math.Float32bits(float32(next()>>8)/(1<<23)-1))
			}
			continue
		}
		for j := range d {
			d[j] = byte(next() >> 24)
		}
	}
}

// invokeOutputs runs path at threads threads on the seed's inputs and
// returns copies of the outputs.
func invokeOutputs(t *testing.T, path string, threads int) [][]byte {
	t.Helper()
	return invokeInspect(t, path, threads, nil)
}

// invokeInspect is invokeOutputs that also hands the interpreter to
// inspect (when not nil) after the Invoke, before it is closed.
func invokeInspect(t *testing.T, path string, threads int, inspect func(*Interpreter)) [][]byte {
	t.Helper()
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	it, err := New(m, &Options{NumThreads: threads})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	fillDeterministic(it, 7)
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	var outs [][]byte
	for j := 0; j < it.OutputCount(); j++ {
		outs = append(outs, append([]byte(nil), it.Output(j).Data...))
	}
	if inspect != nil {
		inspect(it)
	}
	return outs
}

// corpusFusionCase is a corpus model (relative to the corpus folder) and
// how many operators a graph fusion changes in it.
type corpusFusionCase struct {
	name  string
	count int
}

// testCorpusFusion runs each corpus model with the fusion that *flag
// switches off (1 thread) and on (1 and 3 threads), and requires the
// outputs of the unfused graph, bit for bit, and count(it) — what the
// fusion did, named by what — to be the case's count. Absent models are
// skipped, named.
func testCorpusFusion(t *testing.T, what string, cases []corpusFusionCase, flag *bool, count func(*Interpreter) int) {
	dir := threadCorpusDir(t)
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if _, err := os.Stat(path); err != nil {
			t.Logf("skipped: %s is absent", path)
			continue
		}
		t.Run(filepath.Base(c.name), func(t *testing.T) {
			run := func(on bool, threads int) ([][]byte, int) {
				old := *flag
				*flag = on
				defer func() { *flag = old }()
				n := 0
				outs := invokeInspect(t, path, threads, func(it *Interpreter) { n = count(it) })
				return outs, n
			}
			want, _ := run(false, 1)
			for _, threads := range []int{1, 3} {
				got, n := run(true, threads)
				if n != c.count {
					t.Errorf("%d threads: %d %s, want %d", threads, n, what, c.count)
				}
				for j := range want {
					if !bytes.Equal(got[j], want[j]) {
						t.Errorf("%d threads: output %d differs from the unfused graph's", threads, j)
					}
				}
			}
		})
	}
}

// TestCorpusThreads runs corpus CNNs at 2, 3 and 4 threads, with the
// measured work threshold and with every operator split
// (parallel.SetMinWork(0)), and requires outputs bit-identical to one
// thread's.
func TestCorpusThreads(t *testing.T) {
	dir := threadCorpusDir(t)
	for _, name := range threadCorpusModels {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			t.Logf("skipped: %s is absent", path)
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			one := invokeOutputs(t, path, 1)
			for _, minWork := range []int{parallel.MinWork, 0} {
				old := parallel.SetMinWork(minWork)
				for threads := 2; threads <= 4; threads++ {
					got := invokeOutputs(t, path, threads)
					for j := range one {
						if !bytes.Equal(got[j], one[j]) {
							t.Errorf("min work %d, %d threads: output %d differs from one thread's", minWork, threads, j)
						}
					}
				}
				parallel.SetMinWork(old)
			}
		})
	}
}

// TestCorpusInvokeAllocatesNothingThreaded: Invoke of the corpus CNNs on
// 4 threads allocates nothing.
func TestCorpusInvokeAllocatesNothingThreaded(t *testing.T) {
	dir := threadCorpusDir(t)
	for _, name := range threadCorpusModels {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			t.Logf("skipped: %s is absent", path)
			continue
		}
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
		fillDeterministic(it, 3)
		allocs := testing.AllocsPerRun(3, func() {
			if err := it.Invoke(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: Invoke on 4 threads allocates %v times, want 0", name, allocs)
		}
		it.Close()
		m.Close()
	}
}
