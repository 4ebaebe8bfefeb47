package interpreter

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadAllocateInvoke feeds arbitrary bytes through the whole path a
// model file takes: LoadBytes (verification), New, AllocateTensors and one
// Invoke with the inputs left as allocated. Any error is fine; a panic, a
// hang or an allocation beyond the arena limit is a bug. The seeds are the
// generated LSTM model tflrun bench embeds, the real MNIST LSTM models of
// ../../shared/models (float and int8, when present) and the small test
// models of this package, so `go test` runs them on every test run. The
// 364 KB DTLN model is left out: Go's mutator slows to a few executions a
// minute on inputs that large (the golden and hostile tests cover it).
//
//	go test ./interpreter -run='^$' -fuzz=FuzzLoadAllocateInvoke -fuzztime=5m
func FuzzLoadAllocateInvoke(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "shared", "models", "mnist_lstm", "*.tflite"))
	seeds = append(seeds, filepath.Join("..", "cmd", "tflrun", "embedded", "seeded_lstm.tflite"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(pack(fcModel()))
	f.Add(pack(lstmModel()))
	f.Add(pack(reshapeModel([]int32{3, 2}, []int32{3, 2})))
	f.Add(pack(dequantModel(f, false))) // float16 weights: precomputed DEQUANTIZE
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = loadAndAllocate(b)
	})
}
