package interpreter

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Resource variables and CALL_ONCE status (ops.ResourceSource), kept by
// the root interpreter for every subgraph it runs, as TFLite's
// Interpreter owns the resources its Subgraphs share. They persist for
// the interpreter's lifetime; their memory is charged to the bound as
// part of the interpreter's own (baseBytes), so a new AllocateTensors
// does not forget it.
type resources struct {
	ids   map[[2]string]int32
	vars  []resourceVar
	inits map[int]bool
}

type resourceVar struct {
	t   ops.Tensor
	buf []byte // grow-only; t.Data is a prefix
	set bool
}

func (it *Interpreter) root() *Interpreter {
	r := it
	for r.parent != nil {
		r = r.parent
	}
	return r
}

func (it *Interpreter) res() *resources {
	r := it.root()
	if r.resources == nil {
		r.resources = &resources{ids: map[[2]string]int32{}, inits: map[int]bool{}}
	}
	return r.resources
}

// ResourceID implements ops.ResourceSource.
func (h *host) ResourceID(container, sharedName string) int32 {
	it := (*Interpreter)(h)
	r := it.res()
	key := [2]string{container, sharedName}
	if id, ok := r.ids[key]; ok {
		return id
	}
	id := int32(len(r.ids))
	r.ids[key] = id
	return id
}

// Variable implements ops.ResourceSource.
func (h *host) Variable(id int32) *ops.Tensor {
	it := (*Interpreter)(h)
	r := it.res()
	if id < 0 || int(id) >= len(r.vars) || !r.vars[id].set {
		return nil
	}
	return &r.vars[id].t
}

// AssignVariable implements ops.ResourceSource.
func (h *host) AssignVariable(id int32, value *ops.Tensor) error {
	it := (*Interpreter)(h)
	r := it.res()
	if id < 0 || int(id) >= len(r.ids) {
		return fmt.Errorf("resource id %d is not a variable of this interpreter (it has %d)", id, len(r.ids))
	}
	for len(r.vars) <= int(id) {
		r.vars = append(r.vars, resourceVar{})
	}
	v := &r.vars[id]
	n := value.Bytes()
	if len(value.Data) < n {
		return fmt.Errorf("the value %s has no data", value)
	}
	if n > cap(v.buf) {
		size, ok := alignUp(n)
		if !ok {
			return fmt.Errorf("the value %s is too large", value)
		}
		root := it.root()
		grow := int64(size - cap(v.buf))
		if err := root.budget.Reserve(grow, fmt.Sprintf("resource variable %d assigned %s", id, value)); err != nil {
			return err
		}
		root.baseBytes += grow
		v.buf = alignedBytes(size)
	}
	if !v.set {
		v.t.Name = fmt.Sprint("resource variable ", id)
	}
	v.t.Index, v.t.Type, v.t.Kind, v.t.Quant = -1, value.Type, ops.VariableTensor, value.Quant
	if !v.set || !ops.SameShape(v.t.Shape, value.Shape) {
		v.t.Shape = append([]int{}, value.Shape...)
	}
	v.t.Data = v.buf[:n:n]
	copy(v.t.Data, value.Data[:n])
	v.set = true
	return nil
}

// Initialized implements ops.ResourceSource.
func (h *host) Initialized(index int) bool { return (*Interpreter)(h).res().inits[index] }

// MarkInitialized implements ops.ResourceSource.
func (h *host) MarkInitialized(index int) { (*Interpreter)(h).res().inits[index] = true }
