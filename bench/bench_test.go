package bench

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/interpreter"
)

// floatModel is the command's embedded model, which the project generates:
// a float32 LSTM(20) over [1, 28, 28] → FULLY_CONNECTED → SOFTMAX, 40960
// bytes (see cmd/tflrun/embedded/README.md).
var floatModel = filepath.Join("..", "cmd", "tflrun", "embedded", "seeded_lstm.tflite")

func TestComputeStats(t *testing.T) {
	s := computeStats([]int64{5, 1, 3, 2, 4})
	if s.Count != 5 || s.First != 5 || s.Curr != 4 || s.Min != 1 || s.Max != 5 || s.Avg != 3 {
		t.Errorf("stats %+v", s)
	}
	// Population variance (25+1+9+4+16)/5 - 9 = 2.
	if math.Abs(s.Std-math.Sqrt2) > 1e-12 || s.tfliteStd != 1 {
		t.Errorf("std %v (tflite %d), want sqrt(2) (1)", s.Std, s.tfliteStd)
	}
	if got, want := s.tfliteLine(), "count=5 first=5 curr=4 min=1 max=5 avg=3 std=1 p5=1 median=3 p95=5"; got != want {
		t.Errorf("line %q\nwant %q", got, want)
	}

	var hundred []int64
	for i := int64(100); i >= 1; i-- {
		hundred = append(hundred, i)
	}
	s = computeStats(hundred)
	// Index floor(100*p/100) of 1..100 sorted is the value p+1.
	if s.P5 != 6 || s.Median != 51 || s.P90 != 91 || s.P95 != 96 || s.P99 != 100 {
		t.Errorf("percentiles %+v", s)
	}

	if got := computeStats([]int64{7, 7}).tfliteLine(); got != "count=2 curr=7(all same) p5=7 median=7 p95=7" {
		t.Errorf("all same: %q", got)
	}
	if got := computeStats([]int64{9}).tfliteLine(); got != "count=1 curr=9 p5=9 median=9 p95=9" {
		t.Errorf("one run: %q", got)
	}
	if got := computeStats(nil).tfliteLine(); got != "count=0" {
		t.Errorf("no runs: %q", got)
	}

	// Against a two-pass float64 reference on random data.
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, 1000)
	for i := range vals {
		vals[i] = 100 + r.Int64N(50)
	}
	s = computeStats(vals)
	var mean, ss float64
	for _, v := range vals {
		mean += float64(v)
	}
	mean /= float64(len(vals))
	for _, v := range vals {
		ss += (float64(v) - mean) * (float64(v) - mean)
	}
	if ref := math.Sqrt(ss / float64(len(vals))); math.Abs(s.Std-ref) > 1e-9*ref || math.Abs(s.Avg-mean) > 1e-9 {
		t.Errorf("std %v avg %v, reference %v %v", s.Std, s.Avg, ref, mean)
	}
}

func TestCppFloat(t *testing.T) {
	for v, want := range map[float64]string{
		25.5: "25.5", 0.04124: "0.04124", 1234567: "1.23457e+06", 100: "100",
		112.44333: "112.443", 0: "0", 0.5: "0.5", 150: "150", 0.0001: "0.0001", 0.00001: "1e-05",
	} {
		if got := cppFloat(v); got != want {
			t.Errorf("cppFloat(%v) = %q, want %q", v, got, want)
		}
	}
}

func quick() Options {
	o := DefaultOptions()
	o.MinSecs, o.WarmupMinSecs = 0, 0
	return o
}

func TestRunLoops(t *testing.T) {
	if _, err := os.Stat(floatModel); err != nil {
		t.Skipf("model not present: %s", floatModel)
	}
	o := quick()
	o.NumRuns, o.WarmupRuns = 5, 2
	res, err := Run(Source{Path: floatModel}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Inference.Count != 5 || res.Warmup.Count != 2 {
		t.Errorf("counts: warm-up %d, timed %d; want 2, 5", res.Warmup.Count, res.Inference.Count)
	}
	if res.ModelBytes != 40960 || res.InitMicros <= 0 || res.ArenaBytes <= 0 || res.VariableBytes <= 0 {
		t.Errorf("result %+v", res)
	}
	if runtime.GOOS == "linux" && (res.Memory.PeakRSSSource != "VmHWM" || res.Memory.PeakRSSBytes <= 0 || !res.Memory.Supported) {
		t.Errorf("memory %+v", res.Memory)
	}
	if res.Memory.PeakMonitoredMB != -1 {
		t.Errorf("peak monitored without ReportPeakMemory: %v", res.Memory.PeakMonitoredMB)
	}

	// min_secs keeps running past num_runs.
	o = quick()
	o.NumRuns, o.WarmupRuns, o.MinSecs = 1, 0, 0.05
	res, err = Run(Source{Path: floatModel}, o)
	if err != nil {
		t.Fatal(err)
	}
	// One run takes well under 50 ms, so min_secs must have added runs.
	if res.Inference.Count < 2 {
		t.Errorf("min_secs 0.05: %d runs", res.Inference.Count)
	}

	// max_secs 0 stops after the first run whatever num_runs says.
	o = quick()
	o.NumRuns, o.WarmupRuns, o.MaxSecs = 1000, 0, 0
	res, err = Run(Source{Path: floatModel}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Inference.Count >= 1000 || res.Inference.Count < 1 {
		t.Errorf("max_secs 0: %d runs", res.Inference.Count)
	}
}

func TestRunProfileAndText(t *testing.T) {
	b, err := os.ReadFile(floatModel)
	if err != nil {
		t.Skipf("model not present: %s", floatModel)
	}
	o := quick()
	o.NumRuns, o.WarmupRuns = 4, 1
	o.EnableOpProfiling, o.ReportPeakMemory = true, true
	o.Changed = []string{"num_runs", "enable_op_profiling"}
	res, err := Run(Source{Bytes: b, Name: "mem:lstm"}, o)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	if p == nil || p.Runs != 4 || len(p.Ops) != 4 || len(p.ByType) != 4 {
		t.Fatalf("profile %+v", p)
	}
	var sum float64
	for _, op := range p.Ops {
		sum += op.Percent
		if op.TimesCalled != 1 || op.AvgMs < 0 || !strings.HasSuffix(op.Name, "]:"+string(rune('0'+op.Index))) {
			t.Errorf("op %+v", op)
		}
	}
	if math.Abs(sum-100) > 1e-6 || math.Abs(p.Ops[3].CDF-100) > 1e-6 || math.Abs(p.ByType[3].CDF-100) > 1e-3 {
		t.Errorf("percentages sum %v, cdf %v / %v", sum, p.Ops[3].CDF, p.ByType[3].CDF)
	}
	for i := 1; i < len(p.ByType); i++ {
		if p.ByType[i].AvgMs > p.ByType[i-1].AvgMs {
			t.Errorf("by-type not sorted by time: %+v", p.ByType)
		}
	}
	if runtime.GOOS == "linux" && res.Memory.PeakMonitoredMB <= 0 {
		t.Errorf("peak monitored %v", res.Memory.PeakMonitoredMB)
	}

	var buf bytes.Buffer
	res.WriteText(&buf)
	out := buf.String()
	for _, want := range []string{
		"INFO: Min num runs: [4]\n",
		"INFO: Enable op profiling: [1]\n",
		"INFO: Graph: [mem:lstm]\n",
		"INFO: The input model file size (MB): 0.04096\n",
		"INFO: Running benchmark for at least 4 iterations and at least 0 seconds but terminate if exceeding 150 seconds.\n",
		"INFO: count=4 ",
		"INFO: Inference timings in us: Init: ",
		"Operator-wise Profiling Info for Regular Benchmark Runs:",
		"Number of nodes executed: 4",
		// Wider than the 24-character column: not padded, as in TFLite.
		"\tUNIDIRECTIONAL_SEQUENCE_LSTM\t",
		"\t         FULLY_CONNECTED\t",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if strings.Contains(out, "Min warmup runs") {
		t.Error("unchanged parameter logged")
	}
	if t.Failed() {
		t.Log(out)
	}
}

func TestFillDeterministic(t *testing.T) {
	m, err := interpreter.Load(floatModel)
	if err != nil {
		t.Skipf("model not present: %v", err)
	}
	defer m.Close()
	fill := func(seed uint64) []byte {
		it, err := interpreter.New(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		f, err := FillInputs(it, seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(f) != 1 || f[0].Distribution != "uniform [-1, 1)" || f[0].TypeName != "float32" {
			t.Errorf("fill %+v", f)
		}
		return append([]byte(nil), it.Input(0).Data...)
	}
	a, b, c := fill(DefaultSeed), fill(DefaultSeed), fill(7)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different data")
	}
	if bytes.Equal(a, c) {
		t.Error("different seed, same data")
	}
	var lo, hi float32 = 1, -1
	for i := 0; i < len(a); i += 4 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(a[i:]))
		if v < -1 || v >= 1 {
			t.Fatalf("value %v outside [-1, 1)", v)
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo > -0.9 || hi < 0.9 {
		t.Errorf("values span only [%v, %v]", lo, hi)
	}
}

// TestLookupRows finds the GATHER table behind an int32 input of real
// models (the rows recorded in shared/golden/README.md).
func TestLookupRows(t *testing.T) {
	for _, c := range []struct {
		path string
		rows int
		op   string
	}{
		{"text_classifier/regex_one_embedding_with_metadata.tflite", 10003, "GATHER"},
		{"recommendation_rnn/recommendation_rnn_i10o100.tflite", 3953, "GATHER"},
	} {
		path := filepath.Join("..", "..", "shared", "models", c.path)
		m, err := interpreter.Load(path)
		if err != nil {
			t.Logf("skipping %s: %v", c.path, err)
			continue
		}
		it, err := interpreter.New(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		in := m.Subgraphs[0].Inputs[0]
		if rows, op := lookupRows(it, in); rows != c.rows || op != c.op {
			t.Errorf("%s: rows %d via %q, want %d via %s", c.path, rows, op, c.rows, c.op)
		}
		m.Close()
	}
	type gatherOptions struct{ Axis int32 }
	if optionAxis(&gatherOptions{Axis: -1}) != -1 || optionAxis(nil) != 0 || optionAxis(struct{ X int }{3}) != 0 {
		t.Error("optionAxis")
	}
}

// TestStatsMemoryBounded: the run-time statistics keep one count per
// distinct time, not one value per run, and give the percentiles of the
// sorted list of every run.
func TestStatsMemoryBounded(t *testing.T) {
	var b statsBuilder
	const runs = 200000
	var all []int64
	for i := 0; i < runs; i++ {
		v := int64(100 + (i*7919)%37)
		b.add(v)
		if i < 1000 {
			all = append(all, v)
		}
	}
	if len(b.counts) != 37 {
		t.Fatalf("%d runs of 37 distinct times keep %d counts", runs, len(b.counts))
	}
	var c statsBuilder
	for _, v := range all {
		c.add(v)
	}
	got := c.stats()
	sorted := slices.Clone(all)
	slices.Sort(sorted)
	for _, p := range []struct {
		name string
		got  int64
		pct  int
	}{{"p5", got.P5, 5}, {"median", got.Median, 50}, {"p90", got.P90, 90}, {"p95", got.P95, 95}, {"p99", got.P99, 99}} {
		if want := sorted[len(sorted)*p.pct/100]; p.got != want {
			t.Errorf("%s = %d, want %d", p.name, p.got, want)
		}
	}
}
