package convert

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Inputs of unknown rank. A TF1 Placeholder declared without a shape, or
// a signature input saved with an unknown shape, gives no rank to convert
// at. Before asking the user, the converter reads the shape the input's
// consumers fix, following the input along the values that have its
// shape (Identity and its kin, unary elementwise ops, broadcasting binary
// ops whose other operand has a known shape or is the input's own, into
// called functions and If branches):
//
//   - a MatMul with a [K, N] right operand of known K: [-1, K] (or [K, -1]
//     with transpose_a);
//   - a Reshape to a constant shape, or to a Pack of constants and the
//     input's own leading dimension (TF1's tf.reshape(x, [tf.shape(x)[0],
//     28, 28])): that shape, the leading -1 a dynamic batch;
//   - a Conv2D or DepthwiseConv2dNative: rank 4 with the channel count of
//     the filter;
//   - the condition of an If: a scalar (TFLite's IF reads one element).
//
// An input nothing fixes that reaches only elementwise ops (and ops that
// read only its shape) is converted as a scalar. When everything it
// reaches through broadcasts too is elementwise, it is written without a
// rank (shape [], has_rank false), as TensorFlow's converter writes an
// unranked input: such a graph broadcasts, so the model runs at whatever
// shape the application resizes the input to. One broadcast into a
// MatMul's operand or an If's condition (TF1 dropout's keep_prob) stays a
// scalar with a rank. Any other input of unknown
// rank is refused, naming it, the consumer that needs its shape, and the
// --input_shapes that would pin it.

// sameShapeOps pass their (first) input's shape through to output 0.
var sameShapeOps = map[string]bool{
	"Identity": true, "Snapshot": true, "StopGradient": true, "PreventGradient": true,
	"CheckNumerics": true, "EnsureShape": false, "PlaceholderWithDefault": false,
	"Relu": true, "Relu6": true, "Sigmoid": true, "Tanh": true, "Neg": true, "Abs": true, "Sqrt": true,
	"Rsqrt": true, "Exp": true, "Log": true, "Log1p": true, "Square": true, "Floor": true, "Ceil": true,
	"Round": true, "Sin": true, "Cos": true, "Reciprocal": true, "Inv": true, "Erf": true, "Softplus": true,
	"Softsign": true, "Elu": true, "Selu": true, "Sign": true, "ZerosLike": true, "OnesLike": true,
	"LogicalNot": true, "Cast": true, "LeakyRelu": true, "IsNan": true, "FakeQuantWithMinMaxArgs": true,
}

// broadcastOps are the broadcasting binary ops.
var broadcastOps = map[string]bool{
	"Add": true, "AddV2": true, "Sub": true, "Mul": true, "RealDiv": true, "Div": true, "DivNoNan": true,
	"MulNoNan": true, "Maximum": true, "Minimum": true, "Pow": true, "SquaredDifference": true,
	"FloorDiv": true, "FloorMod": true, "Less": true, "LessEqual": true, "Greater": true,
	"GreaterEqual": true, "Equal": true, "NotEqual": true, "LogicalAnd": true, "LogicalOr": true,
	"BiasAdd": false,
}

// shapeOnlyOps read only their input's shape (or nothing of it): they fix
// nothing and accept any rank.
var shapeOnlyOps = map[string]bool{"Shape": true, "Size": true, "Rank": true, "NoOp": true}

// rankFinder looks for what fixes the shape of one input.
type rankFinder struct {
	m    *ir.Module
	uses map[*ir.Function]map[*ir.Value][]*ir.Node
	// input is the entry parameter looked at; same holds the values known
	// to have its shape (in every function visited).
	input *ir.Value
	same  map[*ir.Value]bool
	// shape is the shape found, by the node fixing it (from).
	shape ir.Shape
	from  string
	// conflict is set when two consumers fix different shapes.
	conflict string
	// blocker is a consumer that needs a rank and fixes none.
	blocker string
	visits  int
	// loose follows every broadcasting op, whatever its other operand:
	// a search for any consumer that is not elementwise.
	loose bool
}

// maxRankVisits bounds the values one search visits.
const maxRankVisits = 100000

func (r *rankFinder) usesOf(f *ir.Function) map[*ir.Value][]*ir.Node {
	u, ok := r.uses[f]
	if !ok {
		u = f.Uses()
		r.uses[f] = u
	}
	return u
}

// fix records a shape fixed by node n.
func (r *rankFinder) fix(s ir.Shape, n *ir.Node) {
	what := fmt.Sprintf("%s %q", n.Op, n.Name)
	if r.shape == nil {
		r.shape, r.from = s, what
		return
	}
	if merged, ok := ir.Merge(r.shape, s); ok {
		r.shape = merged
		return
	}
	if r.conflict == "" {
		r.conflict = fmt.Sprintf("%s needs %s, %s needs %s", r.from, r.shape, what, s)
	}
}

// block records a consumer that needs a shape and does not fix one.
func (r *rankFinder) block(n *ir.Node) {
	if r.blocker == "" {
		r.blocker = fmt.Sprintf("%s %q", n.Op, n.Name)
	}
}

// constValue is v's constant value: a resolved constant, or the value
// attribute of a Const node (a graph's Const nodes become constants only
// when simplification runs), looking through Identity.
func constValue(v *ir.Value) *ir.Tensor {
	for i := 0; v != nil && i < 16; i++ {
		if v.Const != nil {
			return v.Const
		}
		p := v.Producer
		switch {
		case p == nil:
			return nil
		case p.Op == "Const" && v.Index == 0:
			t, err := p.AttrTensor("value")
			if err != nil {
				return nil
			}
			return t
		case (p.Op == "Identity" || p.Op == "Snapshot") && len(p.Inputs) > 0:
			v = p.Inputs[0]
		default:
			return nil
		}
	}
	return nil
}

// knownShape is what is known of v's shape: its own, or its constant's
// (a frozen graph's values carry no shapes before inference).
func knownShape(v *ir.Value) ir.Shape {
	if v == nil {
		return nil
	}
	if v.Shape.RankKnown() {
		return v.Shape
	}
	if c := constValue(v); c != nil {
		return c.Shape
	}
	return nil
}

// constInts is the integer values of a constant operand.
func constInts(v *ir.Value) ([]int, bool) {
	c := constValue(v)
	if c == nil || !c.DType.IsInteger() {
		return nil, false
	}
	return c.Ints(), true
}

// walk visits the users of v, a value of f with the input's shape.
func (r *rankFinder) walk(f *ir.Function, v *ir.Value) {
	if r.same[v] || r.visits > maxRankVisits {
		return
	}
	r.same[v] = true
	r.visits++
	for _, n := range r.usesOf(f)[v] {
		slot := -1
		for i, in := range n.Inputs {
			if in == v {
				slot = i
				break
			}
		}
		if slot < 0 {
			continue
		}
		r.use(f, n, slot, v)
	}
}

// use judges one use: input slot of n holds a value with the input's
// shape.
func (r *rankFinder) use(f *ir.Function, n *ir.Node, slot int, v *ir.Value) {
	switch {
	case shapeOnlyOps[n.Op]:
	case sameShapeOps[n.Op] && slot == 0:
		if len(n.Outputs) > 0 {
			r.walk(f, n.Outputs[0])
		}
	case n.Op == "IdentityN":
		if slot < len(n.Outputs) {
			r.walk(f, n.Outputs[slot])
		}
	case broadcastOps[n.Op] && len(n.Inputs) == 2 && len(n.Outputs) > 0:
		other := n.Inputs[1-slot]
		// The result has the input's shape when the other operand is the
		// input's own or of a known shape (a downstream consumer's shape
		// is then the input's too); an operand of unknown shape may be
		// the larger one, and what follows says nothing of the input.
		if r.loose || other == v || r.same[other] || knownShape(other).RankKnown() {
			r.walk(f, n.Outputs[0])
		}
	case n.Op == "MatMul" && slot == 0 && len(n.Inputs) == 2:
		ta, _ := n.AttrBool("transpose_a", false)
		tb, _ := n.AttrBool("transpose_b", false)
		b := knownShape(n.Inputs[1])
		if len(b) != 2 {
			r.block(n)
			return
		}
		k := b[0]
		if tb {
			k = b[1]
		}
		if ta {
			r.fix(ir.Shape{k, -1}, n)
		} else {
			r.fix(ir.Shape{-1, k}, n)
		}
	case n.Op == "Reshape" && slot == 0 && len(n.Inputs) == 2:
		if s, ok := r.reshapeTarget(n.Inputs[1]); ok {
			r.fix(s, n)
		} else {
			r.block(n)
		}
	case (n.Op == "Conv2D" || n.Op == "DepthwiseConv2dNative") && slot == 0 && len(n.Inputs) == 2:
		w := knownShape(n.Inputs[1])
		if len(w) != 4 {
			r.block(n)
			return
		}
		format, _ := n.AttrString("data_format", "NHWC")
		if format == "NCHW" {
			r.fix(ir.Shape{-1, w[2], -1, -1}, n)
		} else {
			r.fix(ir.Shape{-1, -1, -1, w[2]}, n)
		}
	case (n.Op == "If" || n.Op == "StatelessIf") && slot == 0:
		r.fix(ir.Shape{}, n)
	case n.Op == "If" || n.Op == "StatelessIf":
		for _, attr := range []string{"then_branch", "else_branch"} {
			r.callee(n, attr, slot-1)
		}
	case n.Op == "PartitionedCall" || n.Op == "StatefulPartitionedCall":
		r.callee(n, "f", slot)
	default:
		r.block(n)
	}
}

// callee follows the value into parameter i of the function attribute
// attr of n.
func (r *rankFinder) callee(n *ir.Node, attr string, i int) {
	name, err := n.AttrFunc(attr)
	if err != nil {
		r.block(n)
		return
	}
	g, err := r.m.Function(name)
	if err != nil || i < 0 || i >= len(g.Params) {
		r.block(n)
		return
	}
	r.walk(g, g.Params[i])
	if attr != "f" {
		return
	}
	// A result with the input's shape carries it to the call's output.
	for k, res := range g.Results {
		if r.same[res] && k < len(n.Outputs) && n.Func != nil {
			r.walk(n.Func, n.Outputs[k])
		}
	}
}

// reshapeTarget reads a Reshape's shape operand: a constant, or a Pack
// of scalar constants and (first) the input's own leading dimension,
// StridedSlice(Shape(input), [0], [1], [1]) with shrink_axis_mask 1.
func (r *rankFinder) reshapeTarget(t *ir.Value) (ir.Shape, bool) {
	if c := constValue(t); c != nil {
		if !c.DType.IsInteger() || len(c.Shape) != 1 {
			return nil, false
		}
		return ir.Shape(c.Ints()), true
	}
	p := t.Producer
	if p == nil || p.Op != "Pack" || len(p.Inputs) == 0 {
		return nil, false
	}
	var s ir.Shape
	for i, e := range p.Inputs {
		if v, ok := constInts(e); ok && len(v) == 1 && len(knownShape(e)) == 0 {
			s = append(s, v[0])
			continue
		}
		if i == 0 && r.isLeadingDim(e) {
			s = append(s, -1)
			continue
		}
		return nil, false
	}
	return s, true
}

// isLeadingDim reports whether e is StridedSlice(Shape(x), [0], [1], [1])
// with shrink_axis_mask 1 and x a value with the input's shape.
func (r *rankFinder) isLeadingDim(e *ir.Value) bool {
	if e == nil || e.Producer == nil || e.Producer.Op != "StridedSlice" || len(e.Producer.Inputs) != 4 {
		return false
	}
	ss := e.Producer
	if mask, _ := ss.AttrInt("shrink_axis_mask", 0); mask != 1 {
		return false
	}
	for i, want := range []int{0, 1, 1} {
		if v, ok := constInts(ss.Inputs[i+1]); !ok || len(v) != 1 || v[0] != want {
			return false
		}
	}
	sh := ss.Inputs[0].Producer
	return sh != nil && sh.Op == "Shape" && len(sh.Inputs) == 1 && r.same[sh.Inputs[0]]
}

// inferUnknownRanks gives every input of e with an unknown rank the shape
// its consumers fix (see the comment above sameShapeOps). It returns
// which inputs were taken as scalars because nothing fixed them (to be
// written without a rank), and notes for the fusion report; the error
// names an input nothing fixes that reaches a consumer needing a rank.
func inferUnknownRanks(m *tfmodel.Model, e *tfmodel.Entry) (unranked []bool, notes []string, err error) {
	f := e.Func
	var scalars []int
	finder := &rankFinder{m: m.Module, uses: map[*ir.Function]map[*ir.Value][]*ir.Node{}}
	search := func(p *ir.Value) {
		finder.input, finder.same = p, map[*ir.Value]bool{}
		finder.shape, finder.from, finder.conflict, finder.blocker, finder.visits = nil, "", "", "", 0
		finder.walk(f, p)
	}
	unknown := func(p *ir.Value) bool {
		return !p.Shape.RankKnown() && p.DType != ir.Resource && p.DType != ir.Variant
	}
	// Shapes fixed for one input may fix another's (a comparison of two
	// unranked inputs feeding an If): search until nothing changes.
	for progress := true; progress; {
		progress = false
		for i, p := range f.Params {
			if !unknown(p) {
				continue
			}
			search(p)
			name := e.InputNames[i]
			if finder.conflict != "" {
				return nil, nil, fmt.Errorf("%s: input %d %q has an unknown rank and its consumers disagree on its shape (%s); give the shape of every input, in order (%s), with --input_shapes (InputShapes)",
					m.Path, i, name, finder.conflict, strings.Join(e.InputNames, ", "))
			}
			if finder.shape != nil {
				p.Shape = finder.shape
				progress = true
				notes = append(notes, fmt.Sprintf("input %q has no shape in the model: converted at %s, the shape %s gives it (--input_shapes pins another)", name, finder.shape, finder.from))
			}
		}
	}
	for i, p := range f.Params {
		if !unknown(p) {
			continue
		}
		search(p)
		name := e.InputNames[i]
		if finder.blocker != "" {
			return nil, nil, fmt.Errorf("%s: input %d %q has an unknown rank (its declaration gives no shape) and nothing in the graph fixes it (%s reads it); give the shape of every input, in order (%s), with --input_shapes (InputShapes), e.g. --input_shapes %s",
				m.Path, i, name, finder.blocker, strings.Join(e.InputNames, ", "), exampleShapes(f.Params))
		}
		if unranked == nil {
			unranked = make([]bool, len(f.Params))
		}
		scalars = append(scalars, i)
		// Written without a rank only when every op it reaches, through
		// broadcasts too, is elementwise: then the model runs at any
		// shape the input is resized to, as the TensorFlow graph does.
		// An input broadcast into a MatMul's operand or an If's
		// condition (TF1 dropout's keep_prob) stays a scalar.
		finder.loose = true
		search(p)
		finder.loose = false
		if finder.blocker == "" && finder.shape == nil {
			unranked[i] = true
			notes = append(notes, fmt.Sprintf("input %q has no shape in the model and only elementwise ops read it: converted as a scalar and written without a rank (shape [], has_rank false), as TensorFlow's converter writes an unranked input; resize it to run at another shape, or pin one with --input_shapes", name))
			continue
		}
		what := finder.blocker
		if what == "" {
			what = finder.from
		}
		notes = append(notes, fmt.Sprintf("input %q has no shape in the model and only elementwise ops read it, broadcasting it: converted as a scalar, with a rank (it reaches %s through a broadcast; --input_shapes pins another shape)", name, what))
	}
	// The scalars are set last: an input taken as a scalar fixes nothing
	// for another.
	for _, i := range scalars {
		f.Params[i].Shape = ir.Shape{}
	}
	return unranked, notes, nil
}

// markUnranked writes the inputs unranked marks as tensors without a
// rank (has_rank false; their shape is [], the scalar they were converted
// at), as TensorFlow's converter writes an input of unknown rank.
func markUnranked(mt *schema.ModelT, unranked []bool) {
	if len(mt.Subgraphs) == 0 {
		return
	}
	sg := mt.Subgraphs[0]
	for i, u := range unranked {
		if u && i < len(sg.Inputs) {
			if ti := sg.Inputs[i]; ti >= 0 && int(ti) < len(sg.Tensors) && len(sg.Tensors[ti].Shape) == 0 {
				sg.Tensors[ti].HasRank = false
			}
		}
	}
}
