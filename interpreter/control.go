package interpreter

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Control flow: WHILE and IF kernels run other subgraphs of the model
// through ops.SubgraphSource. Each runner is a child Interpreter of its
// own (tensors, arena, kernels), as TFLite's Subgraph objects are, made
// at the operator's Prepare: its memory counts against the root
// interpreter's bound through a sub-budget, so it is forgotten with the
// rest when the parent allocates again.

// Subgraph implements ops.SubgraphSource: a child interpreter running
// subgraph index. Indices out of range, and a subgraph already running
// above this one (a body that calls its own subgraph, directly or not),
// are refused.
func (h *host) Subgraph(index int) (ops.Subgraph, error) {
	it := (*Interpreter)(h)
	if index < 0 || index >= len(it.model.Subgraphs) {
		return nil, fmt.Errorf("subgraph %d out of range (the model has %d)", index, len(it.model.Subgraphs))
	}
	for p := it; p != nil; p = p.parent {
		if p.sg.index == index {
			return nil, fmt.Errorf("subgraph %d calls itself: recursion is not supported (TFLite refuses it too)", index)
		}
	}
	info := &it.model.Subgraphs[index]
	budget := it.budget.Sub()
	if err := budget.Reserve(subgraphBytes(info), fmt.Sprintf("the tensor and operator lists of subgraph %d", index)); err != nil {
		return nil, err
	}
	c := &Interpreter{
		model: it.model, resolver: it.resolver, maxBytes: it.maxBytes,
		budget: budget, baseBytes: budget.Used(), cur: -1,
		loopLimit: it.loopLimit, parent: it,
	}
	c.sg = newSubgraph(index, info)
	for k := range c.sg.nodes {
		c.sg.nodes[k].Memory = c.budget
	}
	return child{c}, nil
}

// LoopLimit implements ops.SubgraphSource (Options.MaxLoopIterations;
// negative: none).
func (h *host) LoopLimit() int64 { return h.loopLimit }

// child is a child interpreter as an ops.Subgraph. Its methods run
// inside the parent's AllocateTensors or Invoke, which already hold the
// run lock and recover panics.
type child struct{ it *Interpreter }

func (c child) Index() int               { return c.it.sg.index }
func (c child) InputCount() int          { return c.it.InputCount() }
func (c child) OutputCount() int         { return c.it.OutputCount() }
func (c child) Input(i int) *ops.Tensor  { return c.it.Input(i) }
func (c child) Output(i int) *ops.Tensor { return c.it.Output(i) }
func (c child) Allocated() bool          { return c.it.allocated }
func (c child) ResizeInput(i int, s []int) error {
	return c.it.resizeInput(i, s)
}

func (c child) Allocate() error {
	c.it.allocated = false
	if err := c.it.allocate(); err != nil {
		return fmt.Errorf("subgraph %d: %w", c.it.sg.index, err)
	}
	return nil
}

func (c child) Invoke() error {
	if !c.it.allocated {
		return fmt.Errorf("subgraph %d: %w", c.it.sg.index, ErrNotAllocated)
	}
	if err := c.it.invoke(); err != nil {
		return fmt.Errorf("subgraph %d: %w", c.it.sg.index, err)
	}
	return nil
}
