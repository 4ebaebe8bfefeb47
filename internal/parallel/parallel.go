// Package parallel runs the independent parts of one operator's work on a
// small persistent set of worker goroutines (intra-operator threading).
//
// A Pool is made once per interpreter (at AllocateTensors) and stopped by
// Stop (Interpreter.Close). Run splits a range of n independent units
// (output rows, pixel tiles, channel blocks) into chunks that the calling
// goroutine and the workers claim one by one; each unit must write only
// its own outputs, so the result does not depend on how the range is
// split or on the number of threads. Run starts no goroutine, sends on no
// channel and allocates nothing: the workers sleep on a sync.Cond between
// runs, and the function is passed as a value the kernel made once (a
// method value stored at Prepare), not a closure literal built per call.
package parallel

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// MinWork is the least work (in multiply-adds or element operations, the
// unit Run's work argument counts) that is worth a thread: a range with
// less work per extra thread runs on fewer threads, down to the caller
// alone. Measured on a loaded 2-core AMD EPYC (BenchmarkThreadedLayers in
// ops/builtin, and whole models with interpreter/measure_threads.go
// -minwork): operators of 0.5–1M multiply-adds ran 1.8× faster on 2
// threads, one of 300k (a 48×48 8→16 int8 pointwise CONV_2D) 1.3× slower,
// and whole CNNs of 0.3–1.5 ms spent 20–25% more CPU time when every
// operator above 128k per thread was split.
const MinWork = 256 << 10

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

	mu      sync.Mutex
	wake    sync.Cond // workers wait for a new range
	done    sync.Cond // Run waits for the workers that joined
	gen     uint64    // range generation, bumped by each threaded Run
	open    bool      // chunks of the current range may still be joined
	helpers int       // workers the current range may take
	joined  int       // workers that joined the current range
	running int       // workers still working on it
	stopped bool
	panicV  any // the first panic of a range function, re-raised by Run

	f         func(worker, lo, hi int)
	n, chunk  int
	numChunks int64
	static    bool         // chunks dealt round-robin (SetMinWork(0))
	next      atomic.Int64 // next chunk to claim

	live atomic.Int32 // worker goroutines started and not yet returned
}

// New starts a pool of threads threads in all (the caller counts as one,
// so threads-1 goroutines are started); threads < 1 is taken as 1. Stop
// ends the goroutines.
func New(threads int) *Pool {
	p := &Pool{threads: max(threads, 1)}
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
	p.mu.Lock()
	p.stopped = true
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
// operations): a range with less than MinWork (see SetMinWork) per thread uses fewer
// threads, and one below 2·MinWork runs as f(0, 0, n) on the caller; a
// negative work always splits (tests).
// A panic in f is re-raised on the caller once every thread has stopped
// working on the range.
func (p *Pool) Run(n, work int, f func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	threads := p.Threads()
	if p != nil && p.stopped {
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
	chunks := min(n, threads*chunksPerThread)
	p.mu.Lock()
	p.f, p.n = f, n
	p.chunk = (n + chunks - 1) / chunks
	p.numChunks = int64((n + p.chunk - 1) / p.chunk)
	p.next.Store(0)
	p.helpers, p.joined, p.running = threads-1, 0, 0
	p.static = mw <= 0
	p.open = true
	p.gen++
	p.wake.Broadcast()
	p.mu.Unlock()

	p.work(0)

	p.mu.Lock()
	for p.static && p.joined < p.helpers {
		p.done.Wait()
	}
	p.open = false
	for p.running > 0 {
		p.done.Wait()
	}
	p.f = nil
	pv := p.panicV
	p.panicV = nil
	p.mu.Unlock()
	if pv != nil {
		panic(pv)
	}
}

// work claims and runs chunks of the current range until none is left.
// A panic is recorded for Run and ends this thread's share.
func (p *Pool) work(worker int) {
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
	f, n, chunk, total := p.f, p.n, p.chunk, p.numChunks
	if p.static {
		for c := int64(worker); c < total; c += int64(p.helpers + 1) {
			if p.next.Load() >= total {
				return // another thread panicked
			}
			lo := int(c) * chunk
			f(worker, lo, min(lo+chunk, n))
		}
		return
	}
	for {
		c := p.next.Add(1) - 1
		if c >= total {
			return
		}
		lo := int(c) * chunk
		f(worker, lo, min(lo+chunk, n))
	}
}

// worker is the loop of one worker goroutine: sleep until a range is
// open that still takes helpers, join it, work, report.
func (p *Pool) worker() {
	// Kernels read memory-mapped models: a fault must become a panic
	// (re-raised by Run on the interpreter's goroutine, which turns it
	// into an error), as it does on the caller's goroutine.
	debug.SetPanicOnFault(true)
	var seen uint64
	p.mu.Lock()
	for {
		for !p.stopped && (p.gen == seen || !p.open || p.joined >= p.helpers) {
			if p.gen != seen && (!p.open || p.joined >= p.helpers) {
				seen = p.gen // a range this worker is not needed for
			}
			p.wake.Wait()
		}
		if p.stopped {
			p.mu.Unlock()
			p.live.Add(-1)
			return
		}
		seen = p.gen
		p.joined++
		id := p.joined
		p.running++
		if p.static {
			p.done.Signal() // Run may be waiting for every worker to join
		}
		p.mu.Unlock()
		p.work(id)
		p.mu.Lock()
		p.running--
		if p.running == 0 {
			p.done.Signal()
		}
	}
}
