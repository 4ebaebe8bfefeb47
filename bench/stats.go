package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Stats summarises one loop of runs, in microseconds, with the fields of
// TFLite's StatWithPercentiles (tsl/util/stats_calculator.h) plus p90
// and p99. All fields are zero when Count is 0.
type Stats struct {
	Count int   `json:"count"`
	First int64 `json:"first_us"`
	// Curr is the last run, as TFLite calls it.
	Curr int64 `json:"curr_us"`
	Min  int64 `json:"min_us"`
	Max  int64 `json:"max_us"`
	// Avg is the mean and Std the population standard deviation
	// (sqrt(mean of squares - square of mean)), both unrounded.
	Avg float64 `json:"avg_us"`
	Std float64 `json:"std_us"`
	// Percentiles: the element at index floor(Count*p/100) of the sorted
	// run times.
	P5     int64 `json:"p5_us"`
	Median int64 `json:"median_us"`
	P90    int64 `json:"p90_us"`
	P95    int64 `json:"p95_us"`
	P99    int64 `json:"p99_us"`
	// tfliteStd is the std as TFLite prints it (variance truncated to an
	// integer, then its square root truncated).
	tfliteStd int64
}

// statsBuilder accumulates run times.
type statsBuilder struct {
	values []int64
}

func (b *statsBuilder) add(us int64) { b.values = append(b.values, us) }

func (b *statsBuilder) stats() Stats {
	return computeStats(b.values)
}

// computeStats derives Stats from run times in microseconds, in the order
// they were measured.
func computeStats(values []int64) Stats {
	n := len(values)
	if n == 0 {
		return Stats{}
	}
	s := Stats{Count: n, First: values[0], Curr: values[n-1], Min: values[0], Max: values[0]}
	var sum int64
	var sq float64
	for _, v := range values {
		s.Min = min(s.Min, v)
		s.Max = max(s.Max, v)
		sum += v
		sq += float64(v) * float64(v)
	}
	s.Avg = float64(sum) / float64(n)
	if s.Min != s.Max {
		variance := sq/float64(n) - s.Avg*s.Avg
		s.Std = math.Sqrt(max(variance, 0))
		// TFLite keeps the variance in the value type (int64) before
		// taking the root, and the root too.
		s.tfliteStd = int64(math.Sqrt(float64(int64(variance))))
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	pct := func(p int) int64 { return sorted[n*p/100] }
	s.P5, s.Median, s.P90, s.P95, s.P99 = pct(5), pct(50), pct(90), pct(95), pct(99)
	return s
}

// tfliteLine formats s as StatWithPercentiles::OutputToStream does:
// "count=0"; "count=N curr=X" (with "(all same)" when N > 1 and every run
// took the same time); else "count=N first=F curr=C min=m max=M avg=A
// std=S" — each followed, when N > 0, by " p5=... median=... p95=...".
func (s Stats) tfliteLine() string {
	var out string
	switch {
	case s.Count == 0:
		return "count=0"
	case s.Min == s.Max:
		out = fmt.Sprintf("count=%d curr=%d", s.Count, s.Curr)
		if s.Count > 1 {
			out += "(all same)"
		}
	default:
		out = fmt.Sprintf("count=%d first=%d curr=%d min=%d max=%d avg=%s std=%d",
			s.Count, s.First, s.Curr, s.Min, s.Max, cppFloat(s.Avg), s.tfliteStd)
	}
	return out + fmt.Sprintf(" p5=%d median=%d p95=%d", s.P5, s.Median, s.P95)
}

// cppFloat formats v as a C++ ostream does by default (6 significant
// digits, %g style: "25.5", "0.04124", "1.23457e+06").
func cppFloat(v float64) string {
	if math.IsNaN(v) {
		return "nan"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
