package sparse

import (
	"bytes"
	"fmt"
)

// Compress is the inverse of Densify, for tests and model generators: it
// stores the dense row-major tensor (elem bytes per value) of the given
// shape with the given traversal order, block map, block sizes (one per
// block dimension) and level formats. A compressed level keeps exactly
// the indices whose subtree holds a non-zero value (all of its bytes not
// zero), as TensorFlow Lite's converter does; dense levels keep every
// index. It is written for small tensors (its cost is the tensor's size
// times the number of nodes).
func Compress(shape, traversal, blockMap, blockSizes []int, formats []Format, dense []byte, elem int) (*Params, []byte, error) {
	rank, total := len(shape), len(traversal)
	if len(formats) != total || len(blockMap) != total-rank || len(blockSizes) != len(blockMap) {
		return nil, nil, fmt.Errorf("sparsity: %d levels need as many formats (%d) and %d block map entries and sizes (%d, %d)",
			total, len(formats), total-rank, len(blockMap), len(blockSizes))
	}
	expanded := make([]int, total)
	copy(expanded, shape)
	for b, m := range blockMap {
		if m < 0 || m >= rank || blockSizes[b] <= 0 || shape[m]%blockSizes[b] != 0 {
			return nil, nil, fmt.Errorf("sparsity: block %d (size %d) does not divide dimension %d", b, blockSizes[b], m)
		}
		expanded[m] = shape[m] / blockSizes[b]
		expanded[rank+b] = blockSizes[b]
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	if len(dense) != n*elem {
		return nil, nil, fmt.Errorf("sparsity: %d bytes for %d values of %d bytes", len(dense), n, elem)
	}
	// levelCoord[e][lv]: the index of dense element e at traversal level
	// lv.
	levelCoord := make([][]int, n)
	coord := make([]int, rank)
	for e := 0; e < n; e++ {
		rem := e
		for d := rank - 1; d >= 0; d-- {
			coord[d] = rem % shape[d]
			rem /= shape[d]
		}
		exp := make([]int, total)
		copy(exp, coord)
		for b, m := range blockMap {
			exp[m] = coord[m] / blockSizes[b]
			exp[rank+b] = coord[m] % blockSizes[b]
		}
		lc := make([]int, total)
		for lv, d := range traversal {
			lc[lv] = exp[d]
		}
		levelCoord[e] = lc
	}
	zero := make([]byte, elem)
	nonZeroBelow := func(path []int) bool {
		for e := 0; e < n; e++ {
			if bytes.Equal(dense[e*elem:(e+1)*elem], zero) {
				continue
			}
			match := true
			for lv, x := range path {
				if levelCoord[e][lv] != x {
					match = false
					break
				}
			}
			if match {
				return true
			}
		}
		return false
	}
	p := &Params{TraversalOrder: append([]int(nil), traversal...), BlockMap: append([]int(nil), blockMap...), Levels: make([]Level, total)}
	nodes := [][]int{{}}
	for lv := 0; lv < total; lv++ {
		size := expanded[traversal[lv]]
		l := &p.Levels[lv]
		l.Format = formats[lv]
		// A compressed block level still records its block's size (the
		// verifier reads dense_size of every block level).
		l.DenseSize = size
		var next [][]int
		if l.Format == Dense {
			for _, path := range nodes {
				for i := 0; i < size; i++ {
					next = append(next, append(append([]int(nil), path...), i))
				}
			}
		} else {
			l.Segments = []int{0}
			for _, path := range nodes {
				for i := 0; i < size; i++ {
					child := append(append([]int(nil), path...), i)
					if nonZeroBelow(child) {
						l.Indices = append(l.Indices, i)
						next = append(next, child)
					}
				}
				l.Segments = append(l.Segments, len(l.Indices))
			}
		}
		nodes = next
	}
	// The leaves, in order, each name one dense element.
	var values []byte
	for _, path := range nodes {
		for e := 0; e < n; e++ {
			match := true
			for lv, x := range path {
				if levelCoord[e][lv] != x {
					match = false
					break
				}
			}
			if match {
				values = append(values, dense[e*elem:(e+1)*elem]...)
				break
			}
		}
	}
	return p, values, nil
}
