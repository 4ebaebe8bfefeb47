package parallel

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"
)

// cover runs Run over n units and checks every unit ran exactly once
// and no worker index ran two calls at once.
type cover struct {
	hits    []atomic.Int32
	busy    []atomic.Int32
	threads int
	bad     atomic.Int32
}

func (c *cover) do(worker, lo, hi int) {
	if worker < 0 || worker >= c.threads || lo < 0 || hi > len(c.hits) || lo >= hi {
		c.bad.Add(1)
		return
	}
	if c.busy[worker].Add(1) != 1 {
		c.bad.Add(1)
	}
	for i := lo; i < hi; i++ {
		c.hits[i].Add(1)
	}
	c.busy[worker].Add(-1)
}

func TestRunCoversEveryUnitOnce(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 4, 7} {
		p := New(threads)
		for _, n := range []int{1, 2, 3, 5, 16, 17, 100, 1001} {
			for _, work := range []int{0, MinWork, 2 * MinWork, 100 * MinWork, -1} {
				c := &cover{hits: make([]atomic.Int32, n), busy: make([]atomic.Int32, threads), threads: threads}
				for rep := 0; rep < 3; rep++ {
					p.Run(n, work, c.do)
				}
				if c.bad.Load() != 0 {
					t.Fatalf("threads %d n %d work %d: bad range or worker index", threads, n, work)
				}
				for i := range c.hits {
					if h := c.hits[i].Load(); h != 3 {
						t.Fatalf("threads %d n %d work %d: unit %d ran %d times in 3 runs", threads, n, work, i, h)
					}
				}
			}
		}
		p.Stop()
	}
}

func TestRunUsesWorkers(t *testing.T) {
	p := New(3)
	defer p.Stop()
	var seen [3]atomic.Int32
	// Enough runs that a worker joins at least once even on a loaded
	// machine: each run waits for nobody who has not joined.
	for rep := 0; rep < 2000 && seen[1].Load()+seen[2].Load() == 0; rep++ {
		p.Run(64, -1, func(worker, lo, hi int) {
			seen[worker].Add(1)
			for i := 0; i < 2000; i++ {
				_ = i
			}
		})
	}
	if seen[1].Load()+seen[2].Load() == 0 {
		t.Error("no range was run by a worker goroutine in 2000 runs")
	}
}

func TestSmallWorkStaysOnCaller(t *testing.T) {
	p := New(4)
	defer p.Stop()
	calls := 0
	p.Run(100, 2*MinWork-1, func(worker, lo, hi int) {
		calls++
		if worker != 0 || lo != 0 || hi != 100 {
			t.Errorf("got f(%d, %d, %d), want f(0, 0, 100)", worker, lo, hi)
		}
	})
	if calls != 1 {
		t.Errorf("%d calls, want 1", calls)
	}
}

func TestNilAndStoppedPool(t *testing.T) {
	var p *Pool
	if p.Threads() != 1 {
		t.Errorf("nil pool: Threads %d", p.Threads())
	}
	got := 0
	p.Run(10, -1, func(worker, lo, hi int) { got += hi - lo })
	p.Stop()
	q := New(4)
	q.Stop()
	q.Stop()
	q.Run(10, -1, func(worker, lo, hi int) {
		if worker != 0 {
			t.Errorf("stopped pool ran on worker %d", worker)
		}
		got += hi - lo
	})
	if got != 20 {
		t.Errorf("covered %d units, want 20", got)
	}
}

func TestPanicReachesCaller(t *testing.T) {
	p := New(4)
	defer p.Stop()
	for rep := 0; rep < 20; rep++ {
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Fatalf("recovered %v, want boom", r)
				}
			}()
			p.Run(64, -1, func(worker, lo, hi int) {
				if lo <= 40 && 40 < hi {
					panic("boom")
				}
			})
			t.Fatal("Run returned after a panic")
		}()
		// The pool still works afterwards.
		c := &cover{hits: make([]atomic.Int32, 50), busy: make([]atomic.Int32, 4), threads: 4}
		p.Run(50, -1, c.do)
		for i := range c.hits {
			if c.hits[i].Load() != 1 {
				t.Fatalf("after a panic: unit %d ran %d times", i, c.hits[i].Load())
			}
		}
	}
}

type sum struct{ out []float64 }

func (s *sum) rows(worker, lo, hi int) {
	for i := lo; i < hi; i++ {
		s.out[i] = float64(i) * 0.5
	}
}

func TestRunAllocatesNothing(t *testing.T) {
	p := New(4)
	defer p.Stop()
	s := &sum{out: make([]float64, 4096)}
	f := s.rows // made once, as a kernel does at Prepare
	if a := testing.AllocsPerRun(200, func() { p.Run(len(s.out), -1, f) }); a != 0 {
		t.Errorf("Run allocates %v times per call, want 0", a)
	}
}

func TestThreads(t *testing.T) {
	if Threads(3) != 3 {
		t.Error("Threads(3) != 3")
	}
	if Threads(-1) < 1 || Threads(0) < 1 {
		t.Error("Threads(-1) < 1")
	}
}

// BenchmarkRunOverhead is the cost of one threaded Run of trivial work:
// what a kernel pays for splitting, against which MinWork is set.
func BenchmarkRunOverhead(b *testing.B) {
	for _, threads := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			p := New(threads)
			defer p.Stop()
			s := &sum{out: make([]float64, 64)}
			f := s.rows
			for b.Loop() {
				p.Run(len(s.out), -1, f)
			}
		})
	}
}

func ExamplePool_Run() {
	p := New(2)
	defer p.Stop()
	s := &sum{out: make([]float64, 8)}
	p.Run(len(s.out), -1, s.rows) // -1: always worth splitting
	fmt.Println(s.out)
	// Output: [0 0.5 1 1.5 2 2.5 3 3.5]
}

// spin is a range function whose units each take about a microsecond
// of arithmetic, for BenchmarkRunBreakEven.
type spin struct{ sink [64]float64 }

func (s *spin) units(worker, lo, hi int) {
	x := s.sink[worker*8]
	for i := lo * 600; i < hi*600; i++ {
		x = x*0.999 + 1
	}
	s.sink[worker*8] = x
}

// BenchmarkRunBreakEven times ranges of 2 to 50 units of about 1 µs
// each, split (tuning off) or on the caller alone, each after 5 µs of
// serial work as between two operators: where split beats caller is the
// break-even a quiet machine gives (compare the pairs; the tuner finds
// the same per site).
func BenchmarkRunBreakEven(b *testing.B) {
	defer SetTuning(SetTuning(false))
	p := New(2)
	defer p.Stop()
	s := &spin{}
	f := s.units
	for _, units := range []int{2, 5, 10, 20, 50} {
		for _, split := range []bool{false, true} {
			work := math.MaxInt32
			if !split {
				work = 0
			}
			b.Run(fmt.Sprintf("units=%d/split=%v", units, split), func(b *testing.B) {
				for b.Loop() {
					s.units(0, 0, 5)
					p.Run(units, work, f)
				}
			})
		}
	}
}
