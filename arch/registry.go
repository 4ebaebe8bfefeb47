package arch

import (
	"errors"
	"slices"
	"sync"
)

// The registry: every primitive owns a function variable (its "slot", the
// one the exported wrapper calls) and a list of implementations. Use picks,
// for each primitive, the last registered implementation that the level
// includes and whose extra features the CPU has, and stores it in the slot.
//
// Implementations are registered from package-level variable
// initialisers,
//
//	var _ = matVecMulAccImpls.add("avx2", AVX2, nil, matVecMulAccAVX2)
//
// never from init functions: Go initialises every package-level variable
// before it runs any init function, so by the time init (dispatch.go)
// selects the level, every file's registrations are in, whatever the file
// order. Register from lowest to highest level in each file; across files
// the order of registration does not matter, because selection prefers
// the implementation of the highest level (ties: the later registration).

// primitive is the type-independent view of a primitive for Describe and
// Use.
type primitive interface {
	info() PrimitiveInfo
	selectFor(l Level)
}

// registry lists every primitive in the order declared.
var registry []primitive

// impls is the registry entry of one primitive whose implementations have
// the function type F.
type impls[F any] struct {
	name string
	slot *F
	list []impl[F]
	cur  int // index in list of the implementation in slot
}

// impl is one implementation.
type impl[F any] struct {
	name  string
	level Level
	needs []Feature
	fn    F
}

// newImpls registers the primitive called name (its exported function)
// with its portable implementation. slot is the function variable the
// exported function calls; it is set to generic now and re-set by Use.
func newImpls[F any](name string, slot *F, generic F) *impls[F] {
	p := &impls[F]{name: name, slot: slot, list: []impl[F]{{name: "generic", level: Generic, fn: generic}}}
	*slot = generic
	registry = append(registry, p)
	return p
}

// add registers fn, written for level and needing the extra CPU features
// needs (nil: only the level's), under name (shown by `tflrun cpu`; by
// convention the level name, or the level name plus the extension it
// relies on, e.g. "avx512vnni"). It returns struct{}{} so that it can be
// called from a package-level `var _ =`.
func (p *impls[F]) add(name string, level Level, needs []Feature, fn F) struct{} {
	p.list = append(p.list, impl[F]{name: name, level: level, needs: needs, fn: fn})
	return struct{}{}
}

// usable reports whether implementation i may run in this process.
func (p *impls[F]) usable(i int) bool {
	im := &p.list[i]
	if checkLevel(im.level) != nil {
		return false
	}
	for _, f := range im.needs {
		if !cpuInfo.Has(f) {
			return false
		}
	}
	return true
}

// pick returns the index of the implementation to use at level l: the
// usable one of the highest level that l includes (later registrations
// win ties); the generic one (index 0) always qualifies.
func (p *impls[F]) pick(l Level) int {
	best := 0
	for i := range p.list {
		im := &p.list[i]
		if !l.Includes(im.level) || !p.usable(i) {
			continue
		}
		// Both levels are on l's chain, so the deeper one includes the
		// other.
		if im.level.depth() >= p.list[best].level.depth() {
			best = i
		}
	}
	return best
}

func (p *impls[F]) selectFor(l Level) {
	p.cur = p.pick(l)
	*p.slot = p.list[p.cur].fn
}

func (p *impls[F]) info() PrimitiveInfo {
	pi := PrimitiveInfo{Name: p.name, Impl: p.list[p.cur].name}
	for i, im := range p.list {
		pi.Impls = append(pi.Impls, ImplInfo{Name: im.name, Level: im.level, Needs: slices.Clone(im.needs), Usable: p.usable(i)})
	}
	return pi
}

// each calls fn for every usable implementation of p, lowest level first,
// with the implementation's name. Tests use it to run exactly one
// implementation against the portable one.
func (p *impls[F]) each(fn func(name string, f F)) {
	for i, im := range p.list {
		if p.usable(i) {
			fn(im.name, im.fn)
		}
	}
}

// usedAt reports whether some primitive's chosen implementation at the
// current level needs feature f beyond its level's (for Summary).
func usedAt(f Feature, l Level) bool {
	mu.Lock()
	defer mu.Unlock()
	for _, p := range registry {
		pi := p.info()
		for _, im := range pi.Impls {
			if im.Name == pi.Impl && slices.Contains(im.Needs, f) {
				return true
			}
		}
	}
	return false
}

// The level in use and the TFLRUN_ISA problem, if any.
var (
	mu       sync.Mutex
	current  Level
	envError error
)

// Use makes every primitive use the best implementation level l offers,
// for the whole process. It returns an error, and changes nothing, when
// the level is not one this process can use: it belongs to another
// GOARCH, the binary was built with -tags purego, or the CPU lacks one of
// its features (the error names them and lists the levels offered). A
// lower level than Best is always accepted, which is what tests and A/B
// benchmarks use.
//
// Use swaps package-level function variables. It is safe to call from
// several goroutines at once; while a run marked by BeginRun is in
// progress (an interpreter's Invoke or AllocateTensors) it refuses with
// ErrRunning and changes nothing, so the level never changes under a
// running interpreter. Interpreters do not remember the level; the last
// Use wins for all of them.
func Use(l Level) error {
	if err := checkLevel(l); err != nil {
		return &LevelError{Level: l, Err: err}
	}
	if !runs.TryLock() {
		return ErrRunning
	}
	defer runs.Unlock()
	mu.Lock()
	defer mu.Unlock()
	for _, p := range registry {
		p.selectFor(l)
	}
	current = l
	return nil
}

// runs is held for reading by every run in progress (BeginRun) and for
// writing by Use while it swaps the implementations.
var runs sync.RWMutex

// ErrRunning is Use's error while a run is in progress.
var ErrRunning = errors.New("arch: cannot change the ISA level while an interpreter is running (Invoke or AllocateTensors in progress)")

// BeginRun marks a run of primitives in progress (an interpreter calls it
// at the start of Invoke and AllocateTensors): Use refuses until the
// matching EndRun. Runs may overlap, from any goroutines; a BeginRun that
// meets a Use in progress waits for it (microseconds). Neither allocates.
func BeginRun() { runs.RLock() }

// EndRun ends a run begun with BeginRun.
func EndRun() { runs.RUnlock() }

// UseName is Use(ParseLevel(name)).
func UseName(name string) error {
	l, err := ParseLevel(name)
	if err != nil {
		return err
	}
	return Use(l)
}

// LevelError is the error Use returns for a level this process cannot
// use.
type LevelError struct {
	Level Level
	Err   error // why: another GOARCH, purego build, or missing features
}

func (e *LevelError) Error() string {
	return "arch: cannot use ISA level " + e.Level.String() + ": " + e.Err.Error()
}
func (e *LevelError) Unwrap() error { return e.Err }

// Current returns the level in use.
func Current() Level {
	mu.Lock()
	defer mu.Unlock()
	return current
}

// ISAError returns the problem with the TFLRUN_ISA environment variable
// at start-up (an unknown name, or a level this process cannot use), nil
// if it was unset, empty or honoured. When it is not nil the process runs
// at Best() instead; `tflrun` prints it as a warning.
func ISAError() error {
	mu.Lock()
	defer mu.Unlock()
	return envError
}
