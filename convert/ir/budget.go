package ir

import (
	"fmt"
	"runtime"
	"weak"
)

// Limits bound the size of one conversion, so that a small hostile model
// cannot make the converter use memory or time out of proportion to it.
// A zero (or negative) field takes its default (DefaultLimits). Every
// error a limit causes names it (Budget.Name).
type Limits struct {
	// MaxNodes bounds the nodes of the entry function: the main graph as
	// read and cut to its inputs and outputs, and what inlining and
	// unrolling grow it to.
	MaxNodes int
	// MaxTensorBytes bounds one constant tensor: decoded from a
	// TensorProto, read from a checkpoint or made by the converter.
	MaxTensorBytes int64
	// MaxConstantBytes bounds the bytes of all constant tensors of the
	// conversion alive at once (decoded, read from the checkpoint, folded
	// or made by legalisation), counted as they are made; tensors that
	// are no longer reachable are not counted (Budget).
	MaxConstantBytes int64
	// MaxFoldedBytes bounds the bytes constant folding creates over the
	// whole conversion, dead ones included, so that folding's time is
	// bounded too. Past it, ops stay unfolded and are lowered as
	// operators instead.
	MaxFoldedBytes int64
	// MaxFoldElements bounds the elements of one tensor constant folding
	// produces; a larger result leaves the op unfolded.
	MaxFoldElements int
	// MaxLoopIterations bounds the trip count of one unrolled loop.
	MaxLoopIterations int
	// MaxListLength bounds the items of one TensorList or TensorArray
	// tracked at conversion time.
	MaxListLength int
}

// DefaultLimits are the limits a zero Limits field takes.
var DefaultLimits = Limits{
	MaxNodes:          250_000,
	MaxTensorBytes:    1 << 30,
	MaxConstantBytes:  2 << 30,
	MaxFoldedBytes:    1 << 30,
	MaxFoldElements:   1 << 24,
	MaxLoopIterations: 4096,
	MaxListLength:     1 << 16,
}

// WithDefaults returns l with every zero or negative field set to its
// default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	if l.MaxNodes <= 0 {
		l.MaxNodes = d.MaxNodes
	}
	if l.MaxTensorBytes <= 0 {
		l.MaxTensorBytes = d.MaxTensorBytes
	}
	if l.MaxConstantBytes <= 0 {
		l.MaxConstantBytes = d.MaxConstantBytes
	}
	if l.MaxFoldedBytes <= 0 {
		l.MaxFoldedBytes = d.MaxFoldedBytes
	}
	if l.MaxFoldElements <= 0 {
		l.MaxFoldElements = d.MaxFoldElements
	}
	if l.MaxLoopIterations <= 0 {
		l.MaxLoopIterations = d.MaxLoopIterations
	}
	if l.MaxListLength <= 0 {
		l.MaxListLength = d.MaxListLength
	}
	return l
}

// minTracked is the size under which a constant is not counted against
// MaxConstantBytes: shapes, axes and scalars, whose number (and so whose
// bytes) the node budget bounds.
const minTracked = 256

// Budget is the state of one conversion's limits: the Limits and the
// accounting of constant bytes. Every function of a conversion points at
// the same Budget (Function.Budget; Clone and Specialize pass it on), so
// two conversions never share one and cannot interfere. A nil *Budget
// applies DefaultLimits to single tensors and counts nothing.
//
// Live bytes are counted as constants are made (Reserve before a large
// allocation, Add once the tensor exists). When the count would pass
// MaxConstantBytes, the Budget collects garbage and recounts the tensors
// still reachable (it holds them through weak pointers only), so bytes of
// constants that folding or rewriting dropped are not held against the
// conversion; the count may run past the budget by at most a sixteenth
// before it is checked this way. A Budget is not safe for concurrent use.
type Budget struct {
	// Limits are the limits in force, defaults filled in.
	Limits Limits
	// Names maps a Limits field name to how a user sets it ("--max-nodes"),
	// for error messages (Name); nil names the field only.
	Names map[string]string

	live       int64 // bytes counted (at the last recount, plus added since)
	sinceCount int64 // bytes added since the last recount
	tracked    map[weak.Pointer[Tensor]]int64
	folded     int64
	foldStop   string
	err        error
	work       int64
}

// NewBudget returns the budget of one conversion under l (zero fields
// take their defaults).
func NewBudget(l Limits) *Budget {
	return &Budget{Limits: l.WithDefaults(), tracked: map[weak.Pointer[Tensor]]int64{}}
}

// limits returns b's limits, or the defaults for a nil Budget.
func (b *Budget) limits() Limits {
	if b == nil {
		return DefaultLimits
	}
	return b.Limits
}

// Get returns the limits in force (DefaultLimits for a nil Budget).
func (b *Budget) Get() Limits { return b.limits() }

// Name says which limit field is in question and how to raise it:
// "MaxNodes" becomes, say, "Options.MaxNodes, --max-nodes".
func (b *Budget) Name(field string) string {
	if b != nil && b.Names != nil {
		if s, ok := b.Names[field]; ok {
			return s
		}
	}
	return "ir.Limits." + field
}

// Live returns the bytes of constants counted as alive (see Budget).
func (b *Budget) Live() int64 {
	if b == nil {
		return 0
	}
	return b.live
}

// slack is how far the count may run past MaxConstantBytes before a
// recount.
func (b *Budget) slack() int64 { return max(b.Limits.MaxConstantBytes/32, 1) }

// Reserve checks, before size bytes of constants are allocated for what
// (a function, called only for the message), that they fit in
// MaxConstantBytes with the constants alive; the error names the budget,
// how to raise it and what. It counts nothing: Add the tensor once made.
// A nil Budget accepts everything.
func (b *Budget) Reserve(size int64, what func() string) error {
	if b == nil || size < minTracked {
		return nil
	}
	if b.err != nil {
		return b.err
	}
	if b.fits(size) {
		return nil
	}
	return b.overError(size, describe(what))
}

// describe calls what, or says "a constant" when it is nil.
func describe(what func() string) string {
	if what == nil {
		return "a constant"
	}
	return what()
}

// fits reports whether size more bytes fit, recounting the live tensors
// when the count says they do not and enough may have died since the
// last recount (or size is large).
func (b *Budget) fits(size int64) bool {
	max := b.Limits.MaxConstantBytes
	if b.live+size <= max {
		return true
	}
	if b.sinceCount < b.slack() && size < b.slack() {
		// Too little has been made since the last recount to be worth a
		// collection: run past the budget by at most the slack.
		return b.live+size <= max+b.slack()
	}
	b.recount()
	return b.live+size <= max
}

func (b *Budget) overError(size int64, what string) error {
	return fmt.Errorf("%s needs %d bytes, which would bring the conversion's live constants to %d bytes, past the budget of %d (%s)",
		what, size, b.live+size, b.Limits.MaxConstantBytes, b.Name("MaxConstantBytes"))
}

// recount collects garbage and counts the tracked tensors still
// reachable.
func (b *Budget) recount() {
	runtime.GC()
	var live int64
	for w, size := range b.tracked {
		if w.Value() == nil {
			delete(b.tracked, w)
			continue
		}
		live += size
	}
	b.live, b.sinceCount = live, 0
}

// Add counts t as alive (once, however often it is added) and returns an
// error when that takes the live constants past MaxConstantBytes. The
// error also stays on the Budget (Err), so that code which cannot return
// one (Function.NewConst) is caught by the next check.
func (b *Budget) Add(t *Tensor, what func() string) error {
	if b == nil || t == nil {
		return nil
	}
	if b.err != nil {
		return b.err
	}
	size := t.Bytes()
	if size < minTracked {
		return nil
	}
	w := weak.Make(t)
	if _, ok := b.tracked[w]; ok {
		return nil
	}
	if !b.fits(size) {
		b.err = b.overError(size, describe(what))
		return b.err
	}
	b.tracked[w] = size
	b.live += size
	b.sinceCount += size
	return nil
}

// Err returns the first error Add recorded (nil when within budget).
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	return b.err
}

// Fold accounts size bytes constant folding is about to create and
// reports whether they fit in MaxFoldedBytes (the running total over
// the conversion); false leaves the op unfolded. A nil Budget uses the
// default limit and counts nothing.
func (b *Budget) Fold(size int64) bool {
	if b == nil {
		return size <= DefaultLimits.MaxFoldedBytes
	}
	return b.folded+size <= b.Limits.MaxFoldedBytes
}

// FoldRefused records that Fold refused size bytes for an op whose
// inputs were all constants (what describes it), for FoldStopped. The
// latest refusal is kept: it is the one nearest the error that cites it.
func (b *Budget) FoldRefused(size int64, what func() string) {
	if b != nil {
		b.foldStop = fmt.Sprintf("%s (%d bytes, after %d bytes folded)", describe(what), size, b.folded)
	}
}

// FoldStopped describes the latest op that MaxFoldedBytes left unfolded
// (its node, the bytes it needed and the bytes folded before), or returns
// "" while folding has stayed within the budget; errors that a missing
// constant causes (a loop condition that does not fold) cite it.
func (b *Budget) FoldStopped() string {
	if b == nil {
		return ""
	}
	return b.foldStop
}

// Folded counts size bytes that constant folding created.
func (b *Budget) Folded(size int64) {
	if b != nil {
		b.folded += size
	}
}

// FoldedBytes returns the bytes constant folding created so far.
func (b *Budget) FoldedBytes() int64 {
	if b == nil {
		return 0
	}
	return b.folded
}

// CheckNodes fails when f has more nodes than MaxNodes; doing names the
// step that grew it ("after cutting to the inputs and outputs",
// "inlining F").
func (b *Budget) CheckNodes(f *Function, extra int, doing string) error {
	max := b.limits().MaxNodes
	if len(f.Nodes)+extra > max {
		return fmt.Errorf("%s: %s would make %d nodes, past the node budget of %d (%s)", f.Where(), doing, len(f.Nodes)+extra, max, b.Name("MaxNodes"))
	}
	return nil
}

// AddWork counts k node visits of a pass (see Work). Nil-safe.
func (b *Budget) AddWork(k int) {
	if b != nil {
		b.work += int64(k)
	}
}

// Work counts the node visits of the conversion so far: each
// whole-function traversal or scan (sorting, dead-node removal, a
// replacement or use query without the use index, a search for calls or
// loops, importing, cloning) counts the nodes it goes over, and
// incremental simplification the nodes it visits. It measures the
// conversion's time without a clock, so that tests can check it grows
// with the graph and not with its square.
func (b *Budget) Work() int64 {
	if b == nil {
		return 0
	}
	return b.work
}

// Bytes is the memory the tensor's data takes: len(Data), or for
// strings their bytes plus a slice header each.
func (t *Tensor) Bytes() int64 {
	if t == nil {
		return 0
	}
	n := int64(len(t.Data))
	for _, s := range t.Strings {
		n += int64(len(s)) + 24
	}
	return n
}
