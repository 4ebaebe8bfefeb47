package interpreter

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"weak"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/internal/parallel"
)

// Lifetimes and concurrency.
//
// A Model counts the interpreters made from it. Model.Close marks it
// closed (New then fails with ErrModelClosed) and releases its memory map
// only once no interpreter holds it any more: each Interpreter holds the
// Model from New until Interpreter.Close, or until the garbage collector
// finds the Interpreter unreachable. Interpreters of a closed Model keep
// working until they are closed themselves, so Close never pulls the
// mapping from under a running kernel.
//
// An Interpreter is used by one goroutine at a time: every method that
// changes or runs it (AllocateTensors, Invoke, ResizeInputTensor,
// ResetVariableTensors, Close) takes an atomic in-use flag first and
// returns ErrConcurrentUse when another goroutine holds it, instead of
// letting two runs corrupt each other's tensors.
//
// The instruction-set level (Options.ISA, arch.Use) is process-wide. New
// changes it only while no other interpreter is alive (made and neither
// closed nor collected), and arch.Use refuses while any Invoke or
// AllocateTensors is running, so no interpreter ever sees the level
// change under it.

// ErrClosed is returned by the methods of an Interpreter after its Close.
var ErrClosed = errors.New("interpreter is closed")

// ErrModelClosed is returned by New for a Model after its Close.
var ErrModelClosed = errors.New("model is closed")

// ErrConcurrentUse is returned when a goroutine calls a method of an
// Interpreter that another goroutine is running (Invoke, AllocateTensors,
// ResizeInputTensor, ResetVariableTensors or Close). An Interpreter is
// not safe for concurrent use; make one per goroutine (they may share the
// Model).
var ErrConcurrentUse = errors.New("interpreter is in use by another goroutine (an Interpreter is not safe for concurrent use: make one per goroutine)")

// ErrPanic is wrapped by the error LoadBytes, Load, AllocateTensors or
// Invoke return when a kernel, or the loader, panicked on a model: always
// a bug in tflrun (its checks should have refused the model first), kept
// from killing the program that embeds the library. The error names the
// operator, subgraph and kernel, or the stage of loading.
var ErrPanic = errors.New("panicked")

// ErrMemoryFault is wrapped by the error Load, AllocateTensors or Invoke
// return when reading the memory map of a model file faulted: the file
// was truncated or changed after Load (without
// runtime/debug.SetPanicOnFault such a read kills the process with
// SIGBUS).
var ErrMemoryFault = errors.New("memory fault")

// modelLife is the part of a Model that its interpreters share: the
// count of interpreters holding it, whether Close was called, and the
// memory map to release when both say so.
type modelLife struct {
	mu     sync.Mutex
	holds  int
	closed bool
	unmap  func() error
}

// hold registers one more interpreter of the model.
func (l *modelLife) hold() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrModelClosed
	}
	l.holds++
	return nil
}

// release ends one interpreter's hold; the last one after Close unmaps.
func (l *modelLife) release() {
	l.mu.Lock()
	l.holds--
	var unmap func() error
	if l.closed && l.holds == 0 {
		unmap, l.unmap = l.unmap, nil
	}
	l.mu.Unlock()
	if unmap != nil {
		_ = unmap()
	}
}

// dropConstPages drops the resident pages of part, a constant buffer of
// the model's file mapping, while the mapping is held (see dropPages); it
// does nothing for a model read into memory, whose bytes have no file to
// come back from.
func (l *modelLife) dropConstPages(mapping, part []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unmap != nil {
		dropPages(mapping, part)
	}
}

// close marks the model closed and unmaps it at once when no interpreter
// holds it.
func (l *modelLife) close() error {
	l.mu.Lock()
	l.closed = true
	var unmap func() error
	if l.holds == 0 {
		unmap, l.unmap = l.unmap, nil
	}
	l.mu.Unlock()
	if unmap != nil {
		return unmap()
	}
	return nil
}

// lease is what an Interpreter holds: its hold on the model and its entry
// in the registry of live interpreters. It is released once, by Close or
// by the cleanup that runs when the Interpreter becomes unreachable (it
// must not point back at the Interpreter, or the Interpreter would never
// become unreachable).
type lease struct {
	once sync.Once
	life *modelLife
	id   uint64
	// pool is the interpreter's worker pool (nil until AllocateTensors
	// starts one): its goroutines end with the lease, so an interpreter
	// dropped without Close does not leave them sleeping forever.
	pool *parallel.Pool
}

func (l *lease) release() {
	l.once.Do(func() {
		liveInterpreters.remove(l.id)
		l.life.release()
		l.pool.Stop()
	})
}

// liveInterpreters is the registry of interpreters that are alive, for
// New to refuse an ISA change while any other one may run.
var liveInterpreters = liveSet{m: map[uint64]weak.Pointer[Interpreter]{}}

type liveSet struct {
	mu   sync.Mutex
	next uint64
	m    map[uint64]weak.Pointer[Interpreter]
}

func (s *liveSet) add(it *Interpreter) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.m[s.next] = weak.Make(it)
	return s.next
}

func (s *liveSet) remove(id uint64) {
	s.mu.Lock()
	delete(s.m, id)
	s.mu.Unlock()
}

// count returns the number of registered interpreters still reachable;
// s.mu must be held.
func (s *liveSet) count() int {
	n := 0
	for _, p := range s.m {
		if p.Value() != nil {
			n++
		}
	}
	return n
}

// useLevel switches the process to the ISA level named name for a new
// interpreter: a no-op when it is the level in use, refused while another
// interpreter is alive (the garbage collector runs once first, so that
// interpreters dropped without Close do not count). The registry lock is
// held across the switch, so no interpreter can be made meanwhile.
func useLevel(name string) error {
	l, err := arch.ParseLevel(name)
	if err != nil {
		return err
	}
	liveInterpreters.mu.Lock()
	defer liveInterpreters.mu.Unlock()
	if l == arch.Current() {
		return nil
	}
	if liveInterpreters.count() > 0 {
		liveInterpreters.mu.Unlock()
		runtime.GC() // clears the weak pointers of unreachable interpreters
		liveInterpreters.mu.Lock()
	}
	if n := liveInterpreters.count(); n > 0 {
		return fmt.Errorf("cannot switch the ISA level from %s to %s: the level is process-wide and %d other interpreter(s) are alive (Close them first, or make every interpreter with the same Options.ISA)", arch.Current(), l, n)
	}
	return arch.Use(l)
}

// enter takes the in-use flag for a method that changes or runs the
// interpreter; exit gives it back.
func (it *Interpreter) enter() error {
	if !it.inUse.CompareAndSwap(0, 1) {
		return ErrConcurrentUse
	}
	if it.closed {
		it.inUse.Store(0)
		return ErrClosed
	}
	return nil
}

func (it *Interpreter) exit() { it.inUse.Store(0) }

// Close releases the interpreter: its arena and tensors, its worker
// goroutines (Options.NumThreads), and its hold on
// the Model (whose memory map is released when the Model is closed too
// and no other interpreter holds it). Afterwards AllocateTensors, Invoke
// and the other methods that run the interpreter return ErrClosed, and
// the tensors it returned must not be used. Close is idempotent; it
// returns ErrConcurrentUse while another goroutine runs the interpreter.
func (it *Interpreter) Close() error {
	if !it.inUse.CompareAndSwap(0, 1) {
		return ErrConcurrentUse
	}
	defer it.exit()
	if it.closed {
		return nil
	}
	it.closed = true
	it.allocated = false
	it.cleanup.Stop()
	it.lease.release()
	it.arena, it.persistent = nil, nil
	for i := range it.sg.tensors {
		it.sg.tensors[i].Data = nil
	}
	for k := range it.sg.nodes {
		it.sg.nodes[k].kernel = nil
	}
	return nil
}

// guard runs with the in-use flag held by the caller: it turns a panic or
// a memory fault (debug.SetPanicOnFault: a read of the model's memory map
// after the file was truncated raises SIGBUS) in the code it protects
// into an error, and marks a run of arch primitives in progress so that
// the ISA level cannot change meanwhile. Call it as
//
//	defer it.guard(&err, debug.SetPanicOnFault(true))
//
// after arch.BeginRun. It allocates nothing unless a panic happened.
func (it *Interpreter) guard(err *error, panicOnFault bool) {
	if r := recover(); r != nil {
		*err = it.panicError(r)
	}
	debug.SetPanicOnFault(panicOnFault)
	arch.EndRun()
}

// panicError describes a recovered panic: the operator (it.cur ≥ 0) or
// the stage it happened in, its kernel, and whether it was a memory fault
// (which, on a mapped model, means the file changed after Load).
func (it *Interpreter) panicError(r any) error {
	where := "planning the arena"
	if k := it.cur; k >= 0 && k < len(it.sg.nodes) {
		nd := &it.sg.nodes[k]
		where = fmt.Sprintf("%s, kernel %T", nd.Node.String(), nd.kernel)
	}
	if isFault(r) {
		return fmt.Errorf("%s: %w (%v): was the model file truncated or changed after Load?", where, ErrMemoryFault, r)
	}
	return fmt.Errorf("%s: kernel %w: %v (a bug in tflrun: please report it with the model)", where, ErrPanic, r)
}

// isFault reports whether a recovered value is a memory fault turned into
// a panic by debug.SetPanicOnFault (a runtime.Error with an Addr method).
func isFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}
