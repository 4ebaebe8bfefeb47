package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
)

const (
	// floatModel is the embedded model, which the project generates
	// (float32 [1, 28, 28] → [1, 10]; see internal/benchmodel): for the
	// tests that need a model but not trained weights.
	floatModel = "embedded/seeded_lstm.tflite"
	// The third-party MNIST LSTM models and digits, under ../shared.
	mnistFloatModel = "models/mnist_lstm/trained_lstm.tflite"
	mnistInt8Model  = "models/mnist_lstm/trained_lstm_int8.tflite"
	mnistSamples    = "models/mnist_lstm/samples"
	// sharedRoot is the folder holding shared/ (the repository's parent).
	sharedRoot = "../../.."
)

// shared returns the path of rel under ../shared, skipping the test,
// naming the path, when it is absent.
func shared(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(sharedRoot, "shared", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is absent: %v", p, err)
	}
	return p
}

// tflrun runs the command in-process and returns its exit code, stdout
// and stderr.
func tflrun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

// sample returns the path of the shared sample digit n, skipping the test
// when it is absent.
func sample(t testing.TB, n int) string {
	t.Helper()
	return shared(t, fmt.Sprintf("%s/sample%d.png", mnistSamples, n))
}

// TestRunMNISTImages runs the float and int8 models on every sample PNG
// and checks that the top-1 class is the digit drawn.
func TestRunMNISTImages(t *testing.T) {
	int8Model := shared(t, mnistInt8Model)
	for _, model := range []string{shared(t, mnistFloatModel), int8Model} {
		for n := 0; n < 10; n++ {
			code, out, errs := tflrun(t, "run", model, "--input", "0="+sample(t, n), "--json")
			if code != 0 {
				t.Fatalf("%s sample%d: exit %d: %s", model, n, code, errs)
			}
			var rep runReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%s sample%d: bad JSON: %v\n%s", model, n, err, out)
			}
			if len(rep.Outputs) != 1 || len(rep.Outputs[0].Top) != 5 {
				t.Fatalf("%s sample%d: outputs %+v", model, n, rep.Outputs)
			}
			if got := rep.Outputs[0].Top[0].Class; got != n {
				t.Errorf("%s sample%d: top-1 class %d, want %d", model, n, got, n)
			}
			if rep.Inputs[0].Source != sample(t, n) {
				t.Errorf("input source %q", rep.Inputs[0].Source)
			}
		}
	}
	// The text report names the class too; inputs may be named by tensor
	// name or signature name.
	for _, key := range []string{"serving_default_fixed_input:0", "fixed_input"} {
		code, out, errs := tflrun(t, "run", int8Model, "--input", key+"="+sample(t, 7))
		if code != 0 || !regexp.MustCompile(`top 5 \(dequantised\):\n    class 7 `).MatchString(out) {
			t.Errorf("--input %s: text report (exit %d):\n%s%s", key, code, out, errs)
		}
	}
}

// TestRunGolden runs every mnist_lstm golden case through `run
// --output-dir` and compares the written .npy with TFLite's output:
// float within the case's atol, int8 exactly.
func TestRunGolden(t *testing.T) {
	root := filepath.Join(sharedRoot, "shared", "golden", "mnist_lstm")
	cases, _ := filepath.Glob(filepath.Join(root, "*", "case.json"))
	if len(cases) == 0 {
		t.Skipf("golden data not present: %s", root)
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		var meta struct {
			Model string  `json:"model"`
			Atol  float64 `json:"atol"`
			Exact bool    `json:"exact"`
		}
		raw, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		code, _, errs := tflrun(t, "run", filepath.Join(sharedRoot, meta.Model), "--input", "0="+filepath.Join(dir, "input_0.npy"), "--output-dir", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", dir, code, errs)
		}
		want, err := npy.ReadFile(filepath.Join(dir, "output_0.npy"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := npy.ReadFile(filepath.Join(out, "output_0.npy"))
		if err != nil {
			t.Fatal(err)
		}
		if got.Type != want.Type || !ops.SameShape(got.Shape, want.Shape) {
			t.Fatalf("%s: wrote %s%v, want %s%v", dir, got.Type, got.Shape, want.Type, want.Shape)
		}
		switch {
		case meta.Exact || want.Type != ops.Float32:
			if !bytes.Equal(got.Data, want.Data) {
				t.Errorf("%s: output differs from TFLite's (exact case)", filepath.Base(dir))
			}
		default:
			var worst float64
			for i := 0; i < len(want.Data); i += 4 {
				g := math.Float32frombits(binary.LittleEndian.Uint32(got.Data[i:]))
				w := math.Float32frombits(binary.LittleEndian.Uint32(want.Data[i:]))
				worst = max(worst, math.Abs(float64(g)-float64(w)))
			}
			if worst > meta.Atol {
				t.Errorf("%s: max error %g > atol %g", filepath.Base(dir), worst, meta.Atol)
			}
		}
	}
}

// TestRunInputsAndOutputs covers raw .bin input, generated inputs, and
// the output .npy's exact dtype and shape.
func TestRunInputsAndOutputs(t *testing.T) {
	// No --input: generated, with a note on stderr; deterministic.
	code, out1, errs := tflrun(t, "run", floatModel)
	if code != 0 || !strings.Contains(errs, `note: input 0 "input" float32[1 28 28] not given: filled with deterministic pseudo-random data, uniform [-1, 1)`) {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	_, out2, _ := tflrun(t, "run", floatModel)
	if out1 != out2 {
		t.Error("generated inputs are not deterministic")
	}

	int8Model := shared(t, mnistInt8Model)
	dir := t.TempDir()
	bin := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(bin, make([]byte, 28*28), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := tflrun(t, "run", int8Model, "--input", "0="+bin, "--output-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `output 0 "StatefulPartitionedCall:0" int8 [1 10] (scale=0.00390625 zero_point=-128)`) {
		t.Errorf("output line missing:\n%s", out)
	}
	a, err := npy.ReadFile(filepath.Join(dir, "output_0.npy"))
	if err != nil || a.Type != ops.Int8 || !ops.SameShape(a.Shape, []int{1, 10}) {
		t.Fatalf("output_0.npy: %v %v", a, err)
	}

	// .raw and upper-case extensions are raw bytes too, with the same
	// result as .bin.
	for _, name := range []string{"in.raw", "IN.BIN", "in.Raw"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, 28*28), 0o644); err != nil {
			t.Fatal(err)
		}
		code, got, errs := tflrun(t, "run", int8Model, "--input", "0="+p)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		if !strings.Contains(got, `output 0 "StatefulPartitionedCall:0" int8 [1 10]`) {
			t.Errorf("%s: output line missing:\n%s", name, got)
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	npyFile := func(name string, typ ops.DataType, shape []int) string {
		n := 1
		for _, d := range shape {
			n *= d
		}
		p := filepath.Join(dir, name)
		if err := npy.WriteFile(p, typ, shape, make([]byte, n*typ.Size())); err != nil {
			t.Fatal(err)
		}
		return p
	}
	model, err := os.ReadFile(floatModel)
	if err != nil {
		t.Fatal(err)
	}
	wrongDtype := npyFile("i32.npy", ops.Int32, []int{1, 28, 28})
	wrongShape := npyFile("f.npy", ops.Float32, []int{1, 14, 56})
	shortBin := write("short.bin", make([]byte, 100))
	okBin := write("ok.bin", make([]byte, 28*28*4))
	// The right byte count for the float input, but not a raw-bytes
	// extension: rejected for its kind, not read as float32 elements.
	txt := write("digits.txt", make([]byte, 28*28*4))
	noExt := write("digits", make([]byte, 28*28*4))
	truncated := write("trunc.tflite", model[:1000])
	garbage := write("garbage.tflite", []byte("this is not a model at all, just text"))
	notNpy := write("bad.npy", []byte("\x93NUMPY\x01\x00\xff\x00{"))

	// A 20x20 image for a 28x28 input.
	small := filepath.Join(dir, "small.png")
	{
		var buf bytes.Buffer
		if err := encodeGrayPNG(&buf, 20, 20); err != nil {
			t.Fatal(err)
		}
		write("small.png", buf.Bytes())
	}

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"wrong dtype npy", []string{"run", floatModel, "--input", "0=" + wrongDtype}, "the array is int32, the input \"input\" is float32"},
		{"wrong shape npy", []string{"run", floatModel, "--input", "0=" + wrongShape}, "cannot be resized"},
		{"malformed npy", []string{"run", floatModel, "--input", "0=" + notNpy}, "npy:"},
		{"wrong-size bin", []string{"run", floatModel, "--input", "0=" + shortBin}, "the file has 100 bytes"},
		{"image of wrong size", []string{"run", floatModel, "--input", "0=" + small}, "image is 20x20 (width x height), the input [1 28 28] needs 28x28"},
		{"unknown input name", []string{"run", floatModel, "--input", "nope=" + okBin}, `no input named "nope"`},
		{"input index out of range", []string{"run", floatModel, "--input", "5=" + okBin}, "no input 5 (the model has 1)"},
		{"missing input file", []string{"run", floatModel, "--input", "0=" + filepath.Join(dir, "none.bin")}, "no such file"},
		{"txt input", []string{"run", floatModel, "--input", "0=" + txt}, "--input 0=" + txt + `: unknown input file kind ".txt": want .npy (NumPy array), .png/.jpg/.jpeg (image), .wav (audio) or .bin/.raw (raw little-endian element bytes)`},
		{"missing txt input", []string{"run", floatModel, "--input", "0=" + filepath.Join(dir, "none.txt")}, `unknown input file kind ".txt"`},
		{"input without extension", []string{"run", floatModel, "--input", "0=" + noExt}, "--input 0=" + noExt + ": the file name has no extension to tell its kind: want .npy"},
		{"missing model", []string{"run", filepath.Join(dir, "missing.tflite")}, "no such file"},
		{"truncated model", []string{"run", truncated}, "trunc.tflite"},
		{"garbage model", []string{"run", garbage}, "garbage.tflite"},
		{"inspect truncated", []string{"inspect", truncated}, "trunc.tflite"},
		{"bench truncated", []string{"bench", truncated, "--num_runs", "1"}, "trunc.tflite"},
	}
	for _, c := range cases {
		code, _, errs := tflrun(t, c.args...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (stderr %q)", c.name, code, errs)
		}
		if !strings.HasPrefix(errs, "tflrun: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: stderr is not one 'tflrun: ' line: %q", c.name, errs)
		}
		if !strings.Contains(errs, c.want) {
			t.Errorf("%s: stderr %q does not mention %q", c.name, errs, c.want)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"run"},
		{"run", floatModel, "extra"},
		{"run", floatModel, "--input", "0"},
		{"run", floatModel, "--input", "=x.npy"},
		{"run", floatModel, "--no-such-flag"},
		{"bench", "a.tflite", "b.tflite"},
		{"bench", "--num_runs", "many"},
		{"inspect"},
		{"version", "x"},
	} {
		code, _, errs := tflrun(t, args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, code, errs)
		}
		if !strings.Contains(errs, "tflrun: ") {
			t.Errorf("%q: stderr %q has no 'tflrun: ' error", args, errs)
		}
	}
	if code, out, _ := tflrun(t, "--help"); code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

func TestInspect(t *testing.T) {
	code, out, _ := tflrun(t, "inspect", floatModel)
	for _, want := range []string{"schema version 3", "UNIDIRECTIONAL_SEQUENCE_LSTM v1", "options: {", "unsupported operators: none", "allocation: ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect text lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}

	// TensorFlow Lite's converter's output: its quantisation and
	// metadata.
	int8Model := shared(t, mnistInt8Model)
	code, out, errs := tflrun(t, "inspect", int8Model, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep inspectReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("inspect --json is not JSON: %v\n%s", err, out)
	}
	if rep.Version != 3 || rep.Size != 13952 || len(rep.Subgraphs) != 1 {
		t.Fatalf("report %+v", rep)
	}
	var names []string
	for _, o := range rep.Subgraphs[0].Operators {
		names = append(names, o.Name)
	}
	if got := strings.Join(names, " "); got != "UNIDIRECTIONAL_SEQUENCE_LSTM RESHAPE FULLY_CONNECTED SOFTMAX" {
		t.Errorf("operators %s", got)
	}
	in := rep.Subgraphs[0].Inputs[0]
	if in.Type != "int8" || in.Quantization == nil || in.Quantization.ZeroPoint[0] != -128 {
		t.Errorf("input %+v", in)
	}
	if len(rep.Unsupported) != 0 || rep.Allocation != "ok" || len(rep.Signatures) != 1 {
		t.Errorf("unsupported %v, allocation %q, signatures %v", rep.Unsupported, rep.Allocation, rep.Signatures)
	}

	code, out, _ = tflrun(t, "inspect", shared(t, mnistFloatModel))
	for _, want := range []string{"schema version 3", "UNIDIRECTIONAL_SEQUENCE_LSTM v1", "options: {", "unsupported operators: none", "allocation: ok", "min_runtime_version"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect text lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestInspectUnsupported lists operators without a kernel, with reasons,
// on a real model that has some.
func TestInspectUnsupported(t *testing.T) {
	model := filepath.Join(sharedRoot, "shared", "models", "recommendation_rnn", "recommendation_rnn_i10o100.tflite")
	if _, err := os.Stat(model); err != nil {
		t.Skipf("model not present: %s", model)
	}
	code, out, errs := tflrun(t, "inspect", model, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep inspectReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// The model needs GATHER and TOPK_V2 among others; whichever of them
	// tflrun lacks must be listed with a reason, and allocation must
	// report the first failure if any is missing.
	for _, u := range rep.Unsupported {
		if u.Reason == "" || u.Name == "" {
			t.Errorf("unsupported entry without name or reason: %+v", u)
		}
	}
	if len(rep.Unsupported) > 0 && !strings.HasPrefix(rep.Allocation, "failed: ") {
		t.Errorf("allocation %q with unsupported operators", rep.Allocation)
	}
}

var (
	timingsRe = regexp.MustCompile(`(?m)^INFO: Inference timings in us: Init: \d+, First inference: \d+, Warmup \(avg\): [0-9.e+]+, Inference \(avg\): [0-9.e+]+$`)
	countRe   = regexp.MustCompile(`(?m)^INFO: count=3 (first=\d+ curr=\d+ min=\d+ max=\d+ avg=[0-9.e+]+ std=\d+|curr=\d+\(all same\)) p5=\d+ median=\d+ p95=\d+$`)
)

func TestBenchEmbedded(t *testing.T) {
	code, out, errs := tflrun(t, "bench", "--num_runs", "3", "--warmup_runs", "1", "--min_secs", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "tflrun bench: no model given; benchmarking the embedded seeded_lstm.tflite (float32 LSTM(20) over a [1, 28, 28] input") {
		t.Errorf("first line %q", lines[0])
	}
	for _, want := range []string{
		"INFO: Min num runs: [3]",
		"INFO: Min runs duration (seconds): [0]",
		"INFO: The input model file size (MB): 0.04096",
		"INFO: Running benchmark for at least 1 iterations and at least 0.5 seconds but terminate if exceeding 150 seconds.",
		"INFO: Running benchmark for at least 3 iterations and at least 0 seconds but terminate if exceeding 150 seconds.",
		"INFO: Memory footprint delta from the start of the tool (MB): init=",
		"INFO: Inference percentiles in us: median=",
		"INFO: Interpreter memory (bytes): arena=",
		"INFO: Peak resident set size (MB): ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !timingsRe.MatchString(out) {
		t.Error("no 'Inference timings in us' line in TFLite's format")
	}
	if !countRe.MatchString(out) {
		t.Error("no 'count=3 first=... p95=...' line in TFLite's format")
	}
	if t.Failed() {
		t.Log(out)
	}
}

func TestBenchProfileAndJSON(t *testing.T) {
	code, out, errs := tflrun(t, "bench", floatModel, "--num_runs", "2", "--warmup_runs", "0", "--warmup_min_secs", "0", "--min_secs", "0",
		"--enable_op_profiling", "--num_threads", "4", "--report_peak_memory_footprint")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"INFO: Graph: [" + floatModel + "]",
		"INFO: Num threads: [4]",
		"Operator-wise Profiling Info for Regular Benchmark Runs:",
		"============================== Run Order ==============================",
		"============================== Summary by node type ==============================",
		"Number of nodes executed: 4",
		"UNIDIRECTIONAL_SEQUENCE_LSTM",
		"INFO: Overall peak memory footprint (MB) via periodic monitoring: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}

	code, out, errs = tflrun(t, "bench", "--num_runs", "2", "--warmup_runs", "1", "--warmup_min_secs", "0", "--min_secs", "0", "--json", "--enable_op_profiling")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Model     string `json:"model"`
		Inference struct {
			Count int `json:"count"`
		} `json:"inference"`
		Profile struct {
			Runs   int `json:"runs"`
			ByType []struct {
				Type string `json:"type"`
			} `json:"by_type"`
		} `json:"op_profile"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out)
	}
	if res.Model != "embedded:seeded_lstm.tflite" || res.Inference.Count != 2 || res.Profile.Runs != 2 || len(res.Profile.ByType) != 4 {
		t.Errorf("bench --json: %+v", res)
	}
	if !strings.Contains(errs, "embedded") {
		t.Errorf("embedded note not on stderr in --json mode: %q", errs)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := tflrun(t, "version")
	if code != 0 || !regexp.MustCompile(`^tflrun \S+.* go\d+\.\d+\S* \w+/\w+\n$`).MatchString(out) {
		t.Errorf("version: exit %d %q", code, out)
	}
}

// TestMain lets TestBinary run this test binary as the tflrun command:
// with runAsCommandEnv=1 in its environment the process runs main with its
// arguments instead of the tests, so the real process's exit codes and
// stderr are checked without linking the command a second time.
func TestMain(m *testing.M) {
	if os.Getenv(runAsCommandEnv) == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

const runAsCommandEnv = "TFLRUN_TEST_RUN_AS_COMMAND"

// TestBinary runs the command as a real process (this test binary,
// through TestMain) and checks exit codes and stderr (no Go stack trace on
// a user error).
func TestBinary(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), runAsCommandEnv+"=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	if code, out, errs := run("run", floatModel, "--output-dir", t.TempDir()); code != 0 || !strings.Contains(out, `output 0 "probabilities" float32 [1 10]`) {
		t.Errorf("run: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := run("run", "nonexistent.tflite"); code != 1 || !strings.HasPrefix(errs, "tflrun: ") || strings.Contains(errs, "goroutine") {
		t.Errorf("missing model: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := run("bogus"); code != 2 || !strings.HasPrefix(errs, "tflrun: ") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errs)
	}
	// A trained model classifies an image read by the process.
	model := shared(t, mnistFloatModel)
	if code, out, _ := run("run", model, "--input", "0="+sample(t, 4), "--output-dir", t.TempDir()); code != 0 || !strings.Contains(out, "class 4 ") {
		t.Errorf("run: exit %d\n%s", code, out)
	}
}

// encodeGrayPNG writes a w×h mid-gray PNG.
func encodeGrayPNG(buf *bytes.Buffer, w, h int) error {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 128
	}
	return png.Encode(buf, img)
}

// TestBenchFusedFloat checks that --fused_float is logged with the other
// parameters, and noted as without effect at a level lacking fused
// kernels.
func TestBenchFusedFloat(t *testing.T) {
	code, out, errs := tflrun(t, "bench", floatModel, "--num_runs", "1", "--warmup_runs", "0", "--warmup_min_secs", "0", "--min_secs", "0", "--fused_float")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "INFO: Fused float multiply-adds: [1]") {
		t.Errorf("output lacks the fused_float parameter:\n%s", out)
	}
	if noted := strings.Contains(out, "--fused_float has no effect"); noted == arch.GemmF32Fuses() {
		t.Errorf("at %s (fused kernels %v) the no-effect note is present: %v\n%s", arch.Current(), arch.GemmF32Fuses(), noted, out)
	}
}
