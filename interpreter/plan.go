package interpreter

import (
	"fmt"
	"math"
	"sort"
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

// planGreedy assigns offsets to bufs so that two buffers whose lifetimes
// overlap never share bytes, and returns the arena size. It is the greedy
// "largest first, lowest gap that fits" plan of TFLite Micro's
// GreedyMemoryPlanner: buffers are taken by decreasing size (ties: earlier
// first use, then request order) and each goes into the lowest
// arenaAlign-aligned gap between the already placed buffers that are live
// at the same time. Zero-size buffers get offset 0 and take no space.
func planGreedy(bufs []planBuffer) (int, error) {
	order := make([]int, 0, len(bufs))
	for i := range bufs {
		bufs[i].offset = 0
		if bufs[i].size > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := bufs[order[a]], bufs[order[b]]
		if x.size != y.size {
			return x.size > y.size
		}
		return x.first < y.first
	})
	var placed []int // indices into bufs, in placement order
	var live []int   // scratch: placed buffers overlapping the current one
	total := 0
	for _, i := range order {
		b := &bufs[i]
		size, ok := alignUp(b.size)
		if !ok {
			return 0, fmt.Errorf("buffer of %d bytes is too large", b.size)
		}
		live = live[:0]
		for _, j := range placed {
			p := bufs[j]
			if p.first <= b.last && b.first <= p.last {
				live = append(live, j)
			}
		}
		sort.Slice(live, func(x, y int) bool { return bufs[live[x]].offset < bufs[live[y]].offset })
		offset := 0
		for _, j := range live {
			p := bufs[j]
			if p.offset >= offset+size {
				break // the gap before p fits
			}
			end, _ := alignUp(p.offset + p.size)
			if end > offset {
				offset = end
			}
		}
		b.offset = offset
		// The arena is allocated with arenaAlign bytes of slack
		// (alignedBytes), which must fit an int too (32-bit platforms).
		if offset > math.MaxInt-arenaAlign-size {
			return 0, fmt.Errorf("arena size overflows")
		}
		if offset+size > total {
			total = offset + size
		}
		placed = append(placed, i)
	}
	return total, nil
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

	var bufs []planBuffer
	var owners []int // tensor index, or -(1+scratch slot) for scratch
	type scratchRef struct{ node, id int }
	var scratch []scratchRef
	for i := range sg.tensors {
		t := &sg.tensors[i]
		if t.Kind != ops.ArenaTensor || first[i] == unused {
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
	if it.maxBytes >= 0 && int64(total)+int64(it.preBytes) > it.maxBytes {
		return fmt.Errorf("the arena needs %d bytes besides the precomputed tensors (%d bytes), above the limit of %d (Options.MaxArenaBytes)", total, it.preBytes, it.maxBytes)
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
	if it.maxBytes >= 0 && int64(total)+int64(persTotal)+int64(it.preBytes) > it.maxBytes {
		return fmt.Errorf("variable tensors (%d bytes) and precomputed tensors (%d bytes) need %d bytes besides the %d-byte arena, above the limit of %d (Options.MaxArenaBytes)", persTotal, it.preBytes, persTotal+it.preBytes, total, it.maxBytes)
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
