package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/bench"
	"github.com/tflrun/tflrun/cmd/tflrun/internal/benchmodel"
	"github.com/tflrun/tflrun/cmd/tflrun/internal/cli"
	"github.com/tflrun/tflrun/interpreter"
)

// embeddedModel is benchmarked when `tflrun bench` gets no model: the
// float32 LSTM package benchmodel builds (see embedded/README.md).
// gen_benchmodel.go writes it; TestEmbeddedModelRegenerates checks that
// the committed file is benchmodel.Build's output.
//
//go:generate go run gen_benchmodel.go
//go:embed embedded/seeded_lstm.tflite
var embeddedModel []byte

const embeddedName = benchmodel.Name

func newBenchCmd(stdout, stderr io.Writer) *cli.Command {
	opts := bench.DefaultOptions()
	var graph string
	var intervalMs int
	var asJSON bool
	var mem memoryFlag
	delegates := &delegateFlags{}
	f := cli.NewFlagSet()
	cmd := &cli.Command{
		Name:  "bench",
		Usage: "bench [MODEL] [flags]",
		Flags: f,
		Short: "Benchmark a model like TensorFlow Lite's benchmark_model",
		Long: `Bench measures MODEL the way TensorFlow Lite's benchmark_model does and prints
its log lines in the same format: init time, first inference, warm-up and timed
runs (count, first, curr, min, max, avg, std, p5, median, p95), model size and
memory footprint, plus tflrun's median/p90/p99, arena and variable bytes and
peak RSS. Runs continue until both --num_runs and --min_secs are reached, and
none starts after --max_secs. Inputs are filled with deterministic
pseudo-random data (see package bench), or as benchmark_model's input flags
say: --input_layer=a,b with --input_layer_shape=1,224,224,3:1,10 (every input
in order, resized to the shapes), --input_layer_value_range=a,0,254 (integer
bounds of random values) and --input_layer_value_files=a:a.bin (the input's
raw bytes; "::" escapes a ':' in a name).

--enable_op_profiling prints per-operator times; with
--profiling_output_csv_file=FILE they go to FILE in benchmark_model's CSV
format instead. --dry_run loads, allocates and fills but runs nothing;
--verbose logs every parameter; --print_postinvoke_state prints the tensors
and nodes after the runs. benchmark_model's delegate flags (--use_xnnpack,
--use_gpu, --use_nnapi, --use_hexagon, --use_coreml and their options) are
accepted and ignored with a note: tflrun has no delegates, every operator runs
on its own CPU kernels. The JSON report starts with tflrun's version, GOOS and
GOARCH, the CPU, the ISA level and the thread count.

With no MODEL it benchmarks a model embedded in the binary, seeded_lstm.tflite:
a float32 LSTM(20) over a [1, 28, 28] input, then FULLY_CONNECTED(10) and
SOFTMAX, the shape of TensorFlow Lite Micro's mnist_lstm example with seeded
random weights, written by tflrun itself.`,
		Args: func(args []string) error {
			if len(args) > 1 {
				return usageErrorf("bench takes at most one MODEL, got %d arguments", len(args))
			}
			if len(args) == 1 && graph != "" {
				return usageErrorf("give the model either as an argument or with --graph, not both")
			}
			return nil
		},
		Run: func(args []string) error {
			if len(args) == 1 {
				graph = args[0]
			}
			opts.MemoryCheckInterval = time.Duration(intervalMs) * time.Millisecond
			opts.MaxArenaBytes = mem.bytes
			opts.Notes = delegates.notes()
			if opts.FusedFloat && !arch.GemmF32Fuses() {
				opts.Notes = append(opts.Notes, fusedFloatNote())
			}
			f.Visit(func(name string) { opts.Changed = append(opts.Changed, name) })
			for _, n := range opts.Notes {
				if asJSON {
					fmt.Fprintln(stderr, "tflrun bench: "+n)
				}
			}
			src := bench.Source{Path: graph}
			if graph == "" {
				src = bench.Source{Bytes: embeddedModel, Name: "embedded:" + embeddedName}
				note := fmt.Sprintf("tflrun bench: no model given; benchmarking the embedded %s (%s; %d bytes)", embeddedName, benchmodel.Summary, len(embeddedModel))
				if asJSON {
					fmt.Fprintln(stderr, note)
				} else {
					fmt.Fprintln(stdout, note)
				}
			}
			if !asJSON {
				fmt.Fprintf(stdout, "INFO: tflrun ISA: %s\n", arch.Summary())
			}
			if graph != "" {
				if m, err := interpreter.Load(graph); err == nil { // bench.Run reports the errors
					printLoopHint(stderr, graph, m)
					m.Close()
				}
			}
			releaseStartupPages()
			res, err := bench.Run(src, opts)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			res.WriteText(stdout)
			return nil
		},
	}
	f.StringVar(&graph, "graph", "", "model file (as benchmark_model's --graph; or give it as the argument)")
	f.IntVar(&opts.NumRuns, "num_runs", opts.NumRuns, "minimum number of timed runs (see --min_secs, --max_secs)")
	f.Float64Var(&opts.MinSecs, "min_secs", opts.MinSecs, "minimum duration of the timed runs in seconds")
	f.Float64Var(&opts.MaxSecs, "max_secs", opts.MaxSecs, "no run starts after this many seconds")
	f.IntVar(&opts.WarmupRuns, "warmup_runs", opts.WarmupRuns, "minimum number of warm-up runs")
	f.Float64Var(&opts.WarmupMinSecs, "warmup_min_secs", opts.WarmupMinSecs, "minimum duration of the warm-up runs in seconds")
	f.Float64Var(&opts.RunDelay, "run_delay", opts.RunDelay, "delay between runs in seconds (<= 0: none)")
	f.IntVar(&opts.NumThreads, "num_threads", opts.NumThreads, "threads each operator may split its work over (-1: every core the process may use)")
	f.BoolVar(&opts.FusedFloat, "fused_float", false, "let float convolutions fuse multiply-adds (faster; results within a few ulps of TensorFlow Lite's builtin kernels, as XNNPACK's, not bit for bit)")
	f.BoolVar(&opts.EnableOpProfiling, "enable_op_profiling", false, "print per-operator times of the timed runs")
	f.BoolVar(&opts.ReportPeakMemory, "report_peak_memory_footprint", false, "sample the memory footprint periodically and report its peak")
	f.IntVar(&intervalMs, "memory_footprint_check_interval_ms", 50, "interval between memory footprint samples in milliseconds")
	f.Uint64Var(&opts.Seed, "seed", bench.DefaultSeed, "seed of the deterministic input fill")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.Var(&mem, "max-memory", memoryFlagUsage)
	f.StringVar(&opts.InputLayer, "input_layer", "", "comma-separated names of all inputs, in order (names need not match the model's)")
	f.StringVar(&opts.InputLayerShape, "input_layer_shape", "", "colon-separated shapes of all inputs, e.g. 1,224,224,3:1,10")
	f.StringVar(&opts.InputLayerValueRange, "input_layer_value_range", "", "integer ranges of random inputs, e.g. input1,0,254:input2,1,2")
	f.StringVar(&opts.InputLayerValueFiles, "input_layer_value_files", "", "files of inputs' raw bytes, e.g. input1:a.bin,input2:b.bin ('::' for ':' in a name)")
	f.StringVar(&opts.ProfilingCSVFile, "profiling_output_csv_file", "", "write the --enable_op_profiling profile to this file as CSV")
	f.BoolVar(&opts.Verbose, "verbose", false, "log every parameter, not only those set")
	f.BoolVar(&opts.DryRun, "dry_run", false, "load, allocate and fill the inputs, but run nothing")
	f.BoolVar(&opts.PrintPostInvokeState, "print_postinvoke_state", false, "print the interpreter's tensors and nodes after the runs")
	delegates.define(f)
	return cmd
}
