package ir

// Replacing the uses of a value scans every node of the function, so a
// pass that replaces values one node at a time (legalisation,
// simplification, constant sharing, unrolling) is quadratic in the size
// of the graph. A pass that does many replacements tracks uses instead
// (TrackUses): the function then keeps an index from each value to the
// nodes using it, which ReplaceAllUses, IsResult, HasUses and
// RemoveNodes consult and maintain, so that each replacement costs what
// the value's users cost.
//
// While uses are tracked, every change of a node's inputs or of the
// function's results must go through the function's methods (NewNode,
// NewTFL, NewConst, SetInput, ReplaceAllUses, Inline, RemoveNodes,
// RemoveUnused, SetResults), which keep the index right; writing
// Node.Inputs or Function.Results directly would leave it stale.

// useIndex is the index of one tracking: it stamps values and nodes
// with its epoch (a fresh mark, see newMarks), so that what an earlier
// tracking left on them means nothing. A value stamped with the epoch
// lists the input slots that may hold it (Value.users: a superset, in
// which a slot may appear more than once and slots of removed nodes, or
// since rewired, may linger; each lookup checks the slot again, in
// constant time) and counts the result slots holding it; a node stamped
// removed (Node.removed) is no longer in the function.
type useIndex struct {
	epoch uint64
	depth int
}

// UseRef is one use of a value: input Slot of node Node, or for a TFLite
// intermediate slot -1-j for intermediate j.
type UseRef struct {
	Node *Node
	Slot int
}

// holds reports whether the slot holds v.
func (r UseRef) holds(v *Value) bool {
	if r.Slot >= 0 {
		return r.Slot < len(r.Node.Inputs) && r.Node.Inputs[r.Slot] == v
	}
	j := -1 - r.Slot
	return r.Node.TFL != nil && j < len(r.Node.TFL.Intermediates) && r.Node.TFL.Intermediates[j] == v
}

// usersOf returns the candidate uses of v.
func (u *useIndex) usersOf(v *Value) []UseRef {
	if v.useEpoch != u.epoch {
		return nil
	}
	return v.users
}

// stamp makes v part of this index, dropping what an earlier one left.
func (u *useIndex) stamp(v *Value) {
	if v.useEpoch != u.epoch {
		v.useEpoch, v.users, v.results = u.epoch, nil, 0
	}
}

func (u *useIndex) addUse(v *Value, n *Node, slot int) {
	u.stamp(v)
	v.users = append(v.users, UseRef{n, slot})
}

// live reports whether r is a use of v in the function.
func (u *useIndex) live(r UseRef, v *Value) bool { return r.Node.removed != u.epoch && r.holds(v) }

func (u *useIndex) resultsOf(v *Value) int {
	if v.useEpoch != u.epoch {
		return 0
	}
	return int(v.results)
}

func (u *useIndex) isRemoved(n *Node) bool { return n.removed == u.epoch }

func (u *useIndex) remove(n *Node) { n.removed = u.epoch }

// TrackUses makes f index the uses of its values until the returned
// function is called (see the comment above; nested calls share one
// index, dropped when the outermost ends).
func (f *Function) TrackUses() (stop func()) {
	if f.uses == nil {
		f.Budget.AddWork(len(f.Nodes))
		u := &useIndex{epoch: newMarks(1)}
		for _, n := range f.Nodes {
			u.addInputs(n)
		}
		for _, r := range f.Results {
			if r != nil {
				u.stamp(r)
				r.results++
			}
		}
		f.uses = u
	}
	f.uses.depth++
	return func() {
		if f.uses == nil {
			return
		}
		checkUses(f)
		if f.uses.depth--; f.uses.depth == 0 {
			f.uses = nil
		}
	}
}

// add records a node added to the function.
func (u *useIndex) add(n *Node) {
	if u == nil {
		return
	}
	if n.removed == u.epoch {
		n.removed = 0
	}
	u.addInputs(n)
}

func (u *useIndex) addInputs(n *Node) {
	for i, in := range n.Inputs {
		if in != nil {
			u.addUse(in, n, i)
		}
	}
	if n.TFL != nil {
		for j, in := range n.TFL.Intermediates {
			if in != nil {
				u.addUse(in, n, -1-j)
			}
		}
	}
}

// usesValue reports whether n uses v as an input or an intermediate.
func usesValue(n *Node, v *Value) bool {
	for _, in := range n.Inputs {
		if in == v {
			return true
		}
	}
	if n.TFL != nil {
		for _, in := range n.TFL.Intermediates {
			if in == v {
				return true
			}
		}
	}
	return false
}

// Uses maps every value to the nodes using it as an input (a node using
// a value twice appears twice), in the order of f.Nodes. Function
// results are not included; see IsResult. It scans the whole function:
// a pass asking about a few values uses HasUses.
func (f *Function) Uses() map[*Value][]*Node {
	f.Budget.AddWork(len(f.Nodes))
	u := map[*Value][]*Node{}
	for _, n := range f.Nodes {
		for _, in := range n.Inputs {
			if in != nil {
				u[in] = append(u[in], n)
			}
		}
		if n.TFL != nil {
			for _, in := range n.TFL.Intermediates {
				u[in] = append(u[in], n)
			}
		}
	}
	return u
}

// HasUses reports whether a node of f uses v (as an input, or a TFLite
// intermediate). With uses tracked it costs what v's users cost.
func (f *Function) HasUses(v *Value) bool {
	if u := f.uses; u != nil {
		for _, r := range u.usersOf(v) {
			if u.live(r, v) {
				return true
			}
		}
		return false
	}
	f.Budget.AddWork(len(f.Nodes))
	for _, n := range f.Nodes {
		if usesValue(n, v) {
			return true
		}
	}
	return false
}

// IsResult reports whether v is one of f's results.
func (f *Function) IsResult(v *Value) bool {
	if f.uses != nil {
		return f.uses.resultsOf(v) > 0
	}
	f.Budget.AddWork(len(f.Results))
	for _, r := range f.Results {
		if r == v {
			return true
		}
	}
	return false
}

// SetInput makes input i of n (a node of f) v.
func (f *Function) SetInput(n *Node, i int, v *Value) {
	n.Inputs[i] = v
	if f.uses != nil && v != nil {
		f.uses.addUse(v, n, i)
	}
}

// SetResults replaces f's results (and keeps their names).
func (f *Function) SetResults(results []*Value) {
	if u := f.uses; u != nil {
		for _, r := range f.Results {
			if r != nil && r.useEpoch == u.epoch {
				r.results = 0
			}
		}
		for _, r := range results {
			if r != nil {
				u.stamp(r)
				r.results++
			}
		}
	}
	f.Results = results
}

// ReplaceAllUses makes every user of old (nodes and results) use new.
// TFLite intermediates are left alone. With uses tracked it costs the
// uses of old.
func (f *Function) ReplaceAllUses(old, new *Value) {
	f.ReplaceUses(old, new)
}

// ReplaceUses is ReplaceAllUses returning, when uses are tracked, the
// input slots it changed (nil otherwise).
func (f *Function) ReplaceUses(old, new *Value) []UseRef {
	if old == new {
		return nil
	}
	u := f.uses
	if u == nil {
		f.Budget.AddWork(len(f.Nodes))
		for _, n := range f.Nodes {
			for i, in := range n.Inputs {
				if in == old {
					n.Inputs[i] = new
				}
			}
		}
		for i, r := range f.Results {
			if r == old {
				f.Results[i] = new
			}
		}
		return nil
	}
	checkUses(f)
	cands := u.usersOf(old)
	if old.useEpoch == u.epoch {
		old.users = nil
	}
	var keep, changed []UseRef
	for _, r := range cands {
		if !u.live(r, old) {
			continue
		}
		if r.Slot < 0 {
			keep = append(keep, r) // an intermediate stays
			continue
		}
		r.Node.Inputs[r.Slot] = new
		changed = append(changed, r)
		if new != nil {
			u.addUse(new, r.Node, r.Slot)
		}
	}
	if len(keep) > 0 {
		old.users = keep
	}
	if k := u.resultsOf(old); k > 0 {
		for i, r := range f.Results {
			if r == old {
				f.Results[i] = new
			}
		}
		old.results = 0
		if new != nil {
			u.stamp(new)
			new.results += int32(k)
		}
	}
	return changed
}

// RemoveNodes deletes the given nodes (their outputs must be unused),
// keeping the order of the others. Removing a few nodes near the end of
// f.Nodes (as inlining and unrolling do) costs only the distance from the
// end.
func (f *Function) RemoveNodes(dead map[*Node]bool) {
	if len(dead) == 0 {
		return
	}
	if u := f.uses; u != nil {
		for n := range dead {
			u.remove(n)
		}
	}
	from := 0
	defer func() { f.Budget.AddWork(len(f.Nodes) - from) }()
	if len(dead) <= 8 {
		// Find the earliest dead node scanning back from the end; stop
		// when all are found.
		found := 0
		for i := len(f.Nodes) - 1; i >= 0; i-- {
			if dead[f.Nodes[i]] {
				found++
				from = i
				if found == len(dead) {
					break
				}
			}
		}
		if found == 0 {
			return
		}
	}
	kept := f.Nodes[:from]
	for _, n := range f.Nodes[from:] {
		if !dead[n] {
			kept = append(kept, n)
		}
	}
	for i := len(kept); i < len(f.Nodes); i++ {
		f.Nodes[i] = nil
	}
	f.Nodes = kept
}

// Users returns the nodes of f using v, a node once per input (or
// intermediate) slot holding v, as Uses()[v] lists them but in no
// particular order. With uses tracked it costs what v's users cost.
func (f *Function) Users(v *Value) []*Node {
	var out []*Node
	count := func(n *Node) {
		for _, in := range n.Inputs {
			if in == v {
				out = append(out, n)
			}
		}
		if n.TFL != nil {
			for _, in := range n.TFL.Intermediates {
				if in == v {
					out = append(out, n)
				}
			}
		}
	}
	u := f.uses
	if u == nil {
		f.Budget.AddWork(len(f.Nodes))
		for _, n := range f.Nodes {
			count(n)
		}
		return out
	}
	seen := map[UseRef]bool{}
	for _, r := range u.usersOf(v) {
		if u.live(r, v) && !seen[r] {
			seen[r] = true
			out = append(out, r.Node)
		}
	}
	return out
}

// ForEachUser calls fn for each node of f using v (as an input or an
// intermediate), at least once and possibly more; uses must be tracked.
func (f *Function) ForEachUser(v *Value, fn func(*Node)) {
	u := f.uses
	if u == nil {
		panic("ir: ForEachUser without TrackUses")
	}
	for _, r := range u.usersOf(v) {
		if u.live(r, v) {
			fn(r.Node)
		}
	}
}

// Forget records, for the use index, that n left f: a pass that keeps
// f.Nodes itself (passes.Incremental) removes n from it. Uses must be
// tracked.
func (f *Function) Forget(n *Node) {
	if f.uses == nil {
		panic("ir: Forget without TrackUses")
	}
	f.uses.remove(n)
}
