package interpreter

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Dynamic tensors (TFLite's kTfLiteDynamic). A tensor whose shape cannot
// be computed at AllocateTensors is an ops.DynamicTensor: the output of a
// kernel that marked it with Node.SetOutputDynamic (its shape depends on
// the run-time values of an input), and every output of an operator that
// reads a dynamic tensor ("deferred" operators). Static tensors keep the
// arena plan. A dynamic tensor has a grow-only buffer of its own, charged
// to the memory bound when it grows. A deferred operator is prepared at
// Invoke, right before its Eval, whenever the shapes of its inputs differ
// from those of its last Prepare, so once shapes are stable Invoke
// allocates nothing. TFLite instead stops preparing at the first dynamic
// tensor and prepares and plans the rest of the graph at Invoke; both
// re-run a consumer's Prepare exactly when its input shapes change.

// dynBuf is the storage of one dynamic tensor.
type dynBuf struct {
	buf   []byte // aligned, grow-only; the tensor's Data is a prefix
	shape []int  // the tensor's Shape, reused while the rank allows
}

// deferState is the Invoke-time preparation state of a deferred node.
type deferState struct {
	prepared bool
	shapes   []int    // rank and dims of every input at the last Prepare
	charge   int64    // memory charged by the last Prepare (kernel, scratch)
	scratch  [][]byte // grow-only scratch buffers
	values   []byte   // bytes of the value inputs at the last Prepare (valueDeps)
	kinds    []ops.TensorKind
}

// maxValueBytes bounds the inputs whose values a value-deferred node's
// Prepare may read as constants: shape vectors, axes, paddings, k.
const maxValueBytes = 256

// valueInput reports whether input t of a value-deferred node is shown to
// its Prepare as a constant: a small integer tensor computed at Invoke.
func valueInput(t *ops.Tensor) bool {
	if t == nil || (t.Kind != ops.ArenaTensor && t.Kind != ops.DynamicTensor) {
		return false
	}
	switch t.Type {
	case ops.Int32, ops.Int64, ops.Int16:
		return t.Bytes() <= maxValueBytes && len(t.Data) >= t.Bytes()
	}
	return false
}

// sameValues reports whether the value inputs of nd hold the bytes
// recorded in ds (allocation-free).
func sameValues(nd *node, ds *deferState) bool {
	p := 0
	for _, in := range nd.Inputs {
		if !valueInput(in) {
			continue
		}
		b := in.Data[:in.Bytes()]
		if p+len(b) > len(ds.values) || string(ds.values[p:p+len(b)]) != string(b) {
			return false
		}
		p += len(b)
	}
	return p == len(ds.values)
}

// host is an Interpreter as its kernels see it: it implements
// ops.OutputResizer, ops.SubgraphSource and ops.ResourceSource, which are
// for kernels only and so are not methods of Interpreter itself.
type host Interpreter

// ResizeOutput implements ops.OutputResizer for the interpreter's
// kernels: it sets dynamic tensor t to shape, growing its buffer (charged
// to Options.MaxArenaBytes) when it is too small.
func (h *host) ResizeOutput(t *ops.Tensor, shape []int) error {
	it := (*Interpreter)(h)
	if t.Index < 0 || t.Index >= len(it.dyn) || &it.sg.tensors[t.Index] != t {
		return fmt.Errorf("%s is not a tensor of this interpreter", t)
	}
	elems, err := ops.ShapeElements(shape, t.Type.Size())
	if err != nil {
		return fmt.Errorf("%s: shape %v: %w", t, shape, err)
	}
	d := &it.dyn[t.Index]
	bytes := t.Type.BytesFor(elems)
	if bytes > cap(d.buf) {
		size, ok := alignUp(bytes)
		if !ok {
			return fmt.Errorf("%s: shape %v is too large", t, shape)
		}
		grow := int64(size - cap(d.buf))
		if err := it.budget.Reserve(grow, fmt.Sprintf("dynamic %s resized to %v", t, shape)); err != nil {
			return err
		}
		it.dynBytes += grow
		d.buf = alignedBytes(size)
	}
	if d.shape == nil {
		d.shape = make([]int, 0, max(len(shape), 4)) // non-nil even for a scalar
	}
	d.shape = append(d.shape[:0], shape...)
	t.Shape = d.shape
	t.Data = d.buf[:bytes:bytes]
	return nil
}

// DynamicBytes is the memory in bytes of the buffers of dynamic tensors
// (ops.DynamicTensor) and of the scratch of operators prepared at Invoke,
// as grown by the invokes since the last AllocateTensors; it counts
// against Options.MaxArenaBytes.
func (it *Interpreter) DynamicBytes() int64 { return it.dynBytes }

// sameInputShapes reports whether nd's inputs have the shapes recorded in
// ds (allocation-free).
func sameInputShapes(nd *node, ds *deferState) bool {
	p := 0
	for _, in := range nd.Inputs {
		if in == nil {
			if p >= len(ds.shapes) || ds.shapes[p] != -1 {
				return false
			}
			p++
			continue
		}
		if p+1+len(in.Shape) > len(ds.shapes) || ds.shapes[p] != len(in.Shape) {
			return false
		}
		p++
		for _, d := range in.Shape {
			if ds.shapes[p] != d {
				return false
			}
			p++
		}
	}
	return p == len(ds.shapes)
}

func recordInputShapes(nd *node, ds *deferState) {
	ds.shapes = ds.shapes[:0]
	for _, in := range nd.Inputs {
		if in == nil {
			ds.shapes = append(ds.shapes, -1)
			continue
		}
		ds.shapes = append(ds.shapes, len(in.Shape))
		ds.shapes = append(ds.shapes, in.Shape...)
	}
}

// prepareDeferred (re)prepares the deferred node k at Invoke when its
// input shapes changed: the kernel's previous charges are forgotten, its
// Prepare runs with the inputs' current shapes and values, its scratch
// gets grow-only buffers, and its outputs are sized (those the kernel
// marked dynamic are sized by its Eval).
func (it *Interpreter) prepareDeferred(k int) error {
	nd := &it.sg.nodes[k]
	ds := &it.deferred[k]
	if ds.prepared && sameInputShapes(nd, ds) && (!nd.valueDeps || sameValues(nd, ds)) {
		return nil
	}
	for i, in := range nd.Inputs {
		if in != nil && in.Kind == ops.DynamicTensor && in.Shape == nil {
			return fmt.Errorf("input %d (%s) has no shape: the operator that computes it did not run", i, in)
		}
	}
	ds.prepared = false
	// The kernel drops what its previous Prepare made; so does the
	// budget. (Output and scratch buffers are kept: they only grow.)
	it.budget.SetUsed(it.budget.Used() - ds.charge)
	it.kernelBytes -= ds.charge
	ds.charge = 0
	before := it.budget.Used()
	nd.ResetScratch()
	for _, out := range nd.Outputs {
		if out != nil {
			out.Kind = ops.ArenaTensor
			out.Shape = nil
			out.Data = nil
		}
	}
	if nd.valueDeps {
		// The values are known now: show them to Prepare as constants,
		// and remember them to prepare again when they change.
		ds.values = ds.values[:0]
		ds.kinds = ds.kinds[:0]
		for _, in := range nd.Inputs {
			if in == nil {
				ds.kinds = append(ds.kinds, 0)
				continue
			}
			ds.kinds = append(ds.kinds, in.Kind)
			if valueInput(in) {
				ds.values = append(ds.values, in.Data[:in.Bytes()]...)
				in.Kind = ops.ConstTensor
			}
		}
	}
	err := nd.kernel.Prepare(&nd.Node)
	if nd.valueDeps {
		for i, in := range nd.Inputs {
			if in != nil {
				in.Kind = ds.kinds[i]
			}
		}
	}
	for _, out := range nd.Outputs {
		if out != nil {
			if out.Kind == ops.ArenaTensor && out.Shape == nil && err == nil {
				err = fmt.Errorf("kernel did not set the shape of output %s", out)
			}
			out.Kind = ops.DynamicTensor
		}
	}
	ds.charge = it.budget.Used() - before
	it.kernelBytes += ds.charge
	if err != nil {
		var nc *ops.NotConstantError
		if !nd.valueDeps && errors.As(err, &nc) {
			// Deferred for a dynamic input, and it needs input values
			// too: prepare it again with them.
			nd.valueDeps = true
			return it.prepareDeferred(k)
		}
		return err
	}
	for j, out := range nd.Outputs {
		if out == nil || out.Shape == nil {
			continue
		}
		shape := out.Shape
		if err := (*host)(it).ResizeOutput(out, shape); err != nil {
			return fmt.Errorf("output %d: %w", j, err)
		}
	}
	sizes := nd.ScratchSizes()
	for len(ds.scratch) < len(sizes) {
		ds.scratch = append(ds.scratch, nil)
	}
	nd.Scratch = nd.Scratch[:0]
	for j, size := range sizes {
		if size > cap(ds.scratch[j]) {
			a, ok := alignUp(size)
			if !ok {
				return fmt.Errorf("scratch buffer %d of %d bytes is too large", j, size)
			}
			grow := int64(a - cap(ds.scratch[j]))
			if err := it.budget.Reserve(grow, "scratch of an operator prepared at Invoke"); err != nil {
				return err
			}
			it.dynBytes += grow
			ds.scratch[j] = alignedBytes(a)
		}
		nd.Scratch = append(nd.Scratch, ds.scratch[j][:size:size])
	}
	nd.empty = emptyNode(&nd.Node)
	recordInputShapes(nd, ds)
	ds.prepared = true
	return nil
}
