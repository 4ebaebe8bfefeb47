package bench_test

import (
	"fmt"
	"log"
	"path/filepath"

	"github.com/tflrun/tflrun/bench"
)

// Run measures a model the way benchmark_model does; the Result holds the
// statistics `tflrun bench` prints (and writes as JSON).
func Example() {
	opts := bench.DefaultOptions()
	opts.NumRuns, opts.MinSecs = 5, 0 // exactly 5 timed runs
	opts.WarmupRuns, opts.WarmupMinSecs = 1, 0
	// The embedded model of `tflrun bench`: the project's seeded LSTM.
	res, err := bench.Run(bench.Source{Path: filepath.Join("..", "cmd", "tflrun", "embedded", "seeded_lstm.tflite")}, opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("timed runs:", res.Inference.Count)
	fmt.Println("median within [min, max]:", res.Inference.Min <= res.Inference.Median && res.Inference.Median <= res.Inference.Max)
	fmt.Println("inputs filled:", len(res.Inputs))
	// Output:
	// timed runs: 5
	// median within [min, max]: true
	// inputs filled: 1
}
