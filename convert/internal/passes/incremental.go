package passes

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
)

// Incremental keeps a function simplified while calls are inlined into
// it one at a time, doing only the work the last change calls for.
//
// The converter inlines calls outermost first, one per round, and
// simplifies the whole function after each (Simplify): sorting it,
// visiting every node, removing dead ones, until nothing changes. That is
// linear in the function per inlined call, so quadratic for a chain of
// calls. Incremental gives the same function — the same nodes in the same
// order with the same names, as Simplify would leave it after each step —
// while visiting only what a step affected:
//
//   - The order of f.Nodes is kept in a list with order labels, so a node
//     can be moved before another, and two compared, in constant time.
//     Sorting is replaced by repairing the nodes that may use a value
//     produced after them (a replaced input): each, in order, pulls the
//     nodes it needs before it in depth-first post-order, which is what
//     TopoSort does to them, and it leaves every other node in place.
//   - A round of simplification visits the nodes whose visit may differ
//     from their last one (inputs replaced or changed, new nodes), in
//     order; a visit that changes a value schedules its users in the same
//     round (they come later) and what comes earlier in the next, as a
//     full round would see them. A node whose inputs did not change does
//     the same on every visit, so skipping it changes nothing.
//   - Dead nodes are found from the nodes that lost users, by counting
//     the users left, instead of marking the whole function.
//
// While an Incremental is in use, f.Nodes holds f's nodes in no
// particular order and must not be reordered or edited except through
// it, Inline and f's node constructors (NewNode, NewConst...), and f
// tracks uses (ir.Function.TrackUses). Release puts f.Nodes back in
// order and ends that.
type Incremental struct {
	f    *ir.Function
	stop func()

	head, tail *elem
	elems      map[*ir.Node]*elem
	absorbed   int // f.Nodes[:absorbed] are in the list

	dirty []*elem    // to visit in the next round (elem.dirty)
	viol  []*elem    // may use a value produced after them (elem.slots)
	dead  []*ir.Node // may have lost their last user

	// cursor is the first node FirstCall has not looked at (nil: it has
	// looked at every node).
	cursor *elem

	// The round being run: the label of the node being visited, the
	// queue of nodes still to visit, and the users of a value being
	// replaced.
	inRound bool
	current uint64
	queue   elemHeap
	visits  int
}

// elem is a node's place in the order.
type elem struct {
	n          *ir.Node
	label      uint64
	prev, next *elem
	slot       int // index in f.Nodes
	// dirty and queued say the element is in Incremental's dirty list or
	// in the round's queue; slots are the inputs that may come from a
	// node after it (the element is in the viol list when there are any).
	dirty, queued bool
	slots         []int
}

// labelGap is the label spacing a renumbering gives.
const labelGap = 1 << 32

// NewIncremental starts incremental simplification of f, which Simplify
// has just left at its fixed point (sorted, nothing left to fold or
// remove).
func NewIncremental(f *ir.Function) *Incremental {
	e := &Incremental{f: f, elems: make(map[*ir.Node]*elem, len(f.Nodes))}
	e.stop = f.TrackUses()
	e.absorb()
	// At the fixed point nothing is to visit or remove.
	for _, el := range e.dirty {
		el.dirty = false
	}
	e.dirty, e.dead = nil, nil
	e.cursor = e.head
	return e
}

// Visits counts the node visits of the rounds run so far (for tests
// that check the work done grows with the graph, not its square).
func (e *Incremental) Visits() int { return e.visits }

// Release ends incremental simplification: f.Nodes is put in order and
// uses are no longer tracked. The Incremental must not be used again.
func (e *Incremental) Release() {
	if e.f == nil {
		return
	}
	e.absorb()
	nodes := e.f.Nodes[:0]
	for el := e.head; el != nil; el = el.next {
		nodes = append(nodes, el.n)
	}
	e.f.Nodes = nodes
	e.stop()
	e.f = nil
}

// absorb links the nodes appended to f.Nodes since the last call at the
// end of the order; they are visited in the next round.
func (e *Incremental) absorb() {
	f := e.f
	first := (*elem)(nil)
	for i := e.absorbed; i < len(f.Nodes); i++ {
		n := f.Nodes[i]
		el := &elem{n: n, slot: i, prev: e.tail}
		if e.tail == nil {
			el.label = labelGap
			e.head = el
		} else {
			if e.tail.label > ^uint64(0)-2*labelGap {
				e.renumber()
			}
			el.label = e.tail.label + labelGap
			e.tail.next = el
		}
		e.tail = el
		e.elems[n] = el
		e.markDirty(el)
		e.dead = append(e.dead, n)
		if first == nil {
			first = el
		}
	}
	e.absorbed = len(f.Nodes)
	if first != nil && e.cursor == nil {
		e.cursor = first
	}
}

// renumber spreads the labels of the whole order evenly.
func (e *Incremental) renumber() {
	k := uint64(len(e.elems) + 1)
	gap := max(uint64(1)<<62/k, 1)
	l := gap
	for el := e.head; el != nil; el = el.next {
		el.label = l
		l += gap
	}
}

// remove takes n out of f (it must have no users).
func (e *Incremental) remove(n *ir.Node) {
	el := e.elems[n]
	if el == nil {
		return
	}
	e.absorb()
	f := e.f
	f.Forget(n)
	last := len(f.Nodes) - 1
	if el.slot != last {
		moved := f.Nodes[last]
		f.Nodes[el.slot] = moved
		e.elems[moved].slot = el.slot
	}
	f.Nodes[last] = nil
	f.Nodes = f.Nodes[:last]
	e.absorbed = len(f.Nodes)
	if el.prev != nil {
		el.prev.next = el.next
	} else {
		e.head = el.next
	}
	if el.next != nil {
		el.next.prev = el.prev
	} else {
		e.tail = el.prev
	}
	if e.cursor == el {
		e.cursor = el.next
	}
	delete(e.elems, n)
}

// markDirty schedules el for the next round.
func (e *Incremental) markDirty(el *elem) {
	if !el.dirty {
		el.dirty = true
		e.dirty = append(e.dirty, el)
	}
}

// insertBefore moves the nodes ns (in order) to just before u.
func (e *Incremental) insertBefore(u *elem, ns []*elem) {
	for _, el := range ns {
		// Unlink.
		if el.prev != nil {
			el.prev.next = el.next
		} else {
			e.head = el.next
		}
		if el.next != nil {
			el.next.prev = el.prev
		} else {
			e.tail = el.prev
		}
		if e.cursor == el {
			e.cursor = el.next
		}
	}
	lo := uint64(0)
	if u.prev != nil {
		lo = u.prev.label
	}
	if u.label-lo <= uint64(len(ns))+1 {
		e.respace(u, len(ns))
		lo = 0
		if u.prev != nil {
			lo = u.prev.label
		}
	}
	step := (u.label - lo) / uint64(len(ns)+1)
	prev := u.prev
	for i, el := range ns {
		el.label = lo + step*uint64(i+1)
		el.prev, el.next = prev, u
		if prev != nil {
			prev.next = el
		} else {
			e.head = el
		}
		prev = el
	}
	u.prev = prev
	// The moved nodes come before u: FirstCall must look at them if it
	// has already passed u.
	if e.cursor == nil || u.label <= e.cursor.label {
		e.cursor = ns[0]
	}
}

// respace widens the label gap before u enough for k more labels, by
// spreading the labels of ever larger stretches of the order around u
// (the whole order last).
func (e *Incremental) respace(u *elem, k int) {
	a, b := u, u
	count := 1
	for w := 1; ; w *= 2 {
		for i := 0; i < w && a.prev != nil; i++ {
			a = a.prev
			count++
		}
		for i := 0; i < w && b.next != nil; i++ {
			b = b.next
			count++
		}
		lo, hi := uint64(0), ^uint64(0)
		if a.prev != nil {
			lo = a.prev.label
		}
		if b.next != nil {
			hi = b.next.label
		}
		if a.prev == nil && b.next == nil {
			e.renumber()
			return
		}
		need := uint64(count+k+1) * 64
		if hi-lo > need && (hi-lo)/need >= 2 {
			gap := (hi - lo) / uint64(count+k+1)
			l := lo
			for el := a; ; el = el.next {
				l += gap
				if el == u {
					l += gap * uint64(k) // room for the k before u
				}
				el.label = l
				if el == b {
					break
				}
			}
			return
		}
	}
}

// touch schedules a visit of n: in this round when it comes after the
// node being visited, else in the next.
func (e *Incremental) touch(n *ir.Node) {
	el := e.elems[n]
	if el == nil {
		return // not absorbed yet: it will be visited as new
	}
	if e.inRound && el.label > e.current {
		if !el.queued {
			el.queued = true
			heap.Push(&e.queue, el)
		}
		return
	}
	e.markDirty(el)
}

// touchUsers schedules a visit of every user of v.
func (e *Incremental) touchUsers(v *ir.Value) {
	e.f.ForEachUser(v, e.touch)
}

// hintedValue schedules the users and the producer of v, whose shape
// was set from outside its producer.
func (e *Incremental) hintedValue(v *ir.Value) {
	e.touchUsers(v)
	if v.Producer != nil {
		e.touch(v.Producer)
	}
}

// Simplify runs rounds of simplification until one changes nothing, as
// passes.Simplify does, visiting only the nodes that may change.
func (e *Incremental) Simplify() error {
	for round := 0; round < maxRounds; round++ {
		e.absorb()
		if err := e.repair(); err != nil {
			return err
		}
		changed, err := e.round()
		if err != nil {
			return err
		}
		if e.collect() > 0 {
			changed = true
		}
		if !changed {
			e.check()
			return nil
		}
	}
	return fmt.Errorf("%s: simplification did not settle after %d rounds", e.f.Where(), maxRounds)
}

// round visits the scheduled nodes in order (simplifyOnce on them).
func (e *Incremental) round() (bool, error) {
	e.queue = e.queue[:0]
	for _, el := range e.dirty {
		el.dirty = false
		if e.elems[el.n] == el && !el.queued {
			el.queued = true
			e.queue = append(e.queue, el)
		}
	}
	e.dirty = e.dirty[:0]
	heap.Init(&e.queue)
	e.inRound = true
	defer func() { e.inRound = false }()
	changed := false
	obs := (*roundObserver)(e)
	for e.queue.Len() > 0 {
		el := heap.Pop(&e.queue).(*elem)
		el.queued = false
		if e.elems[el.n] != el {
			continue // removed
		}
		e.current = el.label
		e.visits++
		e.f.Budget.AddWork(1)
		n := el.n
		c, err := simplifyNode(e.f, n, obs)
		if err != nil {
			return false, err
		}
		if c {
			changed = true
			if identityOps[n.Op] {
				// An identity left alive (an output it could not
				// bypass is used) changes something on every visit.
				e.markDirty(el)
			}
		}
	}
	return changed, nil
}

// roundObserver is Incremental as simplifyNode's observer.
type roundObserver Incremental

func (o *roundObserver) inferred(n *ir.Node, before []ValueState) {
	e := (*Incremental)(o)
	for i, out := range n.Outputs {
		if i >= len(before) || !before[i].same(out) {
			e.touchUsers(out)
		}
	}
}

func (o *roundObserver) hinted(v *ir.Value) { (*Incremental)(o).hintedValue(v) }

func (o *roundObserver) replaced(old, new *ir.Value, uses []ir.UseRef) {
	(*Incremental)(o).replacedUses(old, stateOf(old), new, uses)
}

// replacedUses records that the input slots uses, which held old (which
// looked like seen to them), now hold new. A user sees new as it saw old
// when the two look the same (type, shape, constant value, variable): a
// visit reads nothing else of its inputs, so it is visited again only
// when they differ (or when it is an identity, whose visit forwards its
// input itself). A slot whose new producer comes after the user is
// checked by the next repair. old's producer may be dead; new's producer
// gained users.
func (e *Incremental) replacedUses(old *ir.Value, seen ValueState, new *ir.Value, uses []ir.UseRef) {
	var at *elem
	if new != nil && new.Producer != nil {
		at = e.elems[new.Producer]
		e.touch(new.Producer)
	}
	same := new != nil && seen.same(new)
	for _, r := range uses {
		u := r.Node
		if !same || identityOps[u.Op] {
			e.touch(u)
		}
		if new == nil || new.Producer == nil {
			continue
		}
		if ue := e.elems[u]; ue != nil && (at == nil || at.label > ue.label) {
			if len(ue.slots) == 0 {
				e.viol = append(e.viol, ue)
			}
			ue.slots = append(ue.slots, r.Slot)
		}
	}
	if old.Producer != nil {
		e.dead = append(e.dead, old.Producer)
	}
}

// collect removes the nodes that lost their last user, and what only
// they used; it returns how many it removed.
func (e *Incremental) collect() int {
	e.absorb()
	f := e.f
	removed := 0
	stack := e.dead
	e.dead = nil
	f.Budget.AddWork(len(stack))
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.elems[n] == nil || ir.IsStateUpdate(n) {
			continue
		}
		used := false
		for _, o := range n.Outputs {
			if f.HasUses(o) || f.IsResult(o) {
				used = true
				break
			}
		}
		if used {
			continue
		}
		e.remove(n)
		removed++
		for _, in := range n.Inputs {
			if in != nil && in.Producer != nil {
				stack = append(stack, in.Producer)
			}
		}
		if n.TFL != nil {
			for _, in := range n.TFL.Intermediates {
				if in != nil && in.Producer != nil {
					stack = append(stack, in.Producer)
				}
			}
		}
	}
	return removed
}

// repair puts every node after the producers of its inputs, as TopoSort
// would: only nodes that may use a value produced after them are out of
// place, and TopoSort, reaching each of them in order, first places the
// nodes it needs that come after it, depth first.
func (e *Incremental) repair() error {
	if len(e.viol) == 0 {
		return nil
	}
	var users []*elem
	for _, el := range e.viol {
		if e.elems[el.n] == el {
			users = append(users, el)
		} else {
			el.slots = nil
		}
	}
	e.viol = e.viol[:0]
	sortElems(users)
	pulled := map[*elem]bool{}
	for _, u := range users {
		slots := u.slots
		u.slots = nil
		if pulled[u] {
			continue // placed before an earlier node, as TopoSort would
		}
		e.f.Budget.AddWork(1 + len(slots))
		var order []*elem
		onStack := map[*elem]bool{u: true}
		var visit func(el *elem, ins []*ir.Value) error
		visit = func(el *elem, ins []*ir.Value) error {
			e.f.Budget.AddWork(len(ins))
			for _, v := range ins {
				if v == nil || v.Producer == nil {
					continue
				}
				p := e.elems[v.Producer]
				if p == nil {
					return el.n.Errorf("input %q comes from a node that is not in the function", v.Name)
				}
				if p.label < u.label || pulled[p] {
					continue // placed already
				}
				if onStack[p] {
					var names []string
					for n := range onStack {
						names = append(names, n.n.Name)
					}
					return fmt.Errorf("%s: the graph has a cycle: cycle through nodes %s", e.f.Where(), strings.Join(names, ", "))
				}
				onStack[p] = true
				pins := p.n.Inputs
				if p.n.TFL != nil && len(p.n.TFL.Intermediates) > 0 {
					pins = append(append([]*ir.Value(nil), pins...), p.n.TFL.Intermediates...)
				}
				if err := visit(p, pins); err != nil {
					return err
				}
				delete(onStack, p)
				pulled[p] = true
				order = append(order, p)
			}
			return nil
		}
		// TopoSort goes over u's inputs in order, placing the producers
		// not placed yet; only the slots recorded can have one.
		sort.Ints(slots)
		var ins []*ir.Value
		for i, s := range slots {
			if s >= 0 && s < len(u.n.Inputs) && (i == 0 || s != slots[i-1]) {
				ins = append(ins, u.n.Inputs[s])
			}
		}
		if err := visit(u, ins); err != nil {
			return err
		}
		if len(order) > 0 {
			e.insertBefore(u, order)
		}
	}
	return nil
}

// sortElems sorts by label.
func sortElems(els []*elem) {
	h := elemHeap(els)
	heap.Init(&h)
	out := make([]*elem, 0, len(els))
	for h.Len() > 0 {
		out = append(out, heap.Pop(&h).(*elem))
	}
	copy(els, out)
}

// elemHeap orders elements by label.
type elemHeap []*elem

func (h elemHeap) Len() int           { return len(h) }
func (h elemHeap) Less(i, j int) bool { return h[i].label < h[j].label }
func (h elemHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *elemHeap) Push(x any)        { *h = append(*h, x.(*elem)) }
func (h *elemHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// FirstCall returns the first call node of f in order (see CallTarget)
// and the function it calls, or nil when none is left; nodes before the
// last call it returned are not looked at again.
func (e *Incremental) FirstCall(m *ir.Module) (*ir.Node, string, error) {
	e.absorb()
	for el := e.cursor; el != nil; el = el.next {
		e.cursor = el
		e.f.Budget.AddWork(1)
		name, ok, err := CallTarget(m, el.n)
		if err != nil {
			return nil, "", err
		}
		if ok {
			return el.n, name, nil
		}
	}
	e.cursor = nil
	return nil, "", nil
}

// Seen records what the users of call's outputs see of them, before
// Specialize gives them the types and shapes of the callee's results:
// Inline takes it.
func (e *Incremental) Seen(call *ir.Node) []ValueState {
	seen := make([]ValueState, len(call.Outputs))
	for i, o := range call.Outputs {
		seen[i] = stateOf(o)
	}
	return seen
}

// Inline replaces call (a node of f) by spec, a copy of its callee
// specialised to it (Specialize), as ir.Function.Inline does, and
// schedules what changed for the next Simplify; seen is what Seen
// returned for call before it was specialised.
func (e *Incremental) Inline(call *ir.Node, spec *ir.Function, seen []ValueState) error {
	e.absorb()
	f := e.f
	inSpec := make(map[*ir.Node]bool, len(spec.Nodes))
	for _, n := range spec.Nodes {
		inSpec[n] = true
	}
	outs, uses, err := f.InlineKeep(call, spec)
	if err != nil {
		return err
	}
	e.absorb() // the callee's nodes, visited in the next round
	for i, o := range call.Outputs {
		e.replacedUses(o, seen[i], outs[i], uses[i])
		if r := outs[i]; r.Producer == nil || !inSpec[r.Producer] {
			// A value of f (an input passed through) may have taken the
			// output's shape: its users see it.
			e.hintedValue(r)
		}
	}
	for _, in := range call.Inputs {
		if in != nil && in.Producer != nil {
			e.dead = append(e.dead, in.Producer)
			e.touch(in.Producer)
		}
	}
	e.remove(call)
	return nil
}
