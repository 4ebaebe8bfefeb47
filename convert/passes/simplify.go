// Package passes holds the converter's graph passes over the IR: shape
// inference with constant folding, identity and no-op pruning, dead-node
// elimination, function-call detection and specialisation, and the check
// that no stateful update is silently dropped.
package passes

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/convert/tfops"
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
	nodes := append([]*ir.Node(nil), f.Nodes...)
	for _, n := range nodes {
		if n.TFL != nil {
			continue
		}
		if err := tfops.Infer(n); err != nil {
			return false, err
		}
		if identityOps[n.Op] {
			for i, o := range n.Outputs {
				if i < len(n.Inputs) && n.Inputs[i] != nil {
					in := n.Inputs[i]
					if in.Shape == nil && o.Shape != nil {
						in.Shape = o.Shape.Clone()
					}
					f.ReplaceAllUses(o, in)
					changed = true
				}
			}
			continue
		}
		if n.Op == "Const" || len(n.Outputs) == 0 {
			continue
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
				continue // past MaxFoldedBytes: the op stays and is lowered instead
			}
			if err := f.Budget.Reserve(int64(est), func() string { return "folding its outputs" }); err != nil {
				return false, n.Wrap(err)
			}
			folded, err := tfops.Fold(n)
			if err != nil {
				return false, err
			}
			if folded == nil {
				continue
			}
			vals = folded
		}
		for i, o := range n.Outputs {
			// Whether o has users is the same now as at the start of the
			// round: only the processing of n replaces o, and a value
			// replaced by o earlier in the round was an identity of o.
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
			f.ReplaceAllUses(o, c)
			changed = true
		}
	}
	return changed, nil
}
