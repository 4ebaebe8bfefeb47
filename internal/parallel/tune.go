package parallel

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// Whether a range is worth splitting depends on what one unit of its
// work estimate costs, and that differs 150-fold between kernels: a
// multiply-add of the AVX-512 VNNI int8 GEMM takes about 0.007 ns, one
// of the float GEMM 0.025 ns, a depthwise tap 0.05-0.08 ns, an element
// of ADD, PRELU, PAD or TRANSPOSE 0.15-0.33 ns, one of SOFTMAX or RFFT2D
// about 1 ns (Run timed per call site on vww_96, mobilenet_v1_0.25,
// face_landmark, retinaface, yamnet at one thread, AMD EPYC Zen 4). So a
// fixed MinWork split int8 convolutions of 1-2 µs, where the hand-off
// (the worker noticing the range, pulling the input the caller just
// wrote from the other core's cache, the caller waiting for the last
// chunk) costs as much as it saves, and vww_96_int8 ran slower on two
// threads than on one. The cost per unit also depends on the ISA level
// (purego, AVX2, NEON) and on the machine's load, so instead of a table
// of factors a Pool measures: each split site (the range function, its
// n and its work) is run a few times on the caller alone and a few times
// split, and from then on the faster way is taken, re-timing the other
// one now and then (exploreEvery) so that the choice follows the load.
// Timing is two clock reads on some Runs of a range big enough to be a
// candidate (at least 2·MinWork); the results never depend on the
// choice, since a kernel's units are independent.

// tuneSlots is the number of split sites a Pool remembers (a model has
// up to a few hundred operators; sites beyond it fall back to the
// MinWork rule).
const tuneSlots = 1024

// tuneProbe is how many slots a lookup probes.
const tuneProbe = 8

// tuneTrials is how many timings of each way a site gets before Run
// chooses between them.
const tuneTrials = 4

// exploreEvery: once chosen, the exploreEvery-th Run of a site takes
// the other way, to keep its timing fresh; the interval doubles with
// each exploration that confirms the choice, up to 4·exploreEvery.
const exploreEvery = 64

// timeEvery: of the Runs that take the chosen way, every timeEvery-th
// is timed (the clock reads cost 2-5% of the smallest candidates).
const timeEvery = 8

// tuneWindow is how many timings of a way make one window: a way's cost
// is the least of its current and its previous window (the noise of a
// shared machine only ever adds time, so the least is the estimate; two
// windows let it rise again when the load rises).
const tuneWindow = 4

// tuning says whether Run measures (SetTuning).
var tuning atomic.Bool

func init() { tuning.Store(true) }

// SetTuning turns the per-site measurement of Run on or off (it is on
// by default) and returns the previous setting. Off, a range with at
// least MinWork of work per thread is always split, as before the
// measurement existed: for comparing the two.
func SetTuning(on bool) (old bool) { return tuning.Swap(on) }

// way is the timing of one way to run a site (caller alone or split).
type way struct {
	cur, prev int64 // least ns of the current and previous window (0: none)
	n         int32 // timings in the current window
	total     int32 // timings ever
}

func (w *way) add(ns int64) {
	if ns <= 0 {
		ns = 1
	}
	if w.n == 0 || ns < w.cur {
		w.cur = ns
	}
	w.n++
	w.total++
	if w.n >= tuneWindow {
		w.prev, w.n = w.cur, 0
	}
}

// cost is the way's estimated time in ns (0 when never timed).
func (w *way) cost() int64 {
	c := w.prev
	if w.n > 0 && (c == 0 || w.cur < c) {
		c = w.cur
	}
	return c
}

// site is what a Pool knows about one split site.
type site struct {
	fn       uintptr // the range function's value (0: free slot)
	n, work  int
	calls    uint32
	best     bool   // the choice: split
	every    uint32 // Runs between two explorations (0: not chosen yet)
	left     uint32 // Runs until the next exploration
	serial   way
	parallel way
}

// split says whether this Run of the site should split, and whether
// to time it: every Run until both ways have their trials, then the
// explorations and every timeEvery-th of the others.
func (s *site) split() (split, timed bool) {
	s.calls++
	if s.serial.total < tuneTrials || s.parallel.total < tuneTrials {
		// Split first: a model invoked once (tflrun run) keeps the
		// speed-up of its big operators.
		return s.calls&1 == 1, true
	}
	// Split only when it is measurably faster: it costs the other
	// core's time, so a near tie goes to the caller alone.
	best := s.parallel.cost()*20 < s.serial.cost()*19
	if s.every == 0 || best != s.best {
		// A new choice: explore it soon.
		s.best, s.every, s.left = best, exploreEvery, exploreEvery
	}
	s.left--
	if s.left == 0 {
		// Each exploration that leaves the choice as it was doubles
		// the interval to the next, up to 4·exploreEvery: one of a
		// site that splits well costs a whole unsplit Run, one of a
		// site kept on the caller a hand-off, a worker's wake-up on a
		// loaded machine.
		s.every = min(2*s.every, 4*exploreEvery)
		s.left = s.every
		return !best, true
	}
	return best, s.calls%timeEvery == 0
}

// tuner is a Pool's table of split sites; only Run (one goroutine at a
// time) touches it.
type tuner struct {
	sites [tuneSlots]site
}

// lookup returns the site of (f, n, work), making it if there is room,
// or nil.
func (t *tuner) lookup(f func(worker, lo, hi int), n, work int) *site {
	fn := *(*uintptr)(unsafe.Pointer(&f))
	h := uint64(fn)*0x9e3779b97f4a7c15 ^ uint64(n)*0xc2b2ae3d27d4eb4f ^ uint64(work)*0x165667b19e3779f9
	i := int(h >> 40)
	for k := 0; k < tuneProbe; k++ {
		s := &t.sites[(i+k)%tuneSlots]
		if s.fn == fn && s.n == n && s.work == work {
			return s
		}
		if s.fn == 0 {
			*s = site{fn: fn, n: n, work: work}
			return s
		}
	}
	return nil
}

// runTuned runs the range on the caller alone or split, as s chooses,
// and records how long it took.
func (p *Pool) runTuned(s *site, n, threads int, f func(worker, lo, hi int)) {
	split, timed := s.split()
	var t0 time.Time
	if timed {
		t0 = time.Now()
	}
	if split {
		p.runSplit(n, threads, f)
	} else {
		f(0, 0, n)
	}
	if !timed {
		return
	}
	if d := int64(time.Since(t0)); split {
		s.parallel.add(d)
	} else {
		s.serial.add(d)
	}
}
