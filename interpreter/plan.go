package interpreter

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// arenaAlign is the alignment (bytes) of every buffer placed in the arena:
// a cache line, and the widest vector load (AVX-512) the kernels use.
const arenaAlign = 64

// planBuffer is one request to the memory planner: size bytes needed from
// operator first to operator last inclusive (-1 means "before the first
// operator", len(ops) "after the last").
type planBuffer struct {
	size        int
	first, last int
	offset      int // set by planGreedy
}

// alignUp rounds n up to a multiple of arenaAlign, reporting overflow.
func alignUp(n int) (int, bool) {
	if n > math.MaxInt-arenaAlign {
		return 0, false
	}
	return (n + arenaAlign - 1) &^ (arenaAlign - 1), true
}

// plan computes tensor lifetimes, places arena tensors and scratch with
// planGreedy, allocates the arena and the persistent storage (variable
// tensors, then precomputed tensors, never shared), and binds every
// tensor's Data.
func (it *Interpreter) plan() error {
	sg := it.sg
	nOps := len(sg.nodes)
	const unused = -2
	first := make([]int, len(sg.tensors))
	last := make([]int, len(sg.tensors))
	for i := range first {
		first[i], last[i] = unused, unused
	}
	use := func(t *ops.Tensor, at int) {
		if t == nil || t.Kind != ops.ArenaTensor {
			return
		}
		if first[t.Index] == unused || at < first[t.Index] {
			first[t.Index] = at
		}
		if at > last[t.Index] {
			last[t.Index] = at
		}
	}
	// Graph inputs live for the whole invoke so users may re-run or read
	// them back; graph outputs until the end.
	for _, i := range sg.inputs {
		use(&sg.tensors[i], -1)
		use(&sg.tensors[i], nOps)
	}
	for k := range sg.nodes {
		nd := &sg.nodes[k]
		if nd.padFolded {
			continue // never runs; its output has no reader (fuse_pad.go)
		}
		for _, t := range nd.Inputs {
			use(t, k)
		}
		for _, t := range nd.Outputs {
			use(t, k)
		}
		for _, t := range nd.Intermediates {
			use(t, k)
		}
	}
	for _, i := range sg.outputs {
		use(&sg.tensors[i], nOps)
	}

	alias := it.inPlaceAliases(first, last)

	var bufs []planBuffer
	var owners []int // tensor index, or -(1+scratch slot) for scratch
	type scratchRef struct{ node, id int }
	var scratch []scratchRef
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind != ops.ArenaTensor || first[i] == unused || alias[i] >= 0 {
			continue
		}
		bufs = append(bufs, planBuffer{size: t.Bytes(), first: first[i], last: last[i]})
		owners = append(owners, i)
	}
	for k := range sg.nodes {
		for id, size := range sg.nodes[k].ScratchSizes() {
			bufs = append(bufs, planBuffer{size: size, first: k, last: k})
			owners = append(owners, -1-len(scratch))
			scratch = append(scratch, scratchRef{k, id})
		}
	}
	total, err := planGreedy(bufs)
	if err != nil {
		return fmt.Errorf("planning the arena: %w", err)
	}
	if err := it.budget.Reserve(int64(total), "the arena's activations and scratch"); err != nil {
		return err
	}
	if cap(it.arena) < total {
		it.arena = alignedBytes(total)
	}
	it.arena = it.arena[:total]
	clear(it.arena)
	it.arenaBytes = total
	for k := range sg.nodes {
		nd := &sg.nodes[k]
		nd.Scratch = make([][]byte, len(nd.ScratchSizes()))
	}
	for j, b := range bufs {
		var data []byte
		if b.size > 0 {
			data = it.arena[b.offset : b.offset+b.size : b.offset+b.size]
		}
		if o := owners[j]; o >= 0 {
			sg.tensors[o].Data = data
		} else {
			ref := scratch[-1-o]
			sg.nodes[ref.node].Scratch[ref.id] = data
		}
	}
	for i, r := range alias {
		if r >= 0 {
			t := &sg.tensors[i]
			n := t.Bytes()
			t.Data = sg.tensors[r].Data[:n:n]
		}
	}

	// Variable tensors: one persistent block, never shared (precomputed
	// tensors got their storage at their operator's Prepare).
	var persTotal int
	offsets := make([]int, len(sg.tensors))
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind != ops.VariableTensor {
			continue
		}
		if _, err := ops.ShapeElements(t.Shape, t.Type.Size()); err != nil {
			return fmt.Errorf("variable %s: %w", t, err)
		}
		size, ok := alignUp(t.Bytes())
		if !ok || persTotal > math.MaxInt-arenaAlign-size {
			return fmt.Errorf("variable %s is too large", t)
		}
		offsets[i] = persTotal
		persTotal += size
	}
	if err := it.budget.Reserve(int64(persTotal), "variable tensors"); err != nil {
		return err
	}
	if cap(it.persistent) < persTotal {
		it.persistent = alignedBytes(persTotal)
	}
	it.persistent = it.persistent[:persTotal]
	it.varBytes = persTotal
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind == ops.VariableTensor {
			n := t.Bytes()
			t.Data = it.persistent[offsets[i] : offsets[i]+n : offsets[i]+n]
		}
	}
	return nil
}

// alignedBytes returns a zeroed byte slice of length n whose first byte is
// arenaAlign-aligned.
func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	raw := make([]byte, n+arenaAlign)
	pad := int((arenaAlign - uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%arenaAlign) % arenaAlign)
	return raw[pad : pad+n : pad+n]
}

// inPlaceAliases picks the RESHAPE, SQUEEZE and EXPAND_DIMS operators
// (and folded activations, fuse_act.go) whose output can share its
// input's bytes instead of a copy of them, as
// TensorFlow Lite's arena planner does for operators it marks in-place
// (kTfLiteInplaceOpInput0Shared): the input is an arena tensor that the
// operator is the last to read (so nothing else sees it change, and no
// one writes it again), neither is a graph input, the output has that
// one writer, and both hold the same bytes (the operators change only the
// shape). alias[t] is then the tensor whose buffer t uses (the first of
// a chain of such operators), -1 for a tensor with a buffer of its own;
// the shared buffer lives until the last use of any tensor of the chain
// (last is extended). The operators' Eval sees the same memory on both
// sides and copies nothing (copyEval). first and last are plan's tensor
// lifetimes, in operator indices.
func (it *Interpreter) inPlaceAliases(first, last []int) []int {
	sg := it.sg
	alias := make([]int, len(sg.tensors))
	for i := range alias {
		alias[i] = -1
	}
	graphIn := make([]bool, len(sg.tensors))
	for _, i := range sg.inputs {
		graphIn[i] = true
	}
	writers := make([]int, len(sg.tensors))
	for k := range sg.nodes {
		for _, t := range sg.nodes[k].Outputs {
			if t != nil {
				writers[t.Index]++
			}
		}
	}
	ownLast := slices.Clone(last) // before chains extend their roots'
	for k := range sg.nodes {
		nd := &sg.nodes[k]
		switch nd.Op {
		case ops.OpReshape, ops.OpSqueeze, ops.OpExpandDims:
		default:
			if _, folded := nd.kernel.(foldedActKernel); !folded {
				continue
			}
		}
		if nd.deferred || nd.dynOut || nd.once || len(nd.Inputs) == 0 || len(nd.Outputs) != 1 {
			continue
		}
		in, out := nd.Inputs[0], nd.Outputs[0]
		if in == nil || out == nil || in == out || in.Kind != ops.ArenaTensor || out.Kind != ops.ArenaTensor ||
			graphIn[in.Index] || graphIn[out.Index] || writers[out.Index] != 1 ||
			ownLast[in.Index] != k || first[out.Index] != k || in.Bytes() != out.Bytes() || in.Bytes() == 0 {
			continue
		}
		// A second input (RESHAPE's shape, EXPAND_DIMS's axis) must not
		// be the same tensor either.
		shared := false
		for _, t := range nd.Inputs[1:] {
			shared = shared || t == in || t == out
		}
		if shared {
			continue
		}
		root := in.Index
		if alias[root] >= 0 {
			root = alias[root]
		}
		alias[out.Index] = root
		last[root] = max(last[root], last[out.Index])
	}
	return alias
}
