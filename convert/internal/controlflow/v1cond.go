package controlflow

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// lowerV1Conds lowers TF1 conditionals (tf.cond before control flow v2:
// Switch nodes routing each value into a branch, a Merge taking whichever
// branch ran) left outside any loop frame, as selectIf lowers a
// functional If: both branches run, and each Merge becomes SelectV2(pred,
// true-branch value, false-branch value). A Merge input belongs to the
// branch of the Switch outputs it is computed from (output 1 is the true
// branch, 0 the false one); an input computed from no Switch (a constant
// branch, which TensorFlow ties to its branch by a control input tflrun
// does not keep), from both branches or from Switches of different
// predicates, a branch with a side effect, or a Merge whose value_index
// output is read, is an error naming the Merge.
func lowerV1Conds(f *ir.Function) error {
	merges := 0
	for _, n := range f.Nodes {
		if n.TFL == nil && n.Op == "Merge" {
			merges++
		}
	}
	if merges == 0 {
		return nil
	}
	uses := f.Uses()
	stop := f.TrackUses()
	defer stop()
	done := map[*ir.Node]bool{}
	for progress := true; progress; {
		progress = false
		for _, n := range append([]*ir.Node(nil), f.Nodes...) {
			if n.TFL != nil || n.Op != "Merge" || done[n] {
				continue
			}
			ok, err := lowerMerge(f, n, uses)
			if err != nil {
				return err
			}
			if ok {
				done[n] = true
				progress = true
			}
		}
	}
	for n := range done {
		f.RemoveNodes(map[*ir.Node]bool{n: true})
	}
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if n.TFL != nil {
			continue
		}
		switch n.Op {
		case "Merge":
			return n.Errorf("TF1 conditional: this Merge's branches are computed from Merges that could not be lowered")
		case "Switch":
			if len(n.Inputs) < 2 || n.Inputs[0] == nil {
				return n.Errorf("TF1 Switch without its data input")
			}
			for _, o := range n.Outputs {
				f.ReplaceAllUses(o, n.Inputs[0])
			}
			f.RemoveNodes(map[*ir.Node]bool{n: true})
		}
	}
	return nil
}

// branchOf is the branch a value is computed in: the Switch predicate
// and the port (1 true, 0 false).
type branchOf struct {
	pred *ir.Value
	port int
}

// lowerMerge lowers one Merge; false means it waits for an inner Merge.
func lowerMerge(f *ir.Function, n *ir.Node, uses map[*ir.Value][]*ir.Node) (bool, error) {
	if len(n.Inputs) != 2 || n.Inputs[0] == nil || n.Inputs[1] == nil {
		return false, n.Errorf("TF1 conditional: Merge has %d inputs; tflrun lowers a Merge of two branches", len(n.Inputs))
	}
	if len(n.Outputs) > 1 && len(uses[n.Outputs[1]]) > 0 {
		return false, n.Errorf("TF1 conditional: the Merge's value_index output is read; tflrun lowers a Merge only to its value")
	}
	var br [2]branchOf
	for i, in := range n.Inputs {
		b, wait, err := branchOfValue(in)
		if err != nil {
			return false, n.Errorf("TF1 conditional: input %d %q %v", i, in.Name, err)
		}
		if wait {
			return false, nil
		}
		br[i] = b
	}
	if br[0].pred != br[1].pred || br[0].port == br[1].port {
		return false, n.Errorf("TF1 conditional: inputs %q and %q are not the two branches of one predicate", n.Inputs[0].Name, n.Inputs[1].Name)
	}
	t, e := n.Inputs[0], n.Inputs[1]
	if br[0].port == 0 {
		t, e = e, t
	}
	sel := f.NewNode(n.Name+"/select", "SelectV2", []*ir.Value{br[0].pred, t, e}, 1)
	sel.InlinedFrom = n.InlinedFrom
	dt := t.DType
	if dt == ir.Invalid {
		dt = e.DType
	}
	sel.SetAttrType("T", dt)
	sel.Outputs[0].DType = dt
	if s, ok := ir.Merge(t.Shape, e.Shape); ok {
		sel.Outputs[0].Shape = s
	}
	sel.Outputs[0].Name = n.Outputs[0].Name
	f.ReplaceAllUses(n.Outputs[0], sel.Outputs[0])
	return true, nil
}

// branchOfValue walks back from v to the Switch outputs it is computed
// from. wait reports an unlowered Merge on the way.
func branchOfValue(v *ir.Value) (b branchOf, wait bool, err error) {
	seen := map[*ir.Node]bool{}
	found := false
	stack := []*ir.Value{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		p := x.Producer
		if p == nil || seen[p] {
			continue
		}
		seen[p] = true
		if p.TFL == nil && p.Op == "Switch" {
			if len(p.Inputs) < 2 || p.Inputs[1] == nil {
				return b, false, fmt.Errorf("is computed from a Switch without a predicate")
			}
			port := 0
			if len(p.Outputs) > 1 && p.Outputs[1] == x {
				port = 1
			}
			here := branchOf{pred: stripIdentity(p.Inputs[1]), port: port}
			if found && here != b {
				return b, false, fmt.Errorf("is computed from more than one branch (Switch %q)", p.Name)
			}
			b, found = here, true
			continue
		}
		if p.TFL == nil && p.Op == "Merge" {
			return b, true, nil
		}
		if op := sideEffectNode(p); op != "" {
			return b, false, fmt.Errorf("is computed by %s, a side effect a branch run unconditionally must not have", op)
		}
		for _, in := range p.Inputs {
			if in != nil {
				stack = append(stack, in)
			}
		}
	}
	if !found {
		return b, false, fmt.Errorf("is computed from no Switch (a constant branch, tied to its branch only by a control input); tflrun cannot tell which branch it belongs to")
	}
	return b, false, nil
}

// stripIdentity follows Identity nodes back to the value they forward
// (tf.cond's pred_id is an Identity of the predicate).
func stripIdentity(v *ir.Value) *ir.Value {
	for i := 0; i < 64 && v.Producer != nil && v.Producer.TFL == nil && v.Producer.Op == "Identity" && len(v.Producer.Inputs) > 0 && v.Producer.Inputs[0] != nil; i++ {
		v = v.Producer.Inputs[0]
	}
	return v
}
