package fusion

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/proto"
)

// TensorFlow 1's tf.nn.static_rnn (tf.contrib.rnn.static_rnn), and any
// graph that calls an RNN cell once per time step in Python, holds no
// loop at all: the input [batch, T, n_input] is split by Unpack (tf.unstack)
// into T steps and the cell's ops are repeated T times, each copy reading
// the weights the first one created and the states the previous copy
// computed. RollStaticRNNs rolls such a chain back into a functional
// While loop of the shape the loop rules know (see loop.go: the sequence a
// loop invariant read with GatherV2 at the time index), so that the same
// rules (keras-lstm-loop, keras-gru-loop, keras-simple-rnn) recognise the
// cell by its structure; a loop no rule fuses is unrolled again by the
// lowering, which gives back the original computation.
//
// A chain is rolled only when it is exactly a loop: the ops of every step
// (the nodes that depend on step t's input but not on step t+1's) match
// those of step 1 one for one (same op, attributes and constant operands,
// inputs in the same places), each step reading the previous step's
// values where step 1 reads step 0's (its states), and step 0 reading
// loop-invariant values there (the initial states, typically
// ZeroState's zeros). Besides the next step, at most one value of each
// step may be read (the step's output: the loop writes it to an output
// list, stacked after the loop and unstacked again for its readers), and
// after the last step its states (the loop's final states, such as the
// last output). A step holding a stack of cells (TF1's MultiRNNCell: a
// second cell reading the first one's new output) is rolled one layer at
// a time: the first layer (the smallest set of states whose new values
// read only themselves and the input) becomes the loop, and the layers
// above become a chain over its unstacked outputs, rolled by the next
// call. A chain that reads two values of a step outside it is left as
// it is.

// RollStaticRNNs rolls every static RNN chain of f into a While loop over
// new body and condition functions registered in m. Each Unpack node
// starts a chain once: tried records them across calls (a rolled loop
// that no rule fuses is unrolled again, reading its steps with GatherV2,
// and is not rolled twice). It returns the number of chains rolled.
// Errors are malformed graphs only; a chain that does not have a loop's
// exact structure is left alone.
func RollStaticRNNs(f *ir.Function, m *ir.Module, tried map[*ir.Node]bool) (int, error) {
	if m == nil {
		return 0, nil
	}
	if err := f.TopoSort(); err != nil {
		return 0, err
	}
	rolled := 0
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if n.Op != "Unpack" || n.TFL != nil || tried[n] || len(n.Outputs) < 3 || len(n.Inputs) != 1 || n.Inputs[0] == nil {
			continue
		}
		tried[n] = true
		ok, err := rollChain(f, m, n)
		if err != nil {
			return rolled, err
		}
		if ok {
			rolled++
			if err := f.TopoSort(); err != nil {
				return rolled, err
			}
		}
	}
	return rolled, nil
}

// chainMatch maps the template step's nodes and state inputs to one step
// of the chain.
type chainMatch struct {
	nodes map[*ir.Node]*ir.Node
	vals  map[*ir.Value]*ir.Value
}

// rollChain rolls the chain over the steps of unpack when it is one.
func rollChain(f *ir.Function, m *ir.Module, unpack *ir.Node) (bool, error) {
	src := unpack.Inputs[0]
	T := len(unpack.Outputs)
	axis, err := unpack.AttrInt("axis", 0)
	if err != nil {
		return false, nil
	}
	if !src.Shape.Static() || src.Shape.Rank() != 3 || !src.DType.IsFloat() {
		return false, nil
	}
	if axis < 0 {
		axis += 3
	}
	if axis != 0 && axis != 1 || src.Shape[axis] != T {
		return false, nil
	}
	// hi[n] is the last step whose input n depends on (-1: none).
	step := map[*ir.Value]int{}
	for t, x := range unpack.Outputs {
		step[x] = t
	}
	hi := map[*ir.Node]int{}
	for _, n := range f.Nodes {
		h := -1
		for _, in := range n.Inputs {
			if in == nil {
				continue
			}
			if t, ok := step[in]; ok && t > h {
				h = t
			}
			if in.Producer != nil && in.Producer != unpack {
				if t, ok := hi[in.Producer]; ok && t > h {
					h = t
				}
			}
		}
		if h >= 0 {
			hi[n] = h
		}
	}
	steps := make([][]*ir.Node, T)
	for _, n := range f.Nodes {
		if t, ok := hi[n]; ok {
			steps[t] = append(steps[t], n)
		}
	}
	tmpl := steps[1]
	inTmpl := map[*ir.Node]bool{}
	for _, n := range tmpl {
		inTmpl[n] = true
	}
	// The template must multiply its input by a constant kernel: a cell.
	hasKernel := false
	for _, n := range tmpl {
		if n.Op == "MatMul" && len(n.Inputs) == 2 && n.Inputs[1] != nil && n.Inputs[1].Const != nil {
			hasKernel = true
		}
	}
	if !hasKernel {
		return false, nil
	}
	inStep0 := map[*ir.Node]bool{}
	for _, n := range steps[0] {
		inStep0[n] = true
	}
	// The template's state inputs: the values of step 0 it reads.
	var stateIn []*ir.Value
	isState := map[*ir.Value]int{}
	for _, n := range tmpl {
		for _, in := range n.Inputs {
			if in != nil && in.Producer != nil && inStep0[in.Producer] {
				if _, ok := isState[in]; !ok {
					isState[in] = len(stateIn)
					stateIn = append(stateIn, in)
				}
			}
		}
	}
	if len(stateIn) == 0 {
		return false, nil
	}
	x1 := unpack.Outputs[1]
	// Match every step against the template.
	matches := make([]*chainMatch, T)
	for t := 0; t < T; t++ {
		mt := matchStep(f, tmpl, inTmpl, x1, unpack.Outputs[t], isState)
		if mt == nil {
			return false, nil
		}
		// Steps before the last are exactly their matched nodes; the last
		// step's remaining nodes are what follows the chain.
		if t < T-1 && len(mt.nodes) != len(steps[t]) {
			return false, nil
		}
		matches[t] = mt
	}
	// The template's state outputs: for each state input, the template
	// value step 2 reads in its place.
	stateOut := make([]*ir.Value, len(stateIn))
	inv1 := map[*ir.Value]*ir.Value{}
	for tv, sv := range matches[1].vals {
		inv1[sv] = tv
	}
	for k, s := range stateIn {
		v2 := matches[2].vals[s]
		tv, ok := inv1[v2]
		if !ok || v2 == nil || v2.Producer == nil || !inTmpl[tv.Producer] {
			return false, nil
		}
		stateOut[k] = tv
	}
	// Step t ≥ 1 reads step t-1's state outputs; step 0 reads invariants.
	inits := make([]*ir.Value, len(stateIn))
	for t := 0; t < T; t++ {
		for k, s := range stateIn {
			got := matches[t].vals[s]
			if got == nil {
				return false, nil
			}
			if t == 0 {
				if got.Producer != nil {
					if _, dep := hi[got.Producer]; dep {
						return false, nil
					}
				}
				inits[k] = got
				continue
			}
			if matches[t-1].vals[stateOut[k]] != got {
				return false, nil
			}
		}
	}
	// A stack of cells in one step (TF1's MultiRNNCell): the states fall
	// into layers, the first layer's states depending on nothing but
	// themselves and the input. Only that layer is rolled; its output
	// sequence is unstacked again for the layers above, which form a
	// chain of their own over it (rolled by the next call).
	group, deps := firstLayer(tmpl, inTmpl, isState, stateOut)
	rolledNode := map[*ir.Node]bool{}
	var region []*ir.Node
	for _, n := range tmpl {
		in := true
		for _, o := range n.Outputs {
			for k := range deps[o] {
				in = in && group[k]
			}
		}
		if in {
			rolledNode[n] = true
			region = append(region, n)
		}
	}
	var gIn, gOut []*ir.Value
	for k := range stateIn {
		if group[k] {
			gIn, gOut = append(gIn, stateIn[k]), append(gOut, stateOut[k])
		}
	}
	hasKernel = false
	for _, n := range region {
		if n.Op == "MatMul" && len(n.Inputs) == 2 && n.Inputs[1] != nil && n.Inputs[1].Const != nil {
			hasKernel = true
		}
	}
	if !hasKernel {
		return false, nil
	}
	// images[t] are step t's nodes of the rolled region.
	images := make([]map[*ir.Node]bool, T)
	allImages := map[*ir.Node]bool{}
	for t := range images {
		images[t] = map[*ir.Node]bool{}
		for _, n := range region {
			sn := matches[t].nodes[n]
			images[t][sn], allImages[sn] = true, true
		}
	}
	last := matches[T-1]
	finalOf := map[*ir.Value]int{}
	for k, so := range gOut {
		finalOf[last.vals[so]] = k
	}
	// What the region's values are read by: the same or the next step's
	// region; else the value is the one the loop writes per step (at most
	// one), or, after the last step, a final state.
	var write *ir.Value
	uses := f.Uses()
	for t := 0; t < T; t++ {
		for _, n := range region {
			for j, o := range matches[t].nodes[n].Outputs {
				outer := f.IsResult(o)
				for _, u := range uses[o] {
					if !images[t][u] && (t+1 == T || !images[t+1][u]) {
						outer = true
					}
				}
				if !outer {
					continue
				}
				if _, ok := finalOf[o]; ok && t == T-1 {
					continue
				}
				tv := n.Outputs[j]
				if write != nil && write != tv {
					return false, nil // two values per step read outside
				}
				write = tv
			}
		}
	}
	if write != nil && (!write.DType.IsFloat() || !write.Shape.Static()) {
		return false, nil
	}

	// Build the loop: variables (time, sequence, [output list,] states...,
	// invariants...).
	base := commonPrefix(region) + "static_rnn"
	callName := base
	seq := src
	if axis == 1 {
		perm := f.NewConst(callName+"/perm", ir.FromInt32s(ir.Shape{3}, []int32{1, 0, 2}))
		tr := f.NewNode(callName+"/time_major", "Transpose", []*ir.Value{src, perm}, 1)
		tr.SetAttrType("T", src.DType)
		tr.SetAttrType("Tperm", ir.Int32)
		tr.Outputs[0].DType = src.DType
		tr.Outputs[0].Shape = ir.Shape{src.Shape[1], src.Shape[0], src.Shape[2]}
		seq = tr.Outputs[0]
	}
	// Non-constant values from outside the chain the region reads
	// (other than its input and states) are loop invariants.
	var outside []*ir.Value
	isOutside := map[*ir.Value]bool{}
	for _, n := range region {
		for _, in := range n.Inputs {
			if in == nil || in == x1 || in.Const != nil || isOutside[in] {
				continue
			}
			if _, ok := isState[in]; ok {
				continue
			}
			if in.Producer != nil && rolledNode[in.Producer] {
				continue
			}
			isOutside[in] = true
			outside = append(outside, in)
		}
	}
	t0 := f.NewConst(callName+"/time", ir.FromInt32s(ir.Scalar(), []int32{0}))
	loopIns := []*ir.Value{t0, seq}
	var elemShape *ir.Value
	if write != nil {
		es := make([]int32, write.Shape.Rank())
		for i, d := range write.Shape {
			es[i] = int32(d)
		}
		elemShape = f.NewConst(callName+"/element_shape", ir.FromInt32s(ir.Shape{len(es)}, es))
		steps := f.NewConst(callName+"/num_elements", ir.FromInt32s(ir.Scalar(), []int32{int32(T)}))
		res := f.NewNode(callName+"/outputs", "TensorListReserve", []*ir.Value{elemShape, steps}, 1)
		res.SetAttrType("element_dtype", write.DType)
		res.SetAttrType("shape_type", ir.Int32)
		res.Outputs[0].DType, res.Outputs[0].Shape = ir.Variant, ir.Scalar()
		loopIns = append(loopIns, res.Outputs[0])
	}
	first := len(loopIns) // the first state variable
	for _, s := range gIn {
		loopIns = append(loopIns, matches[0].vals[s])
	}
	loopIns = append(loopIns, outside...)
	nv := len(loopIns)

	newFn := func(kind string) (*ir.Function, []*ir.Value) {
		g := ir.NewFunction(uniqueFunctionName(m, "static_rnn_"+kind+"/"+callName), m)
		g.Budget = f.Budget
		params := make([]*ir.Value, nv)
		for i, v := range loopIns {
			name := fmt.Sprintf("arg%d", i)
			switch {
			case i == 0:
				name = "time"
			case i == 1:
				name = "sequence"
			case i < first:
				name = "outputs"
			case i < first+len(gIn):
				name = fmt.Sprintf("state%d", i-first)
			}
			params[i] = g.AddParam(name, v.DType, v.Shape.Clone())
		}
		return g, params
	}
	cond, cp := newFn("cond")
	limit := cond.NewConst("steps", ir.FromInt32s(ir.Scalar(), []int32{int32(T)}))
	less := cond.NewNode("less", "Less", []*ir.Value{cp[0], limit}, 1)
	less.SetAttrType("T", ir.Int32)
	less.Outputs[0].DType, less.Outputs[0].Shape = ir.Bool, ir.Scalar()
	cond.Results, cond.ResultNames = []*ir.Value{less.Outputs[0]}, []string{"output_0"}

	body, bp := newFn("body")
	vm := map[*ir.Value]*ir.Value{}
	axis0 := body.NewConst("axis", ir.FromInt32s(ir.Scalar(), []int32{0}))
	get := body.NewNode("x", "GatherV2", []*ir.Value{bp[1], bp[0], axis0}, 1)
	get.SetAttrType("Tparams", seq.DType)
	get.SetAttrType("Tindices", ir.Int32)
	get.SetAttrType("Taxis", ir.Int32)
	get.SetAttrInt("batch_dims", 0)
	get.Outputs[0].DType, get.Outputs[0].Shape = x1.DType, x1.Shape.Clone()
	vm[x1] = get.Outputs[0]
	for k, s := range gIn {
		vm[s] = bp[first+k]
	}
	for j, v := range outside {
		vm[v] = bp[first+len(gIn)+j]
	}
	one := body.NewConst("one", ir.FromInt32s(ir.Scalar(), []int32{1}))
	next := body.NewNode("next_time", "AddV2", []*ir.Value{bp[0], one}, 1)
	next.SetAttrType("T", ir.Int32)
	next.Outputs[0].DType, next.Outputs[0].Shape = ir.Int32, ir.Scalar()
	copies := make([]*ir.Node, len(region))
	for i, n := range region {
		c := body.NewNode(n.Name, n.Op, nil, len(n.Outputs))
		copies[i] = c
		for a, v := range n.Attrs {
			c.Attrs[a] = v
		}
		c.InlinedFrom = n.InlinedFrom
		for j, o := range n.Outputs {
			c.Outputs[j].DType, c.Outputs[j].Shape, c.Outputs[j].Const = o.DType, o.Shape.Clone(), o.Const
			vm[o] = c.Outputs[j]
		}
	}
	for i, n := range region {
		c := copies[i]
		for _, in := range n.Inputs {
			if in == nil {
				c.Inputs = append(c.Inputs, nil)
				continue
			}
			w := vm[in]
			if w == nil {
				if in.Const == nil {
					return false, n.Errorf("static RNN chain: input %q has no counterpart in the loop body", in.Name)
				}
				w = body.NewConst(in.Name, in.Const)
				vm[in] = w
			}
			c.Inputs = append(c.Inputs, w)
		}
	}
	body.Results = append(body.Results, next.Outputs[0], bp[1])
	if write != nil {
		set := body.NewNode("write", "TensorListSetItem", []*ir.Value{bp[2], bp[0], vm[write]}, 1)
		set.SetAttrType("element_dtype", write.DType)
		set.Outputs[0].DType, set.Outputs[0].Shape = ir.Variant, ir.Scalar()
		body.Results = append(body.Results, set.Outputs[0])
	}
	for _, so := range gOut {
		body.Results = append(body.Results, vm[so])
	}
	body.Results = append(body.Results, bp[first+len(gIn):]...)
	for i := range body.Results {
		body.ResultNames = append(body.ResultNames, fmt.Sprintf("output_%d", i))
	}
	if err := body.TopoSort(); err != nil {
		return false, err
	}
	if err := m.AddFunction(cond); err != nil {
		return false, err
	}
	if err := m.AddFunction(body); err != nil {
		return false, err
	}
	w := f.NewNode(callName, "While", append([]*ir.Value(nil), loopIns...), nv)
	w.Attrs["cond"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: cond.Name}}}
	w.Attrs["body"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: body.Name}}}
	tl := &tfpb.AttrValue_ListValue{}
	for i, v := range loopIns {
		tl.Type = append(tl.Type, v.DType.TF())
		w.Outputs[i].DType, w.Outputs[i].Shape = v.DType, v.Shape.Clone()
	}
	w.Attrs["T"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: tl}}
	// Rewire what read the chain: the per-step outputs to the unstacked
	// output list, the last step's states to the loop's final states.
	rewire := func(v, to *ir.Value) {
		for _, u := range uses[v] {
			if allImages[u] {
				continue
			}
			for i, in := range u.Inputs {
				if in == v {
					f.SetInput(u, i, to)
				}
			}
		}
		if f.IsResult(v) {
			res := append([]*ir.Value(nil), f.Results...)
			for i, r := range res {
				if r == v {
					res[i] = to
				}
			}
			f.SetResults(res)
		}
	}
	if write != nil {
		stack := f.NewNode(callName+"/stack", "TensorListStack", []*ir.Value{w.Outputs[2], elemShape}, 1)
		stack.SetAttrType("element_dtype", write.DType)
		stack.SetAttrInt("num_elements", int64(T))
		stack.Outputs[0].DType = write.DType
		stack.Outputs[0].Shape = append(ir.Shape{T}, write.Shape...)
		un := f.NewNode(callName+"/unstack", "Unpack", []*ir.Value{stack.Outputs[0]}, T)
		un.SetAttrType("T", write.DType)
		un.SetAttrInt("num", int64(T))
		un.SetAttrInt("axis", 0)
		for t := 0; t < T; t++ {
			un.Outputs[t].DType, un.Outputs[t].Shape = write.DType, write.Shape.Clone()
			rewire(matches[t].vals[write], un.Outputs[t])
		}
	}
	for v, k := range finalOf {
		rewire(v, w.Outputs[first+k])
	}
	return true, nil
}

// firstLayer returns the state indices of the first cell of a step: the
// smallest set of states closed under "the new value reads the old
// value" (every state when the step is one cell), and the state inputs
// each template value depends on.
func firstLayer(tmpl []*ir.Node, inTmpl map[*ir.Node]bool, isState map[*ir.Value]int, stateOut []*ir.Value) (map[int]bool, map[*ir.Value]map[int]bool) {
	// deps[v] are the state inputs template value v depends on.
	deps := map[*ir.Value]map[int]bool{}
	for _, n := range tmpl {
		d := map[int]bool{}
		for _, in := range n.Inputs {
			if in == nil {
				continue
			}
			if k, ok := isState[in]; ok {
				d[k] = true
			}
			if in.Producer != nil && inTmpl[in.Producer] {
				for k := range deps[in] {
					d[k] = true
				}
			}
		}
		for _, o := range n.Outputs {
			deps[o] = d
		}
	}
	var best map[int]bool
	for k := range stateOut {
		c := map[int]bool{k: true}
		for changed := true; changed; {
			changed = false
			for j := range c {
				for i := range deps[stateOut[j]] {
					if !c[i] {
						c[i], changed = true, true
					}
				}
			}
		}
		if best == nil || len(c) < len(best) {
			best = c
		}
	}
	return best, deps
}

// matchStep matches the template nodes tmpl (step 1 of a chain, input
// x1, state inputs isState) to the step reading x. It returns nil when
// the step's ops differ.
func matchStep(f *ir.Function, tmpl []*ir.Node, inTmpl map[*ir.Node]bool, x1, x *ir.Value, isState map[*ir.Value]int) *chainMatch {
	mt := &chainMatch{nodes: map[*ir.Node]*ir.Node{}, vals: map[*ir.Value]*ir.Value{x1: x}}
	taken := map[*ir.Node]bool{}
	for _, n := range tmpl {
		// The template node reads a value of its own step (x1 or a
		// template node): its counterpart is a user of that value's image.
		var anchor *ir.Value
		for _, in := range n.Inputs {
			if in != nil && (in == x1 || in.Producer != nil && inTmpl[in.Producer]) {
				anchor = mt.vals[in]
				break
			}
		}
		if anchor == nil {
			return nil
		}
		var found *ir.Node
		for _, c := range f.Users(anchor) {
			if taken[c] || !sameOp(n, c) {
				continue
			}
			if bind := matchInputs(n, c, mt, x1, inTmpl, isState); bind != nil {
				for k, v := range bind {
					mt.vals[k] = v
				}
				found = c
				break
			}
		}
		if found == nil {
			return nil
		}
		taken[found] = true
		mt.nodes[n] = found
		for j, o := range n.Outputs {
			mt.vals[o] = found.Outputs[j]
		}
	}
	return mt
}

// matchInputs checks c's inputs against the template node n's and returns
// the new state bindings (an empty map when none), or nil.
func matchInputs(n, c *ir.Node, mt *chainMatch, x1 *ir.Value, inTmpl map[*ir.Node]bool, isState map[*ir.Value]int) map[*ir.Value]*ir.Value {
	bind := map[*ir.Value]*ir.Value{}
	for i, in := range n.Inputs {
		got := c.Inputs[i]
		if (in == nil) != (got == nil) {
			return nil
		}
		if in == nil {
			continue
		}
		own := in == x1 || in.Producer != nil && inTmpl[in.Producer]
		_, state := isState[in]
		switch {
		case own:
			if mt.vals[in] != got {
				return nil
			}
		case state:
			want, ok := mt.vals[in]
			if !ok {
				want, ok = bind[in]
			}
			if ok && want != got {
				return nil
			}
			if !ok {
				bind[in] = got
			}
		case in.Const != nil:
			if got.Const == nil || !sameTensor(in.Const, got.Const) {
				return nil
			}
		default:
			if in != got {
				return nil
			}
		}
	}
	return bind
}

// sameOp reports whether two nodes are the same op with the same
// attributes and arity.
func sameOp(a, b *ir.Node) bool {
	if a.Op != b.Op || a.TFL != nil || b.TFL != nil || len(a.Inputs) != len(b.Inputs) || len(a.Outputs) != len(b.Outputs) || len(a.Attrs) != len(b.Attrs) {
		return false
	}
	for k, v := range a.Attrs {
		w, ok := b.Attrs[k]
		if !ok || !proto.Equal(v, w) {
			return false
		}
	}
	return true
}

// sameTensor reports whether two constants hold the same value.
func sameTensor(a, b *ir.Tensor) bool {
	if a == b {
		return true
	}
	if a.DType != b.DType || !a.Shape.Equal(b.Shape) || !bytes.Equal(a.Data, b.Data) || len(a.Strings) != len(b.Strings) {
		return false
	}
	for i := range a.Strings {
		if !bytes.Equal(a.Strings[i], b.Strings[i]) {
			return false
		}
	}
	return true
}

// commonPrefix is the longest common "a/b/" prefix of the nodes' names.
func commonPrefix(nodes []*ir.Node) string {
	if len(nodes) == 0 {
		return ""
	}
	p := nodes[0].Name
	for _, n := range nodes[1:] {
		for !strings.HasPrefix(n.Name, p) {
			p = p[:len(p)-1]
		}
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return ""
}

// uniqueFunctionName returns base, or base_N when m already has a
// function of that name.
func uniqueFunctionName(m *ir.Module, base string) string {
	name := base
	for i := 1; m.HasFunction(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}
