package parallel

import (
	"sync/atomic"
	"testing"
)

func TestWayCostIsLeastOfTwoWindows(t *testing.T) {
	var w way
	if w.cost() != 0 {
		t.Fatalf("untimed way costs %d", w.cost())
	}
	for _, ns := range []int64{50, 30, 40, 60} { // window 1: least 30
		w.add(ns)
	}
	if w.cost() != 30 {
		t.Errorf("after one window: cost %d, want 30", w.cost())
	}
	for _, ns := range []int64{90, 80, 70, 100} { // window 2: least 70
		w.add(ns)
	}
	if w.cost() != 70 {
		t.Errorf("after a slower window: cost %d, want 70 (the old least forgotten)", w.cost())
	}
	w.add(20) // a faster timing counts at once
	if w.cost() != 20 {
		t.Errorf("after a faster timing: cost %d, want 20", w.cost())
	}
	w.add(0)
	if w.cost() != 1 {
		t.Errorf("a zero timing: cost %d, want 1", w.cost())
	}
}

// last is how many of the final Runs drive counts.
const last = 8 * exploreEvery

// drive feeds a site timings (ns of serial and split) for calls Runs
// and returns how many of the last ones split.
func drive(s *site, calls int, serial, split int64) (splits int) {
	for i := 0; i < calls; i++ {
		sp, timed := s.split()
		if timed && sp {
			s.parallel.add(split)
		} else if timed {
			s.serial.add(serial)
		}
		if sp && i >= calls-last {
			splits++
		}
	}
	return splits
}

func TestSiteChoosesTheFasterWay(t *testing.T) {
	// Confirmed choices: one exploration every 4·exploreEvery Runs.
	var s site
	if n := drive(&s, 3000, 100, 60); n != last-2 {
		t.Errorf("split faster: %d of the last %d Runs split, want all but 2 explorations", n, last)
	}
	s = site{}
	if n := drive(&s, 3000, 100, 140); n != 2 {
		t.Errorf("split slower: %d of the last %d Runs split, want the 2 explorations", n, last)
	}
	s = site{}
	if n := drive(&s, 3000, 100, 97); n != 2 {
		t.Errorf("split 3%% faster: %d Runs split, want 2 (a near tie stays on the caller)", n)
	}
	// The interval starts at exploreEvery after the trials and doubles.
	s = site{}
	var at []uint32
	for i := 0; i < 2*tuneTrials+7*exploreEvery+1; i++ {
		sp, timed := s.split()
		if timed && sp {
			s.parallel.add(300)
			if s.serial.total >= tuneTrials && s.parallel.total > tuneTrials {
				at = append(at, s.calls)
			}
		} else if timed {
			s.serial.add(100)
		}
	}
	want := []uint32{2*tuneTrials + exploreEvery, 2*tuneTrials + 3*exploreEvery, 2*tuneTrials + 7*exploreEvery}
	if len(at) != len(want) || at[0] != want[0] || at[1] != want[1] || at[2] != want[2] {
		t.Errorf("explorations at Runs %v, want %v", at, want)
	}
	// The load changes: splitting, once slower, becomes faster.
	s = site{}
	drive(&s, 1000, 100, 140)
	if n := drive(&s, 3000, 100, 50); n != last-2 {
		t.Errorf("after the change: %d of the last %d Runs split", n, last)
	}
	// The first Run splits; both ways are timed before any choice.
	s = site{}
	if sp, timed := s.split(); !sp || !timed {
		t.Errorf("first Run: split %v timed %v, want both", sp, timed)
	}
	s = site{}
	drive(&s, 2*tuneTrials, 100, 50)
	if s.serial.total != tuneTrials || s.parallel.total != tuneTrials {
		t.Errorf("first %d Runs: %d serial, %d split timings", 2*tuneTrials, s.serial.total, s.parallel.total)
	}
}

type nop struct{ x int }

func (n *nop) f(worker, lo, hi int) { n.x += hi - lo }

func TestTunerLookup(t *testing.T) {
	tu := new(tuner)
	a, b := &nop{}, &nop{}
	fa, fb := a.f, b.f
	sa := tu.lookup(fa, 10, 1000)
	if sa == nil || tu.lookup(fa, 10, 1000) != sa {
		t.Fatal("a site is not found again")
	}
	if tu.lookup(fb, 10, 1000) == sa || tu.lookup(fa, 11, 1000) == sa || tu.lookup(fa, 10, 1001) == sa {
		t.Error("different function, n or work share a site")
	}
	// A full table gives nil, never a wrong site.
	full := new(tuner)
	got := 0
	for i := 0; i < 4*tuneSlots; i++ {
		if s := full.lookup(fa, i+1, 7); s != nil {
			if s.n != i+1 {
				t.Fatalf("lookup(n=%d) gave the site of n=%d", i+1, s.n)
			}
			got++
		}
	}
	if got < tuneSlots/2 || got > tuneSlots {
		t.Errorf("%d sites in a table of %d", got, tuneSlots)
	}
}

func TestTunedRunAllocatesNothing(t *testing.T) {
	p := New(4)
	defer p.Stop()
	s := &sum{out: make([]float64, 4096)}
	f := s.rows
	if a := testing.AllocsPerRun(500, func() { p.Run(len(s.out), 100*MinWork, f) }); a != 0 {
		t.Errorf("a tuned Run allocates %v times per call, want 0", a)
	}
}

func TestTunedRunCoversEveryUnitOnce(t *testing.T) {
	for _, on := range []bool{true, false} {
		old := SetTuning(on)
		p := New(3)
		const n, reps = 777, 300 // past the trials and several explorations
		c := &cover{hits: make([]atomic.Int32, n), busy: make([]atomic.Int32, 3), threads: 3}
		for rep := 0; rep < reps; rep++ {
			p.Run(n, 100*MinWork, c.do)
		}
		p.Stop()
		SetTuning(old)
		if c.bad.Load() != 0 {
			t.Fatalf("tuning %v: bad range or worker index", on)
		}
		for i := range c.hits {
			if h := c.hits[i].Load(); h != reps {
				t.Fatalf("tuning %v: unit %d ran %d times in %d runs", on, i, h, reps)
			}
		}
	}
}
