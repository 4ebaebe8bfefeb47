// Package passes holds the converter's graph passes over the IR: shape
// inference with constant folding, identity and no-op pruning, dead-node
// elimination, function-call detection and specialisation, and the check
// that no stateful update is silently dropped.
package passes

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tfops"
	"github.com/tflrun/tflrun/convert/ir"
)

// identityOps forward their inputs unchanged at inference time.
var identityOps = map[string]bool{
	"Identity": true, "IdentityN": true, "StopGradient": true, "Snapshot": true,
	"PreventGradient": true, "CheckNumerics": true, "EnsureShape": true,
	"PlaceholderWithDefault": true,
}

// maxRounds bounds the fixpoint iteration of Simplify.
const maxRounds = 64

// Simplify runs shape inference, constant folding and pruning to a fixed
// point on f's TensorFlow nodes (TFLite nodes are left alone):
//
//   - every node's output types and shapes are inferred (tfops.Infer);
//   - identities (Identity, IdentityN, StopGradient, ...) are bypassed
//     and NoOps dropped, since control edges do not matter at inference;
//   - a node whose outputs are known constants (all inputs constant and
//     the op foldable, or the value follows from static shapes, such as
//     Shape, or from a resolved variable, such as ReadVariableOp) is
//     replaced by Const nodes;
//   - nodes no result depends on are removed.
//
// Errors name the node, op and function (a cycle, inconsistent shapes, a
// malformed attribute).
func Simplify(f *ir.Function) error {
	defer f.TrackUses()()
	for round := 0; round < maxRounds; round++ {
		changed, err := simplifyOnce(f)
		if err != nil {
			return err
		}
		if f.RemoveUnused() > 0 {
			changed = true
		}
		if !changed {
			return nil
		}
	}
	return fmt.Errorf("%s: simplification did not settle after %d rounds", f.Where(), maxRounds)
}

func simplifyOnce(f *ir.Function) (bool, error) {
	if err := f.TopoSort(); err != nil {
		return false, err
	}
	changed := false
	f.Budget.AddWork(len(f.Nodes))
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		c, err := simplifyNode(f, n, nil)
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	return changed, nil
}

// observer hears what simplifyNode changes, so that the incremental
// simplifier (Incremental) knows which nodes to visit again; a nil
// observer hears nothing.
type observer interface {
	// inferred: n's outputs had the states before before inference.
	inferred(n *ir.Node, before []ValueState)
	// hinted: an identity gave v the shape of its output.
	hinted(v *ir.Value)
	// replaced: the input slots uses held old and now hold new.
	replaced(old, new *ir.Value, uses []ir.UseRef)
}

// ValueState is what users of a value see of it: its type, shape,
// constant value and variable (what simplification reads of an input).
type ValueState struct {
	dtype    ir.DType
	shape    ir.Shape
	konst    *ir.Tensor
	variable *ir.Variable
}

func stateOf(v *ir.Value) ValueState {
	return ValueState{v.DType, v.Shape.Clone(), v.Const, v.Variable}
}

func (s ValueState) same(v *ir.Value) bool {
	return s.dtype == v.DType && s.shape.Equal(v.Shape) && s.konst == v.Const && s.variable == v.Variable
}

// simplifyNode is one visit of n in a simplification round: shape
// inference, then bypassing an identity or folding n's outputs. It
// reports whether it replaced anything (an identity always counts).
func simplifyNode(f *ir.Function, n *ir.Node, obs observer) (bool, error) {
	if n.TFL != nil {
		return false, nil
	}
	var before []ValueState
	if obs != nil {
		before = make([]ValueState, len(n.Outputs))
		for i, o := range n.Outputs {
			before[i] = stateOf(o)
		}
	}
	if err := tfops.Infer(n); err != nil {
		return false, err
	}
	if obs != nil {
		obs.inferred(n, before)
	}
	replace := func(old, new *ir.Value) {
		uses := f.ReplaceUses(old, new)
		if obs != nil {
			obs.replaced(old, new, uses)
		}
	}
	changed := false
	if identityOps[n.Op] {
		for i, o := range n.Outputs {
			if i < len(n.Inputs) && n.Inputs[i] != nil {
				in := n.Inputs[i]
				if in.Shape == nil && o.Shape != nil {
					in.Shape = o.Shape.Clone()
					if obs != nil {
						obs.hinted(in)
					}
				}
				replace(o, in)
				changed = true
			}
		}
		return changed, nil
	}
	if n.Op == "Const" || len(n.Outputs) == 0 {
		return false, nil
	}
	vals := make([]*ir.Tensor, len(n.Outputs))
	all := true
	for i, o := range n.Outputs {
		vals[i] = o.Const
		if o.Const == nil {
			all = false
		}
	}
	if !all {
		est := 0
		for _, o := range n.Outputs {
			if k, ok := o.Shape.NumElements(); ok {
				est += k * max(o.DType.Size(), 1)
			}
		}
		if !f.Budget.Fold(int64(est)) {
			if allConst(n.Inputs) {
				f.Budget.FoldRefused(int64(est), n.String)
			}
			return false, nil // past MaxFoldedBytes: the op stays and is lowered instead
		}
		if err := f.Budget.Reserve(int64(est), func() string { return "folding its outputs" }); err != nil {
			return false, n.Wrap(err)
		}
		folded, err := tfops.Fold(n)
		if err != nil {
			return false, err
		}
		if folded == nil {
			return false, nil
		}
		vals = folded
	}
	for i, o := range n.Outputs {
		// Whether o has users is the same now as at the start of the
		// round: only the visit of n replaces o, and a value replaced by
		// o earlier in the round was an identity of o.
		if vals[i] == nil || (!f.HasUses(o) && !f.IsResult(o)) {
			continue
		}
		if o.Shape != nil && !o.Shape.Equal(vals[i].Shape) {
			if _, ok := ir.Merge(o.Shape, vals[i].Shape); !ok {
				return false, n.Errorf("folded output %d has shape %s, inference said %s", i, vals[i].Shape, o.Shape)
			}
		}
		f.Budget.Folded(int64(len(vals[i].Data) + 16*len(vals[i].Strings)))
		c := f.NewConst(o.Name, vals[i])
		if err := f.Budget.Err(); err != nil {
			return false, err
		}
		replace(o, c)
		changed = true
	}
	return changed, nil
}

// allConst reports whether every input is a known constant.
func allConst(in []*ir.Value) bool {
	for _, v := range in {
		if v == nil || v.Const == nil {
			return false
		}
	}
	return true
}
