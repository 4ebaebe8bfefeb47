package interpreter

import "github.com/tflrun/tflrun/ops"

// TensorList values (ops.TensorLists), kept by the root interpreter for
// every subgraph it runs, as its resource variables are. A list lives
// for one Invoke: the store is reset when the root's Invoke starts (its
// memory is kept, so warm runs allocate nothing) and dropped, with its
// charges, when the root allocates again (allocate forgets every charge
// but the interpreter's own).

// lists returns the root's store, made on first use.
func (it *Interpreter) lists() *ops.TensorLists {
	r := it.root()
	if r.tensorLists == nil {
		r.tensorLists = ops.NewTensorLists(r.budget)
	}
	return r.tensorLists
}

// TensorLists implements ops.ListSource.
func (h *host) TensorLists() *ops.TensorLists { return (*Interpreter)(h).lists() }

// Uses implements ops.ListSource: the operators of this interpreter's
// subgraph reading t, and t's count among the subgraph's outputs.
func (h *host) Uses(t *ops.Tensor) (readers, outputs int) {
	it := (*Interpreter)(h)
	sg := it.sg
	if t == nil || t.Index < 0 || t.Index >= len(sg.tensors) || &sg.tensors[t.Index] != t {
		return 0, 0
	}
	for k := range sg.nodes {
		for _, in := range sg.nodes[k].Inputs {
			if in == t {
				readers++
				break
			}
		}
	}
	for _, o := range sg.outputs {
		if o == t.Index {
			outputs++
		}
	}
	return readers, outputs
}
