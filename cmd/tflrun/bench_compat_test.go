package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBenchmarkModelCommandLine runs a TensorFlow Lite benchmark_model
// command line, flags spelled as its users write them, unchanged against
// tflrun bench.
func TestBenchmarkModelCommandLine(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "input.bin", make([]byte, 28*28*4))
	csv := filepath.Join(dir, "profile.csv")
	code, out, errs := tflrun(t, "bench",
		"--graph="+floatModel,
		"--num_threads=4",
		"--warmup_runs=1",
		"--warmup_min_secs=0",
		"--num_runs=3",
		"--min_secs=0",
		"--enable_op_profiling=true",
		"--profiling_output_csv_file="+csv,
		"--input_layer=serving_input",
		"--input_layer_shape=1,28,28",
		"--input_layer_value_files=serving_input:"+in,
		"--use_xnnpack=true",
		"--use_gpu=false",
		"--use_nnapi=true",
		"--use_hexagon=false",
		"--use_coreml=false",
		"--gpu_precision_loss_allowed=true",
		"--verbose=true",
		"--print_postinvoke_state=true",
		"--report_peak_memory_footprint=true",
	)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"INFO: Log parameter values verbosely: [1]",
		"INFO: Min num runs: [3]",
		"INFO: Run w/o invoking kernels: [0]",
		"INFO: Input layers: [serving_input]",
		"INFO: Input shapes: [1,28,28]",
		"INFO: CSV File to export profiling data to: [" + csv + "]",
		"INFO: --use_xnnpack=true ignored: tflrun has no delegates",
		"INFO: --use_nnapi=true ignored",
		"INFO: --use_gpu=false ignored",
		"WARNING: Tensor # 0 is named input but flags call it serving_input",
		`INFO: Input 0 "input" float32[1 28 28] filled from ` + in,
		"INFO: Wrote the operator profile to " + csv + " (CSV).",
		"====Printing out TfLite interpreter post-invoke state begins====",
		"-----------Subgraph-0 has 22 tensors and 4 nodes------------",
		"Node   0 Operator Builtin Code  44 UNIDIRECTIONAL_SEQUENCE_LSTM",
		"INFO: Inference timings in us: Init: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
	b, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		`(?m)^Operator-wise Profiling Info for Regular Benchmark Runs:\n============================== Run Order ==============================\nnode type, start, first, avg_ms, %, cdf%, mem KB, times called, name\n`,
		`(?m)^UNIDIRECTIONAL_SEQUENCE_LSTM, 0, [0-9.e+-]+, [0-9.e+-]+, [0-9.e+-]+%, [0-9.e+-]+%, 0, 1, \[[^\]]*\]:0$`,
		`(?m)^SOFTMAX, [0-9.e+-]+, [0-9.e+-]+, [0-9.e+-]+, [0-9.e+-]+%, 100%, 0, 1, \[probabilities\]:3$`,
		`(?m)^============================== Top by Computation Time ==============================$`,
		`(?m)^Number of nodes executed: 4\n============================== Summary by node type ==============================\nnode type, count, avg_ms, avg %, cdf %, mem KB, times called\n`,
		`(?m)^Timings \(microseconds\): count=3 .*\nMemory \(bytes\): count=0\n4 nodes observed$`,
	} {
		if !regexp.MustCompile(re).Match(b) {
			t.Errorf("CSV does not match %s:\n%s", re, b)
		}
	}

	// --dry_run runs nothing; a value range fills random inputs within it.
	code, out, errs = tflrun(t, "bench", "--graph="+floatModel, "--dry_run=true", "--input_layer=input", "--input_layer_shape=1,28,28", "--input_layer_value_range=input,0,1")
	if code != 0 || !strings.Contains(out, "INFO: count=0\n") || !strings.Contains(out, "uniform [0, 1] (--input_layer_value_range)") {
		t.Errorf("--dry_run: exit %d %s\n%s", code, errs, out)
	}
	// benchmark_model's checks.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--input_layer=a,b", "--input_layer_shape=1,28,28"}, "must match the number of items in --input_layer"},
		{[]string{"--input_layer=a", "--input_layer_shape=1,-1,28"}, "(-1's) must be replaced"},
		{[]string{"--input_layer=a", "--input_layer_shape=1,28"}, "input tensor #0 should have 3 dimensions"},
		{[]string{"--input_layer=a", "--input_layer_shape=1,28,28", "--input_layer_value_range=b,0,1"}, "cannot find the corresponding input_layer name(b)"},
		{[]string{"--input_layer=a", "--input_layer_shape=1,28,28", "--input_layer_value_range=a,5,1"}, "wrong low and high value"},
		{[]string{"--input_layer=a", "--input_layer_shape=1,28,28", "--input_layer_value_files=a:" + writeFile(t, dir, "short.bin", []byte{1})}, "is 1 bytes; it should be 3136 bytes"},
		{[]string{"--profiling_output_csv_file=" + csv}, "needs enable_op_profiling"},
	} {
		code, _, errs := tflrun(t, append([]string{"bench", "--graph=" + floatModel, "--num_runs=1"}, c.args...)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d %q, want %q", c.args, code, errs, c.want)
		}
	}
	if code, _, errs := tflrun(t, "bench", "--use_gpu=maybe"); code != 2 {
		t.Errorf("--use_gpu=maybe: exit %d %s", code, errs)
	}

	// The JSON report's header.
	code, out, errs = tflrun(t, "bench", "--graph="+floatModel, "--num_runs=1", "--min_secs=0", "--warmup_min_secs=0", "--json", "--use_xnnpack=true", "--num_threads=2")
	if code != 0 {
		t.Fatalf("--json: exit %d %s", code, errs)
	}
	var res struct {
		Tool struct {
			Version   string `json:"version"`
			GoVersion string `json:"go_version"`
			GOOS      string `json:"goos"`
			GOARCH    string `json:"goarch"`
			CPU       *string
			ISA       string `json:"isa"`
			Threads   int    `json:"threads"`
		} `json:"tflrun"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if h := res.Tool; h.Version == "" || h.GOOS == "" || h.GOARCH == "" || h.ISA == "" || h.Threads != 2 || !strings.HasPrefix(h.GoVersion, "go") {
		t.Errorf("JSON header %+v", h)
	}
	if !strings.Contains(out, `"cpu": `) || !strings.Contains(errs, "--use_xnnpack=true ignored") {
		t.Errorf("JSON lacks cpu or the delegate note is not on stderr: %s", errs)
	}
}
