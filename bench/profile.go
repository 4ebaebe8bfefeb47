package bench

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tflrun/tflrun/interpreter"
)

// Profile is the per-operator profile of the timed runs, shaped like
// TFLite's profile summary. Times are per run, in milliseconds.
type Profile struct {
	// Runs is the number of profiled runs.
	Runs int64 `json:"runs"`
	// TotalMs is the average summed operator time of one run.
	TotalMs float64 `json:"total_ms"`
	// Ops are the operators in execution order.
	Ops []OpTime `json:"ops"`
	// ByType sums the operators of each type, most expensive first.
	ByType []TypeTime `json:"by_type"`
}

// OpTime is one operator's time.
type OpTime struct {
	Index int `json:"index"`
	// Type is the TFLite operator name ("FULLY_CONNECTED") and Version
	// its version.
	Type    string `json:"type"`
	Version int    `json:"version"`
	// Name identifies the node as TFLite's profiler does: its output
	// tensor names in brackets, a colon, and the operator index.
	Name string `json:"name"`
	// StartMs is when the operator starts within a run, on average: the
	// summed mean times of the operators before it (TFLite measures it;
	// tflrun's profile has per-operator totals only).
	StartMs float64 `json:"start_ms"`
	// FirstMs is the time in the first profiled run, AvgMs the mean.
	FirstMs float64 `json:"first_ms"`
	AvgMs   float64 `json:"avg_ms"`
	// Percent is this operator's share of the total; CDF the running sum
	// of Percent in execution order.
	Percent float64 `json:"percent"`
	CDF     float64 `json:"cdf"`
	// TimesCalled is the number of calls per run.
	TimesCalled int64 `json:"times_called"`
}

// TypeTime is the summed time of all operators of one type.
type TypeTime struct {
	Type        string  `json:"type"`
	Count       int     `json:"count"`
	AvgMs       float64 `json:"avg_ms"`
	Percent     float64 `json:"percent"`
	CDF         float64 `json:"cdf"`
	TimesCalled int64   `json:"times_called"`
}

// profiler collects the interpreter's per-operator profile across the
// timed runs and remembers the first run's times.
type profiler struct {
	it    *interpreter.Interpreter
	first []time.Duration
}

func newProfiler(it *interpreter.Interpreter) *profiler { return &profiler{it: it} }

func (p *profiler) afterRun(run int) {
	if run != 0 {
		return
	}
	for _, op := range p.it.Profile() {
		p.first = append(p.first, op.Total)
	}
}

func (p *profiler) summary() *Profile {
	ops := p.it.Profile()
	prof := &Profile{}
	m := p.it.Model()
	var total time.Duration
	for _, op := range ops {
		total += op.Total
		prof.Runs = max(prof.Runs, op.Count)
	}
	if prof.Runs == 0 {
		return prof
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	pct := func(d time.Duration) float64 {
		if total == 0 {
			return 0
		}
		return float64(d) * 100 / float64(total)
	}
	prof.TotalMs = ms(total) / float64(prof.Runs)
	var cdf time.Duration
	var start float64
	for k, op := range ops {
		cdf += op.Total
		o := OpTime{
			Index: op.Index, Type: op.Name, Version: op.Version,
			Name:        nodeName(m, op.Index),
			AvgMs:       ms(op.Total) / float64(prof.Runs),
			Percent:     pct(op.Total),
			CDF:         pct(cdf),
			TimesCalled: op.Count / prof.Runs,
			StartMs:     start,
		}
		start += o.AvgMs
		if k < len(p.first) {
			o.FirstMs = ms(p.first[k])
		}
		prof.Ops = append(prof.Ops, o)
	}
	byType := map[string]*TypeTime{}
	for _, o := range prof.Ops {
		t := byType[o.Type]
		if t == nil {
			t = &TypeTime{Type: o.Type}
			byType[o.Type] = t
		}
		t.Count++
		t.AvgMs += o.AvgMs
		t.TimesCalled += o.TimesCalled
	}
	for _, t := range byType {
		prof.ByType = append(prof.ByType, *t)
	}
	// Most expensive first; ties by name, descending, as TFLite's
	// priority queue of (time, name) pairs pops them.
	slices.SortFunc(prof.ByType, func(a, b TypeTime) int {
		if c := cmp.Compare(b.AvgMs, a.AvgMs); c != 0 {
			return c
		}
		return cmp.Compare(b.Type, a.Type)
	})
	var c float64
	for i := range prof.ByType {
		t := &prof.ByType[i]
		if prof.TotalMs > 0 {
			t.Percent = t.AvgMs * 100 / prof.TotalMs
		}
		c += t.Percent
		t.CDF = c
	}
	return prof
}

// nodeName is "[out1,out2]:index", the node name TFLite's profiler shows.
func nodeName(m *interpreter.Model, op int) string {
	if m == nil || len(m.Subgraphs) == 0 || op >= len(m.Subgraphs[0].Operators) {
		return fmt.Sprintf("[]:%d", op)
	}
	sg := &m.Subgraphs[0]
	var names []string
	for _, t := range sg.Operators[op].Outputs {
		if t >= 0 && t < len(sg.Tensors) {
			names = append(names, sg.Tensors[t].Name)
		}
	}
	return fmt.Sprintf("[%s]:%d", strings.Join(names, ","), op)
}

// writeText prints the profile in the layout of TFLite's
// StatsCalculator: run order, top 10 by time and summary by node type.
// Columns are tab-separated, right-aligned to
// TFLite's widths, with 3 decimals.
func (p *Profile) writeText(w io.Writer) {
	fmt.Fprintln(w, "Operator-wise Profiling Info for Regular Benchmark Runs:")
	p.writeTable(w, "Run Order", p.Ops)
	p.writeTable(w, "Top by Computation Time", p.topByTime())

	fmt.Fprintf(w, "Number of nodes executed: %d\n", len(p.Ops))
	fmt.Fprintln(w, "============================== Summary by node type ==============================")
	fmt.Fprintf(w, "\t%24s\t%9s\t%10s\t%11s\t%11s\t%10s\t%10s\n", "[Node type]", "[count]", "[avg ms]", "[avg %]", "[cdf %]", "[mem KB]", "[times called]")
	for _, t := range p.ByType {
		fmt.Fprintf(w, "\t%24s\t%9d\t%10.3f\t%10.3f%%\t%10.3f%%\t%10.3f\t%9d\n", t.Type, t.Count, t.AvgMs, t.Percent, t.CDF, 0.0, t.TimesCalled)
	}
	fmt.Fprintln(w)
}

func (p *Profile) writeTable(w io.Writer, title string, ops []OpTime) {
	fmt.Fprintf(w, "============================== %s ==============================\n", title)
	fmt.Fprintf(w, "\t%24s\t%9s\t%9s\t%8s\t%8s\t%10s\t%9s\t[Name]\n", "[node type]", "[first]", "[avg ms]", "[%]", "[cdf%]", "[mem KB]", "[times called]")
	for _, o := range ops {
		fmt.Fprintf(w, "\t%24s\t%9.3f\t%9.3f\t%7.3f%%\t%7.3f%%\t%10.3f\t%9d\t%s\n", o.Type, o.FirstMs, o.AvgMs, o.Percent, o.CDF, 0.0, o.TimesCalled, o.Name)
	}
	fmt.Fprintln(w)
}

// writeCSVFile writes the profile to path as benchmark_model's
// --profiling_output_csv_file does (ProfileSummaryCSVFormatter over
// TensorFlow's StatsCalculator with format_as_csv): the title line, the
// "Run Order" and "Top by Computation Time" tables and the summary by
// node type as comma-separated lines with C++'s default number format,
// then the short summary (the timed runs' statistics). Memory is not
// measured per operator, so "mem KB" is 0.
func (p *Profile) writeCSVFile(path string, runs Stats) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("profiling_output_csv_file: %w", err)
	}
	w := bufio.NewWriter(f)
	p.writeCSV(w, runs)
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("profiling_output_csv_file: %w", err)
	}
	return f.Close()
}

func (p *Profile) writeCSV(w io.Writer, runs Stats) {
	fmt.Fprintln(w, "Operator-wise Profiling Info for Regular Benchmark Runs:")
	table := func(title string, ops []OpTime) {
		fmt.Fprintf(w, "============================== %s ==============================\n", title)
		fmt.Fprintln(w, "node type, start, first, avg_ms, %, cdf%, mem KB, times called, name")
		for _, o := range ops {
			fmt.Fprintf(w, "%s, %s, %s, %s, %s%%, %s%%, 0, %d, %s\n", o.Type, cppFloat(o.StartMs), cppFloat(o.FirstMs), cppFloat(o.AvgMs),
				cppFloat(o.Percent), cppFloat(o.CDF), o.TimesCalled, o.Name)
		}
		fmt.Fprintln(w)
	}
	table("Run Order", p.Ops)
	table("Top by Computation Time", p.topByTime())
	fmt.Fprintf(w, "Number of nodes executed: %d\n", len(p.Ops))
	fmt.Fprintln(w, "============================== Summary by node type ==============================")
	fmt.Fprintln(w, "node type, count, avg_ms, avg %, cdf %, mem KB, times called")
	for _, t := range p.ByType {
		fmt.Fprintf(w, "%s, %d, %s, %s%%, %s%%, 0, %d\n", t.Type, t.Count, cppFloat(float64(float32(t.AvgMs))), cppFloat(float64(float32(t.Percent))), cppFloat(float64(float32(t.CDF))), t.TimesCalled)
	}
	fmt.Fprintln(w)
	line := runs.tfliteLine()
	if i := strings.Index(line, " p5="); i >= 0 {
		line = line[:i] // a Stat, not a StatWithPercentiles
	}
	fmt.Fprintf(w, "Timings (microseconds): %s\n", line)
	fmt.Fprintln(w, "Memory (bytes): count=0")
	fmt.Fprintf(w, "%d nodes observed\n\n", len(p.Ops))
}

// topByTime is the ten most expensive operators, with the cdf column
// accumulated in that order (as TFLite's table does).
func (p *Profile) topByTime() []OpTime {
	top := slices.Clone(p.Ops)
	slices.SortStableFunc(top, func(a, b OpTime) int { return cmp.Compare(b.AvgMs, a.AvgMs) })
	if len(top) > 10 {
		top = top[:10]
	}
	var c float64
	for i := range top {
		c += top[i].Percent
		top[i].CDF = c
	}
	return top
}
