// Package sparse expands TensorFlow Lite's sparse constant tensors into
// dense ones.
//
// A sparse tensor (schema.fbs SparsityParameters) stores only some of its
// values, as a tree: the dense dimensions, optionally split into blocks
// (block_map names the dimensions a block divides), are visited in
// traversal_order, and each level of the tree is either dense (every index
// present, dense_size of them) or compressed (CSR: array_segments gives,
// for every node of the previous level, the range of array_indices holding
// its present children). The values are the tree's leaves in traversal
// order. The semantics, and every check made here before a value is
// placed, are TensorFlow Lite's: the validation of its model verifier
// (tflite/core/tools/verifier.cc VerifyAndCountSparseElements) and the
// expansion of its FormatConverter::SparseToDense
// (tflite/kernels/internal/utils/sparsity_format_converter.cc), which its
// DENSIFY kernel and sparse FULLY_CONNECTED paths use.
package sparse

import (
	"errors"
	"fmt"
	"math"
)

// Format is the storage of one traversal level.
type Format uint8

// Level formats, numbered as schema.fbs DimensionType.
const (
	Dense     Format = 0
	SparseCSR Format = 1
)

// Level is one level of the traversal: for Dense, DenseSize (the size of
// the dimension it visits); for SparseCSR, Segments (one more than the
// number of nodes of the previous level, non-decreasing, starting
// anywhere ≥ 0) and Indices (the present indices, Segments' last value of
// them).
type Level struct {
	Format    Format
	DenseSize int
	Segments  []int
	Indices   []int
}

// Params is a tensor's sparsity: TraversalOrder lists the dimensions in
// the order the levels visit them (the tensor's rank first, as a
// permutation of 0..rank-1, then the block dimensions rank..rank+k-1);
// BlockMap gives, for each block dimension, the tensor dimension it
// divides; Levels has one entry per traversal position.
type Params struct {
	TraversalOrder []int
	BlockMap       []int
	Levels         []Level
}

// MaxLevels bounds the traversal depth (the tensor's rank plus its block
// dimensions).
const MaxLevels = 16

// MaxDenseBytes bounds the size of a densified tensor: a small sparse
// buffer may describe a huge dense shape, and the expansion must not take
// unbounded memory.
const MaxDenseBytes = 1 << 30

// plan is a validated Params with what the expansion needs.
type plan struct {
	p         *Params
	rank      int
	blockSize []int // per block dimension
	strides   []int // row-major strides of the dense shape
	count     int   // number of stored values
}

// check validates p against the dense shape as TensorFlow Lite's verifier
// does and returns the plan.
func check(shape []int, p *Params) (*plan, error) {
	rank, total := len(shape), len(p.TraversalOrder)
	if total > MaxLevels {
		return nil, fmt.Errorf("sparsity: %d traversal levels, at most %d are supported", total, MaxLevels)
	}
	if total < rank || len(p.Levels) != total {
		return nil, fmt.Errorf("sparsity: traversal_order has %d entries and dim_metadata %d; a rank-%d tensor needs as many of each, at least %d", total, len(p.Levels), rank, rank)
	}
	k := total - rank
	if len(p.BlockMap) != k {
		return nil, fmt.Errorf("sparsity: %d block dimensions in traversal_order but block_map has %d entries", k, len(p.BlockMap))
	}
	// The first rank entries are a permutation of the tensor's
	// dimensions, the rest one of the block dimensions.
	seen := make([]bool, total)
	for i, d := range p.TraversalOrder {
		lo, hi := 0, rank
		if i >= rank {
			lo, hi = rank, total
		}
		if d < lo || d >= hi || seen[d] {
			return nil, fmt.Errorf("sparsity: traversal_order %v is not a permutation of the dimensions followed by one of the block dimensions", p.TraversalOrder)
		}
		seen[d] = true
	}
	// expanded[d]: the size of expanded dimension d (a blocked tensor
	// dimension counts blocks, a block dimension its block's size).
	expanded := make([]int, total)
	copy(expanded, shape)
	pl := &plan{p: p, rank: rank, blockSize: make([]int, k)}
	for i := 0; i < k; i++ {
		if i > 0 && p.BlockMap[i] <= p.BlockMap[i-1] {
			return nil, fmt.Errorf("sparsity: block_map %v is not increasing", p.BlockMap)
		}
		if m := p.BlockMap[i]; m < 0 || m >= rank {
			return nil, fmt.Errorf("sparsity: block_map %v names dimension %d of a rank-%d tensor", p.BlockMap, m, rank)
		}
	}
	for lv := rank; lv < total; lv++ {
		b := p.TraversalOrder[lv] - rank
		bs := p.Levels[lv].DenseSize
		if bs <= 0 {
			return nil, fmt.Errorf("sparsity: block level %d has dense_size %d, a block size must be positive", lv, bs)
		}
		m := p.BlockMap[b]
		if shape[m]%bs != 0 {
			return nil, fmt.Errorf("sparsity: dimension %d of size %d is not a multiple of its block size %d", m, shape[m], bs)
		}
		pl.blockSize[b] = bs
		expanded[rank+b] = bs
		expanded[m] = shape[m] / bs
	}
	// Count the nodes level by level, checking each level's arrays.
	nodes := 1
	for lv := 0; lv < total; lv++ {
		l := &p.Levels[lv]
		size := expanded[p.TraversalOrder[lv]]
		switch l.Format {
		case Dense:
			if l.DenseSize != size {
				return nil, fmt.Errorf("sparsity: dense level %d has dense_size %d, its dimension has size %d", lv, l.DenseSize, size)
			}
			if size != 0 && nodes > math.MaxInt32/size {
				return nil, fmt.Errorf("sparsity: level %d has more than %d nodes", lv, math.MaxInt32)
			}
			nodes *= size
		case SparseCSR:
			if len(l.Segments) != nodes+1 {
				return nil, fmt.Errorf("sparsity: level %d has %d segments, its %d parent nodes need %d", lv, len(l.Segments), nodes, nodes+1)
			}
			for j, s := range l.Segments {
				if s < 0 || j > 0 && s < l.Segments[j-1] {
					return nil, fmt.Errorf("sparsity: level %d: segment %d (%d) is negative or below the one before it", lv, j, s)
				}
			}
			if last := l.Segments[nodes]; last != len(l.Indices) {
				return nil, fmt.Errorf("sparsity: level %d: the last segment is %d but there are %d indices", lv, last, len(l.Indices))
			}
			for j, x := range l.Indices {
				if x < 0 || x >= size {
					return nil, fmt.Errorf("sparsity: level %d: index %d (%d) is outside its dimension of size %d", lv, j, x, size)
				}
			}
			nodes = len(l.Indices)
		default:
			return nil, fmt.Errorf("sparsity: level %d has unknown format %d", lv, l.Format)
		}
	}
	pl.count = nodes
	pl.strides = make([]int, rank)
	s := 1
	for d := rank - 1; d >= 0; d-- {
		pl.strides[d] = s
		s *= shape[d]
	}
	return pl, nil
}

// Count validates p against the dense shape and returns the number of
// values the sparse buffer must hold.
func Count(shape []int, p *Params) (int, error) {
	pl, err := check(shape, p)
	if err != nil {
		return 0, err
	}
	return pl.count, nil
}

// Densify expands the sparse values (elem bytes each, exactly Count of
// them) into a new dense, row-major buffer of the tensor's shape; absent
// values are zero bytes (0 for every numeric type). Errors name what is
// inconsistent.
func Densify(shape []int, p *Params, values []byte, elem int) ([]byte, error) {
	pl, n, err := prepare(shape, p, values, elem)
	if err != nil {
		return nil, err
	}
	dst := make([]byte, n)
	return dst, pl.expand(dst, values, elem)
}

// DensifyInto is Densify writing into dst, which must hold exactly the
// dense tensor (DenseBytes); every byte of dst is written.
func DensifyInto(dst []byte, shape []int, p *Params, values []byte, elem int) error {
	pl, n, err := prepare(shape, p, values, elem)
	if err != nil {
		return err
	}
	if len(dst) != n {
		return fmt.Errorf("sparsity: destination has %d bytes, the dense shape %v needs %d", len(dst), shape, n)
	}
	clear(dst)
	return pl.expand(dst, values, elem)
}

// DenseBytes is the size in bytes of the dense tensor of shape with
// elements of elem bytes, or an error when it exceeds MaxDenseBytes.
func DenseBytes(shape []int, elem int) (int, error) {
	if elem <= 0 {
		return 0, errors.New("sparsity: element type has no fixed size")
	}
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("sparsity: dense shape %v has a negative dimension", shape)
		}
		if d != 0 && n > MaxDenseBytes/elem/d {
			return 0, fmt.Errorf("sparsity: dense shape %v exceeds %d bytes", shape, MaxDenseBytes)
		}
		n *= d
	}
	return n * elem, nil
}

// prepare validates p against shape and values and returns the plan and
// the dense size in bytes.
func prepare(shape []int, p *Params, values []byte, elem int) (*plan, int, error) {
	if elem <= 0 {
		return nil, 0, errors.New("sparsity: element type has no fixed size")
	}
	pl, err := check(shape, p)
	if err != nil {
		return nil, 0, err
	}
	if len(values) != pl.count*elem {
		return nil, 0, fmt.Errorf("sparsity: buffer has %d bytes, the sparsity describes %d values of %d bytes", len(values), pl.count, elem)
	}
	n, err := DenseBytes(shape, elem)
	if err != nil {
		return nil, 0, err
	}
	return pl, n, nil
}

// expand places the values of a validated plan into the zeroed dst.
func (pl *plan) expand(dst, values []byte, elem int) error {
	e := expander{plan: pl, dst: dst, src: values, elem: elem, idx: make([]int, len(pl.p.Levels)), orig: make([]int, pl.rank)}
	e.walk(0, 0)
	if e.next != pl.count {
		return fmt.Errorf("sparsity: placed %d of %d values", e.next, pl.count)
	}
	return nil
}

// expander walks the tree of a validated plan, placing each leaf.
type expander struct {
	*plan
	dst, src []byte
	elem     int
	idx      []int // index at each level on the current path
	orig     []int // scratch: the dense coordinate
	next     int   // next source value
}

// walk visits the children of node prev of level lv-1 (node numbers as
// TensorFlow Lite's converter counts them: a dense level numbers its
// nodes parent·size + i, a compressed one by their position in Indices).
// The depth is at most MaxLevels.
func (e *expander) walk(lv, prev int) {
	if lv == len(e.p.Levels) {
		e.place()
		return
	}
	l := &e.p.Levels[lv]
	if l.Format == Dense {
		for i := 0; i < l.DenseSize; i++ {
			e.idx[lv] = i
			e.walk(lv+1, prev*l.DenseSize+i)
		}
		return
	}
	for i := l.Segments[prev]; i < l.Segments[prev+1]; i++ {
		e.idx[lv] = l.Indices[i]
		e.walk(lv+1, i)
	}
}

// place writes the next source value at the dense coordinate of the
// current path: tensor dimensions take their level's index, then each
// block level refines the dimension its block divides.
func (e *expander) place() {
	for i := 0; i < e.rank; i++ {
		e.orig[e.p.TraversalOrder[i]] = e.idx[i]
	}
	for i := e.rank; i < len(e.p.Levels); i++ {
		b := e.p.TraversalOrder[i] - e.rank
		d := e.p.BlockMap[b]
		e.orig[d] = e.orig[d]*e.blockSize[b] + e.idx[i]
	}
	flat := 0
	for d, x := range e.orig {
		flat += x * e.strides[d]
	}
	if e.next >= e.count {
		return // cannot happen for a validated plan; never overrun
	}
	copy(e.dst[flat*e.elem:(flat+1)*e.elem], e.src[e.next*e.elem:])
	e.next++
}
