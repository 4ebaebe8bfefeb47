// Package bench is the benchmark harness behind `tflrun bench`. It
// measures a model the way TensorFlow Lite's benchmark_model tool does
// (tflite/tools/benchmark/benchmark_model.cc and benchmark_tflite_model.cc)
// and prints its results in that tool's format, so numbers from the two
// can be compared line by line.
//
// What is measured, in order:
//
//  1. Init: the wall time of interpreter.Load (or LoadBytes) +
//     interpreter.New + AllocateTensors, in microseconds — TFLite's
//     "Init" (model load, interpreter build, tensor allocation).
//  2. The inputs are filled once, deterministically (see FillInput): a
//     PCG generator seeded per input; float inputs uniform in [-1, 1),
//     8- and 16-bit integer inputs uniform over their whole range, bool
//     0 or 1, and 32/64-bit integer inputs uniform in [0, rows) when the
//     input is (directly or through RESHAPE, SQUEEZE or EXPAND_DIMS) the
//     index operand of a GATHER or the ids of an EMBEDDING_LOOKUP (rows =
//     the table's size along the gathered axis), else in [0, 99] like
//     benchmark_model's default int range.
//  3. Warm-up runs, then timed runs, each with benchmark_model's loop:
//     keep invoking while (runs < N or elapsed < min_secs) and elapsed <=
//     max_secs, so at least N runs and at least min_secs, but no run
//     starts after max_secs (defaults: warm-up N = 1, min 0.5 s; timed
//     N = 50, min 1 s; max 150 s). Each run is one Invoke timed with the
//     monotonic clock and truncated to whole microseconds, as TFLite's
//     NowMicros-based timing is. "First inference" is the first warm-up
//     run; "Warmup (avg)" averages all warm-up runs including it.
//  4. Statistics of each loop as TFLite's StatWithPercentiles reports
//     them: count, first, curr (last), min, max, avg, std (population
//     standard deviation, printed truncated to an integer as TFLite
//     does), and the percentiles p5, median, p95 — plus p90 and p99,
//     which tflrun adds. A percentile p is the element at index
//     floor(count*p/100) of the sorted times (TFLite's nth_element rule).
//  5. Memory, as benchmark_model reports it: the "footprint" is the
//     process's maximum resident set size from getrusage (ru_maxrss), and
//     the deltas are taken from the start of Run to after init and to the
//     end (on Linux ru_maxrss survives execve, so under `go run` or `go
//     test` it can start at the parent's peak and the deltas read 0). With ReportPeakMemory a goroutine samples that value every
//     MemoryCheckInterval (default 50 ms) like TFLite's
//     MemoryUsageMonitor. tflrun adds the peak RSS of the process: VmHWM
//     from /proc/self/status on Linux (reset by execve, so the process's
//     own peak), getrusage's ru_maxrss elsewhere on
//     Unix (bytes on macOS, kilobytes on the BSDs); unavailable on other
//     systems. It also reports the interpreter's own memory: the
//     activation arena, the variable-tensor bytes and the precomputed
//     bytes (DEQUANTIZE outputs of constant weights, computed once at
//     AllocateTensors and kept outside the arena).
//  6. With EnableOpProfiling, the timed runs (not the warm-up) record
//     each operator's time through the interpreter's profiling hooks;
//     the report is TFLite's "Operator-wise Profiling Info for Regular
//     Benchmark Runs": a per-operator table in run order, the top 10 by
//     time, and a summary by operator type. Times are kept in nanoseconds
//     and printed in milliseconds with 3 decimals; tflrun does not
//     measure per-operator memory, so the [mem KB] column is 0. A
//     DEQUANTIZE of a constant runs once at AllocateTensors (part of
//     Init), not per run: it is listed with 0 ms and times called 1, as
//     TFLite lists its dequantize kernel, whose Eval returns at once after
//     the first.
//
// NumThreads is interpreter.Options.NumThreads; the report's Tool.Threads
// is the count the kernels ran on (-1 resolved to the usable cores).
package bench
