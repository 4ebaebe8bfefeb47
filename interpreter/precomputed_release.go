package interpreter

import (
	"slices"

	"github.com/tflrun/tflrun/ops"
)

// Precomputed weights that are packed: a model with float16 or sparse
// weights (MediaPipe's detectors) has a DEQUANTIZE (after a DENSIFY) in
// front of every filter, whose float32 output AllocateTensors computes
// once (precompute). CONV_2D then packs that filter into a copy of its
// own and never reads the precomputed tensor again, so keeping it would
// hold every filter twice, and the DENSIFY output a third time. A
// releaser frees a precomputed tensor as soon as the last operator that
// reads it is prepared, when each of its readers is a precomputing node
// (whose one Eval has run) or a kernel that lists it among its
// ops.PackingKernel.PackedInputs. The freed buffer goes to a free list
// that later precomputed tensors of the same AllocateTensors reuse, so the
// peak resident size holds one layer's weights in flight, not all of
// them, without waiting for the garbage collector.

// releaser tracks, during one AllocateTensors, which precomputed tensors
// are still needed.
type releaser struct {
	it *Interpreter
	// last is the index of the last node that reads tensor t (-1: none).
	last []int
	// keep marks tensors that must stay: subgraph inputs and outputs,
	// and tensors some prepared reader reads at Eval.
	keep []bool
}

func (it *Interpreter) newReleaser(isInput []bool) *releaser {
	sg := it.sg
	r := &releaser{it: it, last: make([]int, len(sg.tensors)), keep: make([]bool, len(sg.tensors))}
	for i := range r.last {
		r.last[i] = -1
	}
	for i := range sg.nodes {
		for _, list := range [][]*ops.Tensor{sg.nodes[i].Inputs, sg.nodes[i].Intermediates} {
			for _, t := range list {
				if t != nil {
					r.last[t.Index] = i
				}
			}
		}
	}
	copy(r.keep, isInput)
	for _, o := range sg.outputs {
		r.keep[o] = true
	}
	return r
}

// prepared is called after node i (nd) was prepared successfully: it
// notes which precomputed inputs nd still reads at Eval and frees those
// whose last reader nd is and that no reader needs.
func (r *releaser) prepared(nd *node, i int) {
	var packed []int
	if pk, ok := nd.kernel.(ops.PackingKernel); ok && !nd.once {
		packed = pk.PackedInputs()
	}
	for _, t := range nd.Intermediates {
		if t != nil {
			r.keep[t.Index] = true
		}
	}
	for j, t := range nd.Inputs {
		if t != nil && t.Kind == ops.PrecomputedTensor && !nd.once && !slices.Contains(packed, j) {
			r.keep[t.Index] = true
		}
	}
	for _, t := range nd.Inputs {
		if t != nil && t.Kind == ops.PrecomputedTensor && r.last[t.Index] == i && !r.keep[t.Index] {
			r.it.releasePrecomputed(t)
		}
	}
}

// releasePrecomputed frees the storage of precomputed tensor t: its Data
// becomes nil and its buffer goes to the free list.
func (it *Interpreter) releasePrecomputed(t *ops.Tensor) {
	buf, ok := it.preBufs[t.Index]
	if !ok {
		return
	}
	delete(it.preBufs, t.Index)
	t.Data = nil
	it.preKept -= len(buf)
	it.preFree = append(it.preFree, buf)
}

// freeBuffer returns the index in the free list of the smallest buffer
// of size to 2·size bytes, or -1 (a small bias does not take a filter's
// buffer, which a later filter can use).
func (it *Interpreter) freeBuffer(size int) int {
	best := -1
	for i, b := range it.preFree {
		if len(b) >= size && len(b) <= 2*size && (best < 0 || len(b) < len(it.preFree[best])) {
			best = i
		}
	}
	return best
}

// precomputedBuffer returns a zeroed buffer of size bytes (a multiple of
// the arena alignment) for precomputed tensor t: a freed one when one is
// large enough (its bytes are already counted against the memory bound),
// else a new one (counted by the caller).
func (it *Interpreter) precomputedBuffer(t *ops.Tensor, size int) []byte {
	var buf []byte
	if i := it.freeBuffer(size); i >= 0 {
		buf = it.preFree[i]
		it.preFree = slices.Delete(it.preFree, i, i+1)
		clear(buf)
	} else {
		buf = alignedBytes(size)
	}
	if it.preBufs == nil {
		it.preBufs = make(map[int][]byte)
	}
	it.preBufs[t.Index] = buf
	it.preKept += len(buf)
	return buf
}
