package bench

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/internal/buildinfo"
	"github.com/tflrun/tflrun/interpreter"
)

// Options are the benchmark parameters; they mirror benchmark_model's
// flags of the same names. Use DefaultOptions for TFLite's defaults.
type Options struct {
	// NumRuns is the minimum number of timed runs (default 50).
	NumRuns int `json:"num_runs"`
	// MinSecs is the minimum duration of the timed runs in seconds
	// (default 1): runs continue past NumRuns until it has passed.
	MinSecs float64 `json:"min_secs"`
	// MaxSecs caps both loops: no run starts after MaxSecs seconds
	// (default 150), even if fewer than NumRuns have run.
	MaxSecs float64 `json:"max_secs"`
	// WarmupRuns is the minimum number of warm-up runs (default 1) and
	// WarmupMinSecs their minimum duration (default 0.5 s).
	WarmupRuns    int     `json:"warmup_runs"`
	WarmupMinSecs float64 `json:"warmup_min_secs"`
	// RunDelay is a pause between runs in seconds; <= 0 for none (the
	// default, -1).
	RunDelay float64 `json:"run_delay"`
	// NumThreads is the requested thread count
	// (interpreter.Options.NumThreads): 1 (the default) runs on one
	// thread, -1 on every core the process may use; Tool.Threads
	// reports the count used.
	NumThreads int `json:"num_threads"`
	// FusedFloat lets float convolutions fuse multiply-adds
	// (interpreter.Options.FusedFloat).
	FusedFloat bool `json:"fused_float"`
	// EnableOpProfiling records per-operator times in the timed runs.
	EnableOpProfiling bool `json:"enable_op_profiling"`
	// ReportPeakMemory samples the memory footprint periodically during
	// the whole benchmark, every MemoryCheckInterval (default 50 ms).
	ReportPeakMemory    bool          `json:"report_peak_memory_footprint"`
	MemoryCheckInterval time.Duration `json:"memory_footprint_check_interval_ns"`
	// Seed seeds the input fill (see FillInput); 0 means DefaultSeed.
	Seed uint64 `json:"seed"`
	// MaxArenaBytes is the interpreter's memory bound
	// (interpreter.Options.MaxArenaBytes): 0 for its default, negative for
	// none.
	MaxArenaBytes int64 `json:"max_arena_bytes,omitempty"`
	// InputLayer, InputLayerShape, InputLayerValueRange and
	// InputLayerValueFiles are benchmark_model's input flags, as given
	// (see ParseInputLayers): every input's name and shape (the inputs
	// are resized to the shapes), integer value ranges of random inputs,
	// and files holding inputs' bytes.
	InputLayer           string `json:"input_layer,omitempty"`
	InputLayerShape      string `json:"input_layer_shape,omitempty"`
	InputLayerValueRange string `json:"input_layer_value_range,omitempty"`
	InputLayerValueFiles string `json:"input_layer_value_files,omitempty"`
	// DryRun loads the model, allocates and fills the inputs, but runs
	// nothing (benchmark_model's --dry_run: no warm-up and no timed runs).
	DryRun bool `json:"dry_run"`
	// Verbose logs every parameter, not only those set (--verbose).
	Verbose bool `json:"verbose"`
	// PrintPostInvokeState records the interpreter's state after the
	// runs (--print_postinvoke_state) in Result.PostInvokeState.
	PrintPostInvokeState bool `json:"print_postinvoke_state"`
	// ProfilingCSVFile, with EnableOpProfiling, receives the operator
	// profile in benchmark_model's CSV format (--profiling_output_csv_file).
	ProfilingCSVFile string `json:"profiling_output_csv_file,omitempty"`
	// Notes are lines WriteText logs after the parameters: what the
	// caller accepted but tflrun does not do (delegate flags).
	Notes []string `json:"notes,omitempty"`
	// Changed lists the parameters set explicitly (by their
	// benchmark_model flag names); WriteText logs them as benchmark_model
	// logs the flags it was given.
	Changed []string `json:"-"`
}

// DefaultOptions returns benchmark_model's defaults: 50 runs, at least
// 1 s, at most 150 s; 1 warm-up run, at least 0.5 s; no delay; op
// profiling and peak-memory monitoring off (checked every 50 ms when on);
// one thread.
func DefaultOptions() Options {
	return Options{
		NumRuns:             50,
		MinSecs:             1,
		MaxSecs:             150,
		WarmupRuns:          1,
		WarmupMinSecs:       0.5,
		RunDelay:            -1,
		NumThreads:          1,
		MemoryCheckInterval: 50 * time.Millisecond,
	}
}

// Source names the model to benchmark: a file Path (memory-mapped by
// interpreter.Load), or a model held in memory in Bytes with a display
// Name.
type Source struct {
	Path  string
	Bytes []byte
	Name  string
}

func (s Source) name() string {
	if s.Path != "" {
		return s.Path
	}
	return s.Name
}

// Result is everything one benchmark measured. Times are in microseconds.
type Result struct {
	// Tool says what ran the benchmark: tflrun's build, the platform, the
	// CPU and the kernels' instruction-set level.
	Tool Tool `json:"tflrun"`
	// Model is the model path (or name, for an in-memory model) and
	// ModelBytes its size.
	Model      string  `json:"model"`
	ModelBytes int     `json:"model_bytes"`
	Options    Options `json:"options"`
	// Inputs says how each input was filled.
	Inputs []InputFill `json:"inputs"`
	// InitMicros is load + New + AllocateTensors.
	InitMicros int64 `json:"init_us"`
	// Warmup and Inference are the statistics of the two loops;
	// Warmup.First is TFLite's "First inference".
	Warmup    Stats `json:"warmup"`
	Inference Stats `json:"inference"`
	// ArenaBytes and VariableBytes are the interpreter's activation
	// arena and variable-tensor storage; PrecomputedBytes its storage for
	// tensors computed once from constants (the float32 outputs of
	// DEQUANTIZE operators with constant inputs, e.g. float16 weights),
	// kept outside the arena (interpreter.Interpreter.PrecomputedBytes).
	ArenaBytes       int `json:"arena_bytes"`
	VariableBytes    int `json:"variable_bytes"`
	PrecomputedBytes int `json:"precomputed_bytes"`
	// Memory is the process memory measured around the benchmark.
	Memory Memory `json:"memory"`
	// Profile is the per-operator profile (EnableOpProfiling only).
	Profile *Profile `json:"op_profile,omitempty"`
	// Warnings are benchmark_model's warnings (an --input_layer name that
	// is not the input's).
	Warnings []string `json:"warnings,omitempty"`
	// PostInvokeState is the interpreter's state after the runs, when
	// PrintPostInvokeState asks for it.
	PostInvokeState string `json:"post_invoke_state,omitempty"`
}

// Tool identifies the benchmarking binary and machine.
type Tool struct {
	buildinfo.Info
	// CPU is the processor's model name ("" when unknown); ISA the
	// instruction-set level and kernels in use (arch.Summary).
	CPU string `json:"cpu"`
	ISA string `json:"isa"`
	// Threads is the number of threads tflrun's kernels ran on
	// (Options.NumThreads resolved, -1 becoming the usable cores).
	Threads int `json:"threads"`
}

// currentTool describes this binary and machine.
func currentTool() Tool {
	return Tool{Info: buildinfo.Read(), CPU: arch.Describe().Brand, ISA: arch.Summary(), Threads: 1}
}

// Run loads the model, fills its inputs, and runs the warm-up and timed
// loops described in the package doc. It returns an error when the model
// cannot be loaded, an operator is unsupported (AllocateTensors fails),
// an input cannot be filled, or an Invoke fails (the error names the run).
func Run(src Source, opts Options) (*Result, error) {
	if opts.NumRuns < 0 || opts.WarmupRuns < 0 {
		return nil, errors.New("num_runs and warmup_runs must not be negative")
	}
	if opts.MaxSecs < 0 {
		return nil, errors.New("max_secs must not be negative")
	}
	if opts.MemoryCheckInterval <= 0 {
		opts.MemoryCheckInterval = 50 * time.Millisecond
	}
	layers, err := ParseInputLayers(opts.InputLayer, opts.InputLayerShape, opts.InputLayerValueRange, opts.InputLayerValueFiles)
	if err != nil {
		return nil, err
	}
	if opts.ProfilingCSVFile != "" && !opts.EnableOpProfiling {
		return nil, errors.New("profiling_output_csv_file needs enable_op_profiling")
	}
	if opts.DryRun {
		// benchmark_model's --dry_run: no runs at all.
		opts.WarmupRuns, opts.WarmupMinSecs, opts.NumRuns, opts.MinSecs = 0, -1, 0, -1
	}
	res := &Result{Tool: currentTool(), Model: src.name(), Options: opts}
	if src.Path != "" {
		if st, err := os.Stat(src.Path); err == nil {
			res.ModelBytes = int(st.Size())
		}
	} else {
		res.ModelBytes = len(src.Bytes)
	}

	var monitor *peakMonitor
	if opts.ReportPeakMemory {
		monitor = startPeakMonitor(opts.MemoryCheckInterval)
	}
	startMem := footprintKB()

	// Init: everything TFLite's BenchmarkTfLiteModel::Init does that
	// applies here (load, build, allocate).
	t0 := time.Now()
	var m *interpreter.Model
	if src.Path != "" {
		m, err = interpreter.Load(src.Path)
	} else {
		m, err = interpreter.LoadBytes(src.Bytes)
	}
	if err != nil {
		monitor.stop()
		return nil, err
	}
	defer m.Close()
	it, err := interpreter.New(m, &interpreter.Options{MaxArenaBytes: opts.MaxArenaBytes, NumThreads: opts.NumThreads, FusedFloat: opts.FusedFloat})
	if err != nil {
		monitor.stop()
		return nil, err
	}
	defer it.Close()
	res.Tool.Threads = it.NumThreads()
	if err := it.AllocateTensors(); err != nil {
		monitor.stop()
		return nil, err
	}
	if layers != nil {
		if res.Warnings, err = applyInputLayers(it, layers); err != nil {
			monitor.stop()
			return nil, err
		}
	}
	res.InitMicros = time.Since(t0).Microseconds()
	initMem := footprintKB()
	if res.ModelBytes == 0 {
		res.ModelBytes = m.Size
	}
	res.ArenaBytes = it.ArenaBytes()
	res.VariableBytes = it.VariableBytes()
	res.PrecomputedBytes = it.PrecomputedBytes()

	seed := opts.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	if layers == nil {
		res.Inputs, err = FillInputs(it, seed)
	} else {
		res.Inputs = make([]InputFill, len(layers))
		for i, l := range layers {
			if res.Inputs[i], err = fillLayer(it, i, l, seed); err != nil {
				break
			}
		}
	}
	if err != nil {
		monitor.stop()
		return nil, err
	}

	res.Warmup, err = loop(it, opts.WarmupRuns, opts.WarmupMinSecs, opts.MaxSecs, opts.RunDelay, nil)
	if err != nil {
		monitor.stop()
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	var prof *profiler
	var afterRun func(int)
	if opts.EnableOpProfiling {
		prof = newProfiler(it)
		afterRun = prof.afterRun
		it.SetProfiling(true)
	}
	res.Inference, err = loop(it, opts.NumRuns, opts.MinSecs, opts.MaxSecs, opts.RunDelay, afterRun)
	it.SetProfiling(false)
	if err != nil {
		monitor.stop()
		return nil, err
	}
	if prof != nil {
		res.Profile = prof.summary()
		if opts.ProfilingCSVFile != "" {
			if err := res.Profile.writeCSVFile(opts.ProfilingCSVFile, res.Inference); err != nil {
				monitor.stop()
				return nil, err
			}
		}
	}
	if opts.PrintPostInvokeState {
		var b strings.Builder
		writeInterpreterState(&b, it)
		res.PostInvokeState = b.String()
	}

	endMem := footprintKB()
	res.Memory = Memory{
		Supported:       startMem >= 0,
		InitDeltaMB:     float64(initMem-startMem) / 1024,
		OverallDeltaMB:  float64(endMem-startMem) / 1024,
		PeakMonitoredMB: -1,
	}
	if monitor != nil {
		res.Memory.PeakMonitoredMB = monitor.stop()
	}
	res.Memory.PeakRSSBytes, res.Memory.PeakRSSSource = peakRSS()
	return res, nil
}

// Memory is the process memory around a benchmark, as benchmark_model
// reports it, plus tflrun's peak RSS.
type Memory struct {
	// Supported is false where the footprint cannot be read (the deltas
	// are then 0).
	Supported bool `json:"supported"`
	// InitDeltaMB and OverallDeltaMB are the growth of the maximum
	// resident set size (getrusage ru_maxrss) from the start of Run to
	// after init and to the end, in MiB (TFLite's "MB" = 1024 KB). On
	// Linux ru_maxrss survives execve, so a process started by a larger
	// one (`go test`, `go run`) may start at the parent's peak and show
	// deltas of 0; this is TFLite's measure, kept for comparability.
	InitDeltaMB    float64 `json:"init_delta_mb"`
	OverallDeltaMB float64 `json:"overall_delta_mb"`
	// PeakMonitoredMB is the peak footprint seen by the periodic monitor
	// (ReportPeakMemory), in MiB; -1 when not monitored.
	PeakMonitoredMB float64 `json:"peak_monitored_mb"`
	// PeakRSSBytes is the process's peak resident set size and
	// PeakRSSSource where it was read ("VmHWM" from /proc/self/status, or
	// "getrusage"); 0 and "" when unavailable. VmHWM is reset by execve,
	// so it is this process's own peak.
	PeakRSSBytes  int64  `json:"peak_rss_bytes"`
	PeakRSSSource string `json:"peak_rss_source"`
}

// loop is benchmark_model's BenchmarkModel::Run loop: invoke while
// (run < minRuns || now < minFinish) && now <= maxFinish. after, if not
// nil, is called after each run outside the timed region.
func loop(it *interpreter.Interpreter, minRuns int, minSecs, maxSecs, delay float64, after func(run int)) (Stats, error) {
	var s statsBuilder
	base := time.Now()
	nowMicros := func() int64 { return time.Since(base).Microseconds() }
	now := nowMicros()
	minFinish := now + int64(minSecs*1e6)
	maxFinish := now + int64(maxSecs*1e6)
	for run := 0; (run < minRuns || now < minFinish) && now <= maxFinish; run++ {
		start := nowMicros()
		err := it.Invoke()
		end := nowMicros()
		if err != nil {
			return s.stats(), fmt.Errorf("run %d: %w", run, err)
		}
		s.add(end - start)
		if after != nil {
			after(run)
		}
		if delay > 0 {
			time.Sleep(time.Duration(delay * float64(time.Second)))
		}
		now = nowMicros()
	}
	return s.stats(), nil
}
