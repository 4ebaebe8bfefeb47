// Package parallel runs the independent parts of one operator's work on a
// small persistent set of worker goroutines (intra-operator threading).
//
// A Pool is made once per interpreter (at AllocateTensors) and stopped by
// Stop (Interpreter.Close). Run splits a range of n independent units
// (output rows, pixel tiles, channel blocks) into chunks that the calling
// goroutine and the workers claim one by one; each unit must write only
// its own outputs, so the result does not depend on how the range is
// split or on the number of threads. Run starts no goroutine, sends on no
// channel and allocates nothing: the function is passed as a value the
// kernel made once (a method value stored at Prepare), not a closure
// literal built per call.
//
// Between runs a worker first spins (SpinTime, yielding its processor
// with runtime.Gosched so that it never holds one another goroutine
// needs, and its core with sched_yield so that it does not slow the
// caller's single-threaded operators on a machine with more runnable
// threads than cores), then sleeps on a sync.Cond. An Invoke is a sequence of
// operators of 10 µs to a few ms each, with short single-threaded
// operators between the split ones: a worker woken from a futex sleep
// for each of them (tens of microseconds on a loaded virtual machine)
// arrived after the caller had claimed most chunks, and two threads
// gave no speed-up at all. Spinning briefly is what TensorFlow Lite's
// thread pools do too (ruy's and pthreadpool's workers busy-wait before
// they block).
package parallel

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// MinWork is the least work (in multiply-adds or element operations, the
// unit Run's work argument counts) per extra thread for which Run
// considers splitting a range at all: a range with less work per thread
// runs on fewer threads, down to the caller alone. Above it, whether a
// range is split is measured per split site (see SetTuning), so MinWork
// only keeps ranges that cannot pay for a hand-off (about 1-2 µs on a
// 2-core AMD EPYC) from being timed: 16k units are 0.1 µs of the VNNI
// int8 GEMM, 3 µs of an elementwise kernel. (With a fixed threshold and
// no measurement it was 64k, and before the workers spun, 256k.)
const MinWork = 16 << 10

// SpinTime is how long a worker keeps polling for the next range after
// finishing one it ran chunks of (an eighth of it after one it missed)
// before it sleeps: long enough to bridge the
// single-threaded operators between two split ones and the gap between
// two Invokes of a loop, short enough that an idle interpreter soon
// stops using CPU.
const SpinTime = 500 * time.Microsecond

// minWork is the threshold Run applies: MinWork, or what SetMinWork set.
var minWork atomic.Int64

func init() { minWork.Store(MinWork) }

// SetMinWork sets the work threshold of every Pool's Run and returns the
// previous one (to measure the threshold). w ≤ 0 is for tests: every
// range is split whatever its work, and chunk c goes to thread c mod
// Threads() instead of to whichever thread claims it first, so every
// worker runs its share even when the caller could finish the range
// before a worker wakes.
func SetMinWork(w int) (old int) { return int(minWork.Swap(int64(w))) }

// spinBurst is how many times a spinning worker polls between two
// yields of its processor (about a microsecond).
const spinBurst = 256

// chunksPerThread is how many chunks a range is cut into per thread, so
// that a thread delayed by the scheduler (the machine is shared) leaves
// its chunks to the others instead of making every thread wait.
const chunksPerThread = 4

// Pool is a set of threads-1 worker goroutines plus the calling one. The
// zero Pool and a nil *Pool run everything on the caller. A Pool runs
// one range at a time: Run must not be called concurrently, nor from
// inside a range function.
type Pool struct {
	threads int

	// The current range, written by Run before it opens the range
	// (state) and read by the workers that joined it.
	f         func(worker, lo, hi int)
	n         int
	numChunks int64
	helpers   int32 // workers the range may take
	static    bool  // chunks dealt round-robin (SetMinWork(0))

	_ [64]byte // the fields the workers write, on their own lines

	// state is gen<<1 | open: gen counts the threaded ranges Run has
	// published, open says workers may still join the latest.
	state    atomic.Uint64
	next     atomic.Int64 // next chunk to claim
	joined   atomic.Int32 // workers that joined the range (ids 1..)
	running  atomic.Int32 // workers inside the join protocol
	finished atomic.Int32 // workers done with a static range
	waiting  atomic.Bool  // Run sleeps on done
	sleepers atomic.Int32 // workers sleeping on wake
	stopped  atomic.Bool

	mu     sync.Mutex
	wake   sync.Cond // workers wait for a new range
	done   sync.Cond // Run waits for the workers that joined
	panicV any       // the first panic of a range function (under mu)

	live atomic.Int32 // worker goroutines started and not yet returned

	tune *tuner // the split sites' timings (nil for one thread)
}

// New starts a pool of threads threads in all (the caller counts as one,
// so threads-1 goroutines are started); threads < 1 is taken as 1. Stop
// ends the goroutines.
func New(threads int) *Pool {
	p := &Pool{threads: max(threads, 1)}
	if p.threads > 1 {
		p.tune = new(tuner)
	}
	p.wake.L = &p.mu
	p.done.L = &p.mu
	for w := 1; w < p.threads; w++ {
		p.live.Add(1)
		go p.worker()
	}
	return p
}

// Workers is the number of the pool's goroutines that have not returned:
// threads-1 from New until Stop, then falling to 0 as they see it (0 for
// a nil Pool).
func (p *Pool) Workers() int {
	if p == nil {
		return 0
	}
	return int(p.live.Load())
}

// Threads is the number of threads Run may use, the caller included: 1
// for a nil Pool. A kernel sizes its per-thread scratch with it at
// Prepare; Run's worker index is below it.
func (p *Pool) Threads() int {
	if p == nil || p.threads < 1 {
		return 1
	}
	return p.threads
}

// Stop ends the workers; Run then runs everything on the caller. It is
// idempotent and safe on a nil Pool, and must not be called during Run.
func (p *Pool) Stop() {
	if p == nil {
		return
	}
	p.stopped.Store(true)
	p.mu.Lock()
	p.wake.Broadcast()
	p.mu.Unlock()
}

// Threads resolves a requested thread count: n ≥ 1 is itself, -1 (or any
// value below 1) means every core the process may use
// (runtime.GOMAXPROCS, which on Linux follows the CPU affinity mask and
// the cgroup CPU quota).
func Threads(n int) int {
	if n >= 1 {
		return n
	}
	return max(runtime.GOMAXPROCS(0), 1)
}

// Run calls f over [0, n) split into disjoint ranges [lo, hi), on up to
// Threads() goroutines at once, and returns when every unit is done.
// worker, in [0, Threads()), identifies the goroutine running the call,
// for per-thread scratch: no two calls with the same worker run at once.
// work is the whole range's cost in multiply-adds (or element
// operations): a range with less than MinWork (see SetMinWork) per
// thread uses fewer threads, and one below 2·MinWork runs as f(0, 0, n)
// on the caller; a negative work always splits (tests). A range above
// that is split only if splitting it has been measured to be faster
// than running it on the caller alone (see SetTuning): each split site
// (f, n and work) is timed both ways on its first Runs and now and then
// afterwards.
// A panic in f is re-raised on the caller once every thread has stopped
// working on the range.
func (p *Pool) Run(n, work int, f func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	threads := p.Threads()
	if p != nil && p.stopped.Load() {
		threads = 1
	}
	threads = min(threads, n)
	mw := int(minWork.Load())
	if work >= 0 && mw > 0 {
		threads = min(threads, work/mw)
	}
	if threads <= 1 {
		f(0, 0, n)
		return
	}
	if work >= 0 && mw > 0 && p.tune != nil && tuning.Load() {
		if s := p.tune.lookup(f, n, work); s != nil {
			p.runTuned(s, n, threads, f)
			return
		}
	}
	p.runSplit(n, threads, f)
}

// runSplit runs the range on threads threads (at least 2), the caller
// included.
func (p *Pool) runSplit(n, threads int, f func(worker, lo, hi int)) {
	mw := int(minWork.Load())
	// No worker is inside the join protocol (the previous Run waited
	// for running to reach 0 after closing its range), so the range
	// fields are Run's alone until the range opens.
	// Chunk c is [c·n/chunks, (c+1)·n/chunks): sizes differ by at most
	// one unit. (Rounding the size up instead made 9 tiles on 2 threads
	// 5 chunks of 2, 2, 2, 2, 1 tiles: one thread ran 3 of them.)
	p.f, p.n = f, n
	p.numChunks = int64(min(n, threads*chunksPerThread))
	p.helpers = int32(threads - 1)
	p.static = mw <= 0
	p.next.Store(0)
	p.joined.Store(0)
	p.finished.Store(0)
	gen := p.state.Load()>>1 + 1
	p.state.Store(gen<<1 | 1)
	if p.sleepers.Load() > 0 {
		p.mu.Lock()
		p.wake.Broadcast()
		p.mu.Unlock()
	}

	p.work(0)

	if p.static {
		// Every helper's chunks are its own: wait until each has
		// joined and run them.
		p.await(func() bool { return p.finished.Load() >= p.helpers })
	}
	p.state.Store(gen << 1) // closed: no worker joins any more
	p.await(func() bool { return p.running.Load() == 0 })
	p.f = nil
	p.mu.Lock()
	pv := p.panicV
	p.panicV = nil
	p.mu.Unlock()
	if pv != nil {
		panic(pv)
	}
}

// await returns once cond holds: it polls for up to SpinTime (the
// workers are finishing their last chunks), yielding the processor and
// the core between bursts, then sleeps on done, which a worker leaving
// the join protocol broadcasts while waiting is set. It used to sleep
// after 256 polls, 10-50 µs, shorter than a worker's last chunk of a
// mid-size convolution (a few tiles of 10-15 µs each): the caller then
// paid a futex wake-up, tens of µs on a loaded virtual machine, on top.
// (cond is a closure over p that does not escape: no allocation.)
func (p *Pool) await(cond func() bool) {
	var start time.Time
	for i := 0; ; i++ {
		for j := 0; j < spinBurst; j++ {
			if cond() {
				return
			}
		}
		runtime.Gosched()
		if i >= 4 {
			osYield()
		}
		if i%16 == 0 {
			if start.IsZero() {
				start = time.Now()
			} else if time.Since(start) > SpinTime {
				break
			}
		}
	}
	p.mu.Lock()
	p.waiting.Store(true)
	for !cond() {
		p.done.Wait()
	}
	p.waiting.Store(false)
	p.mu.Unlock()
}

// work claims and runs chunks of the current range until none is left,
// and says whether it ran any. A panic is recorded for Run and ends this
// thread's share.
func (p *Pool) work(worker int) (ran bool) {
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if p.panicV == nil {
				p.panicV = r
			}
			p.mu.Unlock()
			p.next.Store(p.numChunks) // the others stop claiming
		}
	}()
	f, n, total := p.f, p.n, p.numChunks
	if p.static {
		for c := int64(worker); c < total; c += int64(p.helpers + 1) {
			if p.next.Load() >= total {
				return ran // another thread panicked
			}
			ran = true
			f(worker, int(c)*n/int(total), int(c+1)*n/int(total))
		}
		return ran
	}
	for {
		c := p.next.Add(1) - 1
		if c >= total {
			return ran
		}
		ran = true
		f(worker, int(c)*n/int(total), int(c+1)*n/int(total))
	}
}

// worker is the loop of one worker goroutine: wait until a range is
// open that this worker has not seen, join it if it still takes
// helpers, work, leave.
func (p *Pool) worker() {
	// Kernels read memory-mapped models: a fault must become a panic
	// (re-raised by Run on the interpreter's goroutine, which turns it
	// into an error), as it does on the caller's goroutine.
	debug.SetPanicOnFault(true)
	defer p.live.Add(-1)
	var seen uint64 // the last generation this worker handled
	// spin is how long to poll for the next range: SpinTime after a
	// range this worker ran chunks of, an eighth of it after one it
	// missed (the caller finished it first, or it took fewer threads).
	// Where the pool's sites run on the caller alone (the tuner found
	// splitting them no faster) the only ranges are the tuner's
	// explorations, and a worker spinning SpinTime after each of them
	// spun all the time, taking CPU the machine's other threads, the
	// caller's among them, needed on a loaded machine.
	spin := SpinTime
	for {
		if !p.awaitRange(seen, spin) {
			return
		}
		spin = SpinTime / 8
		// Announce first, then check that the range is still open:
		// Run closes the range before it waits for running to be 0,
		// so either it waits for this worker or this worker sees the
		// range closed and touches none of its fields.
		p.running.Add(1)
		s := p.state.Load()
		if s&1 == 0 || s>>1 == seen {
			p.leave()
			continue
		}
		seen = s >> 1
		id := p.joined.Add(1)
		if id > p.helpers {
			p.leave() // the range takes fewer threads
			continue
		}
		if p.work(int(id)) {
			spin = SpinTime
		}
		if p.static {
			p.finished.Add(1)
		}
		p.leave()
	}
}

// leave ends a worker's part in a range and wakes Run if it sleeps.
func (p *Pool) leave() {
	p.running.Add(-1)
	if p.waiting.Load() {
		p.mu.Lock()
		p.done.Broadcast()
		p.mu.Unlock()
	}
}

// awaitRange waits until a range newer than seen is open (true) or the
// pool is stopped (false): polling for spin, then asleep on wake.
func (p *Pool) awaitRange(seen uint64, spin time.Duration) bool {
	ready := func() bool {
		s := p.state.Load()
		return s&1 == 1 && s>>1 != seen
	}
	var start time.Time
	for i := 0; ; i++ {
		// Poll in bursts, yielding the processor between them: with
		// more threads than GOMAXPROCS, the caller or another worker
		// may need it.
		for j := 0; j < spinBurst; j++ {
			if ready() {
				return !p.stopped.Load()
			}
		}
		if p.stopped.Load() {
			return false
		}
		runtime.Gosched()
		osYield()
		if i%16 == 0 {
			if start.IsZero() {
				start = time.Now()
			} else if time.Since(start) > spin {
				break
			}
		}
	}
	p.mu.Lock()
	p.sleepers.Add(1)
	for !p.stopped.Load() && !ready() {
		p.wake.Wait()
	}
	p.sleepers.Add(-1)
	p.mu.Unlock()
	return !p.stopped.Load()
}
