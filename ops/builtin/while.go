package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// While is the kernel of TFLite's WHILE operator: with N inputs and N
// outputs, the loop state starts as the inputs; while the cond subgraph
// (N inputs, one bool output of one element) says true on the state, the
// body subgraph (N inputs, N outputs) maps the state to the next; the
// outputs are the final state. As TFLite's while.cc: cond and body must
// differ, types must agree along the loop, and when the body changes a
// shape (or holds a dynamic output) the outputs are dynamic tensors and
// both subgraphs are resized and allocated again whenever the state's
// shapes change. Loops are bounded by the interpreter's loop limit
// (interpreter.Options.MaxLoopIterations); recursion is refused.
type While struct {
	cond, body ops.Subgraph
	dynamic    bool
}

// NewWhile returns a WHILE kernel for one node.
func NewWhile() ops.Kernel { return &While{} }

// WhileOptions is TFLite's WhileOptions: the subgraph indices of the
// condition and the body.
type WhileOptions struct {
	CondSubgraphIndex, BodySubgraphIndex int
}

// SubgraphIndices lists the subgraphs the operator runs, for the loader
// to check they exist.
func (o *WhileOptions) SubgraphIndices() []int {
	return []int{o.CondSubgraphIndex, o.BodySubgraphIndex}
}

func init() {
	register(ops.OpWhile, NewWhile, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsWhileOptions, decodeWhileOptions)
}

// decodeWhileOptions decodes TFLite's WhileOptions table.
func decodeWhileOptions(t ops.OptionsTable) (any, error) {
	var o schema.WhileOptions
	initTable(&o, t)
	return &WhileOptions{CondSubgraphIndex: int(o.CondSubgraphIndex()), BodySubgraphIndex: int(o.BodySubgraphIndex())}, nil
}

// Prepare opens and allocates the two subgraphs at the inputs' shapes and
// sizes the outputs (or makes them dynamic).
func (k *While) Prepare(n *ops.Node) error {
	*k = While{}
	o, ok := n.Options.(*WhileOptions)
	if !ok || o == nil {
		return fmt.Errorf("options: have %T, need *WhileOptions", n.Options)
	}
	num := len(n.Inputs)
	if len(n.Outputs) != num {
		return fmt.Errorf("has %d inputs and %d outputs, needs as many outputs as inputs", num, len(n.Outputs))
	}
	if o.CondSubgraphIndex == o.BodySubgraphIndex {
		return fmt.Errorf("options: cond and body are the same subgraph %d", o.CondSubgraphIndex)
	}
	var err error
	if k.cond, err = openSubgraph(n, o.CondSubgraphIndex, "cond"); err != nil {
		return err
	}
	if k.body, err = openSubgraph(n, o.BodySubgraphIndex, "body"); err != nil {
		return err
	}
	if err := checkSubgraphIO(k.cond, "cond", num, 1); err != nil {
		return err
	}
	if err := checkSubgraphIO(k.body, "body", num, num); err != nil {
		return err
	}
	for i, in := range n.Inputs {
		if in == nil {
			return fmt.Errorf("input %d is omitted", i)
		}
		for _, c := range []struct {
			t     *ops.Tensor
			label string
		}{
			{in, fmt.Sprintf("input %d", i)},
			{n.Outputs[i], fmt.Sprintf("output %d", i)},
			{k.cond.Input(i), fmt.Sprintf("cond subgraph %d input %d", k.cond.Index(), i)},
			{k.body.Input(i), fmt.Sprintf("body subgraph %d input %d", k.body.Index(), i)},
			{k.body.Output(i), fmt.Sprintf("body subgraph %d output %d", k.body.Index(), i)},
		} {
			if err := checkSameType(c.t, in.Type, c.label); err != nil {
				return err
			}
		}
	}
	for _, sg := range []ops.Subgraph{k.cond, k.body} {
		for i, in := range n.Inputs {
			if err := sg.ResizeInput(i, in.Shape); err != nil {
				return fmt.Errorf("subgraph %d input %d: %w", sg.Index(), i, err)
			}
		}
		if err := sg.Allocate(); err != nil {
			return err
		}
	}
	c := k.cond.Output(0)
	if c == nil || c.Type != ops.Bool {
		return fmt.Errorf("cond subgraph %d: its output must be bool", k.cond.Index())
	}
	if c.Kind != ops.DynamicTensor && c.NumElements() != 1 {
		return fmt.Errorf("cond subgraph %d: output shape %v, need a single element", k.cond.Index(), c.Shape)
	}
	for i := range n.Inputs {
		bo := k.body.Output(i)
		if bo.Kind == ops.DynamicTensor || !ops.SameShape(bo.Shape, k.body.Input(i).Shape) {
			k.dynamic = true
		}
	}
	for i, in := range n.Inputs {
		if k.dynamic {
			if err := n.SetOutputDynamic(i); err != nil {
				return err
			}
		} else {
			n.Outputs[i].Shape = copyShape(in.Shape)
		}
	}
	return nil
}

// Eval runs the loop.
func (k *While) Eval(n *ops.Node) error {
	if k.cond == nil || k.body == nil {
		return errors.New("WHILE: not prepared")
	}
	for i, in := range n.Inputs {
		if err := setOutputFrom(n, i, in, k.dynamic); err != nil {
			return err
		}
	}
	freezeLists(n, n.Inputs)
	limit := int64(-1)
	if n.Subgraphs != nil {
		limit = n.Subgraphs.LoopLimit()
	}
	for iter := int64(0); ; iter++ {
		if err := feedSubgraph(k.cond, n.Outputs); err != nil {
			return fmt.Errorf("cond: %w", err)
		}
		if err := k.cond.Invoke(); err != nil {
			return fmt.Errorf("cond: %w", err)
		}
		more, err := boolValue(k.cond.Output(0), "the cond subgraph's output")
		if err != nil {
			return fmt.Errorf("cond subgraph %d: %w", k.cond.Index(), err)
		}
		if !more {
			return nil
		}
		if limit >= 0 && iter >= limit {
			return fmt.Errorf("the loop did not end after %d iterations (the bound set by interpreter.Options.MaxLoopIterations)", limit)
		}
		if err := feedSubgraph(k.body, n.Outputs); err != nil {
			return fmt.Errorf("body, iteration %d: %w", iter, err)
		}
		if err := k.body.Invoke(); err != nil {
			return fmt.Errorf("body, iteration %d: %w", iter, err)
		}
		for i := range n.Outputs {
			if err := setOutputFrom(n, i, k.body.Output(i), k.dynamic); err != nil {
				return fmt.Errorf("body, iteration %d: %w", iter, err)
			}
		}
	}
}
