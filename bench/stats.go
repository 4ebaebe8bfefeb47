package bench

import (
	"fmt"
	"maps"
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

// statsBuilder accumulates run times in memory that does not grow with
// the number of runs: running sums for the mean and deviation, and a
// count per distinct time for the percentiles (exact, as TFLite's sorted
// vector of every value, which grows by 8 bytes a run).
type statsBuilder struct {
	n               int
	first, curr     int64
	minV, maxV, sum int64
	sq              float64
	counts          map[int64]int
}

func (b *statsBuilder) add(us int64) {
	if b.n == 0 {
		b.first, b.minV, b.maxV = us, us, us
		b.counts = map[int64]int{}
	}
	b.n++
	b.curr = us
	b.minV = min(b.minV, us)
	b.maxV = max(b.maxV, us)
	b.sum += us
	b.sq += float64(us) * float64(us)
	b.counts[us]++
}

func (b *statsBuilder) stats() Stats {
	n := b.n
	if n == 0 {
		return Stats{}
	}
	s := Stats{Count: n, First: b.first, Curr: b.curr, Min: b.minV, Max: b.maxV}
	s.Avg = float64(b.sum) / float64(n)
	if s.Min != s.Max {
		variance := b.sq/float64(n) - s.Avg*s.Avg
		s.Std = math.Sqrt(max(variance, 0))
		// TFLite keeps the variance in the value type (int64) before
		// taking the root, and the root too.
		s.tfliteStd = int64(math.Sqrt(float64(int64(variance))))
	}
	keys := slices.Sorted(maps.Keys(b.counts))
	// pct is the element at index floor(n*p/100) of the sorted times.
	pct := func(p int) int64 {
		idx, seen := n*p/100, 0
		for _, k := range keys {
			seen += b.counts[k]
			if idx < seen {
				return k
			}
		}
		return keys[len(keys)-1]
	}
	s.P5, s.Median, s.P90, s.P95, s.P99 = pct(5), pct(50), pct(90), pct(95), pct(99)
	return s
}

// computeStats derives Stats from run times in microseconds, in the order
// they were measured.
func computeStats(values []int64) Stats {
	var b statsBuilder
	for _, v := range values {
		b.add(v)
	}
	return b.stats()
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
