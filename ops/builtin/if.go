package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// If is the kernel of TFLite's IF operator: input 0 is a bool condition
// of one element; the other inputs are passed to the then subgraph when
// it is true, to the else subgraph otherwise, and the chosen subgraph's
// outputs are the operator's. As TFLite's if.cc, both branches are
// prepared at the inputs' shapes; when a branch has a dynamic output or
// the branches' output shapes differ, the outputs are dynamic tensors.
type If struct {
	then, els ops.Subgraph
	dynamic   bool
}

// NewIf returns an IF kernel for one node.
func NewIf() ops.Kernel { return &If{} }

// IfOptions is TFLite's IfOptions: the subgraph indices of the branches.
type IfOptions struct {
	ThenSubgraphIndex, ElseSubgraphIndex int
}

// SubgraphIndices lists the subgraphs the operator runs, for the loader
// to check they exist.
func (o *IfOptions) SubgraphIndices() []int {
	return []int{o.ThenSubgraphIndex, o.ElseSubgraphIndex}
}

func init() {
	register(ops.OpIf, NewIf, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsIfOptions, decodeIfOptions)
}

// decodeIfOptions decodes TFLite's IfOptions table.
func decodeIfOptions(t ops.OptionsTable) (any, error) {
	var o schema.IfOptions
	initTable(&o, t)
	return &IfOptions{ThenSubgraphIndex: int(o.ThenSubgraphIndex()), ElseSubgraphIndex: int(o.ElseSubgraphIndex())}, nil
}

// Prepare opens and allocates both branches and sizes the outputs.
func (k *If) Prepare(n *ops.Node) error {
	*k = If{}
	o, ok := n.Options.(*IfOptions)
	if !ok || o == nil {
		return fmt.Errorf("options: have %T, need *IfOptions", n.Options)
	}
	if len(n.Inputs) < 1 {
		return errors.New("has no inputs, needs the condition")
	}
	cond := n.Inputs[0]
	if cond == nil || cond.Type != ops.Bool {
		return errors.New("input 0 (condition) must be bool")
	}
	if cond.NumElements() != 1 {
		return fmt.Errorf("input 0 (condition): shape %v, need a single element", cond.Shape)
	}
	args := n.Inputs[1:]
	var err error
	if k.then, err = openSubgraph(n, o.ThenSubgraphIndex, "then"); err != nil {
		return err
	}
	if k.els, err = openSubgraph(n, o.ElseSubgraphIndex, "else"); err != nil {
		return err
	}
	for _, b := range []struct {
		sg   ops.Subgraph
		role string
	}{{k.then, "then"}, {k.els, "else"}} {
		if err := checkSubgraphIO(b.sg, b.role, len(args), len(n.Outputs)); err != nil {
			return err
		}
		for i, a := range args {
			if a == nil {
				return fmt.Errorf("input %d is omitted", i+1)
			}
			if err := checkSameType(b.sg.Input(i), a.Type, fmt.Sprintf("%s subgraph %d input %d", b.role, b.sg.Index(), i)); err != nil {
				return err
			}
			if err := b.sg.ResizeInput(i, a.Shape); err != nil {
				return fmt.Errorf("%s subgraph %d input %d: %w", b.role, b.sg.Index(), i, err)
			}
		}
		for j, out := range n.Outputs {
			if out == nil {
				return fmt.Errorf("output %d is omitted", j)
			}
			if err := checkSameType(b.sg.Output(j), out.Type, fmt.Sprintf("%s subgraph %d output %d", b.role, b.sg.Index(), j)); err != nil {
				return err
			}
		}
		if err := b.sg.Allocate(); err != nil {
			return err
		}
	}
	for j := range n.Outputs {
		t, e := k.then.Output(j), k.els.Output(j)
		if t.Kind == ops.DynamicTensor || e.Kind == ops.DynamicTensor || !ops.SameShape(t.Shape, e.Shape) {
			k.dynamic = true
		}
	}
	for j := range n.Outputs {
		if k.dynamic {
			if err := n.SetOutputDynamic(j); err != nil {
				return err
			}
		} else {
			n.Outputs[j].Shape = copyShape(k.then.Output(j).Shape)
		}
	}
	return nil
}

// Eval runs the branch the condition picks.
func (k *If) Eval(n *ops.Node) error {
	if k.then == nil || k.els == nil {
		return errors.New("IF: not prepared")
	}
	c, err := boolValue(n.Inputs[0], "input 0 (condition)")
	if err != nil {
		return err
	}
	sg, role := k.els, "else"
	if c {
		sg, role = k.then, "then"
	}
	freezeLists(n, n.Inputs[1:])
	if err := feedSubgraph(sg, n.Inputs[1:]); err != nil {
		return fmt.Errorf("%s: %w", role, err)
	}
	if err := sg.Invoke(); err != nil {
		return fmt.Errorf("%s: %w", role, err)
	}
	for j := range n.Outputs {
		if err := setOutputFrom(n, j, sg.Output(j), k.dynamic); err != nil {
			return fmt.Errorf("%s: %w", role, err)
		}
	}
	return nil
}
