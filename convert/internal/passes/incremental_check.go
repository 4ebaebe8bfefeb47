//go:build convertcheck

package passes

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// check verifies, in builds tagged convertcheck, that the function the
// incremental simplifier left is at the fixed point of a full round: a
// copy of it in the same order is neither reordered by TopoSort nor
// changed by a round of simplification.
func (e *Incremental) check() {
	if len(e.f.Nodes) > 2000 {
		return // a full round after every step would make big graphs quadratic
	}
	var nodes []*ir.Node
	for el := e.head; el != nil; el = el.next {
		nodes = append(nodes, el.n)
	}
	tmp := *e.f
	tmp.Nodes = nodes
	g := tmp.Clone()
	if err := g.TopoSort(); err != nil {
		panic(fmt.Sprintf("passes: incremental simplification left %s unsortable: %v", e.f.Where(), err))
	}
	for i, n := range g.Nodes {
		if n.Name != nodes[i].Name {
			panic(fmt.Sprintf("passes: incremental simplification left %s out of order: node %d is %s, TopoSort puts %s there", e.f.Where(), i, nodes[i], n))
		}
	}
	var before []ValueState
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			before = append(before, stateOf(o))
		}
	}
	changed, err := simplifyOnce(g)
	if err != nil {
		panic(fmt.Sprintf("passes: a full round after incremental simplification of %s fails: %v", e.f.Where(), err))
	}
	if changed || g.RemoveUnused() > 0 {
		panic(fmt.Sprintf("passes: incremental simplification left %s short of the fixed point", e.f.Where()))
	}
	i := 0
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if !before[i].same(o) {
				panic(fmt.Sprintf("passes: incremental simplification left %s with %s not inferred (%s, a full round says %s)", e.f.Where(), o.Name, before[i].shape, o.Shape))
			}
			i++
		}
	}
}
