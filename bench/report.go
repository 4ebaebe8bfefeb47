package bench

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// paramLabels are benchmark_model's descriptions of the parameters it
// logs when they are set ("Min num runs: [50]").
var paramLabels = []struct{ flag, label string }{
	{"num_runs", "Min num runs"},
	{"min_secs", "Min runs duration (seconds)"},
	{"max_secs", "Max runs duration (seconds)"},
	{"run_delay", "Inter-run delay (seconds)"},
	{"num_threads", "Num threads"},
	{"fused_float", "Fused float multiply-adds"},
	{"warmup_runs", "Min warmup runs"},
	{"warmup_min_secs", "Min warmup runs duration (seconds)"},
	{"report_peak_memory_footprint", "Report the peak memory footprint"},
	{"memory_footprint_check_interval_ms", "Memory footprint check interval (ms)"},
	{"enable_op_profiling", "Enable op profiling"},
	{"dry_run", "Run w/o invoking kernels"},
	{"input_layer", "Input layers"},
	{"input_layer_shape", "Input shapes"},
	{"input_layer_value_range", "Input value ranges"},
	{"input_layer_value_files", "Input value files"},
	{"profiling_output_csv_file", "CSV File to export profiling data to"},
	{"print_postinvoke_state", "Print post-invoke interpreter state"},
}

func (o Options) paramValue(flag string) string {
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	switch flag {
	case "num_runs":
		return fmt.Sprint(o.NumRuns)
	case "min_secs":
		return cppFloat(o.MinSecs)
	case "max_secs":
		return cppFloat(o.MaxSecs)
	case "run_delay":
		return cppFloat(o.RunDelay)
	case "num_threads":
		return fmt.Sprint(o.NumThreads)
	case "fused_float":
		return b(o.FusedFloat)
	case "warmup_runs":
		return fmt.Sprint(o.WarmupRuns)
	case "warmup_min_secs":
		return cppFloat(o.WarmupMinSecs)
	case "report_peak_memory_footprint":
		return b(o.ReportPeakMemory)
	case "memory_footprint_check_interval_ms":
		return fmt.Sprint(o.MemoryCheckInterval / time.Millisecond)
	case "enable_op_profiling":
		return b(o.EnableOpProfiling)
	case "dry_run":
		return b(o.DryRun)
	case "input_layer":
		return o.InputLayer
	case "input_layer_shape":
		return o.InputLayerShape
	case "input_layer_value_range":
		return o.InputLayerValueRange
	case "input_layer_value_files":
		return o.InputLayerValueFiles
	case "profiling_output_csv_file":
		return o.ProfilingCSVFile
	case "print_postinvoke_state":
		return b(o.PrintPostInvokeState)
	}
	return ""
}

// WriteText prints the result as TensorFlow Lite's benchmark_model prints
// its log ("INFO: " lines with the same wording and number formats: C++
// stream defaults, 6 significant digits), followed by tflrun's extra
// lines in the same style (median/p90/p99, interpreter memory, peak RSS)
// and, when profiled, the operator profile.
func (r *Result) WriteText(w io.Writer) {
	o := r.Options
	info := func(format string, args ...any) { fmt.Fprintf(w, "INFO: "+format+"\n", args...) }
	info("STARTING!")
	verbose := "0"
	if o.Verbose {
		verbose = "1"
	}
	info("Log parameter values verbosely: [%s]", verbose)
	for _, p := range paramLabels {
		if o.Verbose || slices.Contains(o.Changed, p.flag) {
			info("%s: [%s]", p.label, o.paramValue(p.flag))
		}
	}
	info("Graph: [%s]", r.Model)
	info("tflrun: %s; CPU: %s; ISA: %s", r.Tool.Info.String(), orUnknown(r.Tool.CPU), r.Tool.ISA)
	for _, n := range o.Notes {
		info("%s", n)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "WARNING: %s\n", wn)
	}
	if o.NumThreads != r.Tool.Threads {
		info("num_threads=%d: tflrun's kernels run on %d threads.", o.NumThreads, r.Tool.Threads)
	}
	info("Loaded model %s", r.Model)
	info("The input model file size (MB): %s", cppFloat(float64(r.ModelBytes)/1e6))
	info("Initialized session in %sms.", cppFloat(float64(r.InitMicros)/1e3))
	for _, f := range r.Inputs {
		info("Input %d %q %s%v filled %s.", f.Index, f.Name, f.TypeName, f.Shape, f.Distribution)
	}

	runLine := func(n int, minSecs float64, s Stats) {
		info("Running benchmark for at least %d iterations and at least %s seconds but terminate if exceeding %s seconds.",
			n, cppFloat(minSecs), cppFloat(o.MaxSecs))
		info("%s\n", s.tfliteLine())
	}
	runLine(o.WarmupRuns, o.WarmupMinSecs, r.Warmup)
	runLine(o.NumRuns, o.MinSecs, r.Inference)

	info("Inference timings in us: Init: %d, First inference: %d, Warmup (avg): %s, Inference (avg): %s",
		r.InitMicros, r.Warmup.First, cppFloat(r.Warmup.Avg), cppFloat(r.Inference.Avg))
	m := r.Memory
	if m.Supported {
		info("Note: as the benchmark tool itself affects memory footprint, the following is only APPROXIMATE to the actual memory footprint of the model at runtime. Take the information at your discretion.")
		info("Memory footprint delta from the start of the tool (MB): init=%s overall=%s", cppFloat(m.InitDeltaMB), cppFloat(m.OverallDeltaMB))
		if m.PeakMonitoredMB > 0 {
			info("Overall peak memory footprint (MB) via periodic monitoring: %s", cppFloat(m.PeakMonitoredMB))
		}
	}
	// tflrun's additions.
	info("Inference percentiles in us: median=%d, p90=%d, p99=%d", r.Inference.Median, r.Inference.P90, r.Inference.P99)
	info("Interpreter memory (bytes): arena=%d, variables=%d, precomputed=%d", r.ArenaBytes, r.VariableBytes, r.PrecomputedBytes)
	switch m.PeakRSSSource {
	case "VmHWM":
		info("Peak resident set size (MB): %s (VmHWM, /proc/self/status)", cppFloat(float64(m.PeakRSSBytes)/(1<<20)))
	case "":
		info("Peak resident set size: not available on this system")
	default:
		info("Peak resident set size (MB): %s (%s ru_maxrss)", cppFloat(float64(m.PeakRSSBytes)/(1<<20)), m.PeakRSSSource)
	}
	if r.Profile != nil {
		fmt.Fprintln(w)
		if o.ProfilingCSVFile != "" {
			info("Wrote the operator profile to %s (CSV).", o.ProfilingCSVFile)
		} else {
			r.Profile.writeText(w)
		}
	}
	if r.PostInvokeState != "" {
		info("\n====Printing out TfLite interpreter post-invoke state begins====")
		fmt.Fprint(w, r.PostInvokeState)
		info("====Printing out TfLite interpreter post-invoke state ends====\n")
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
