package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// maxTransposeRank is the most dimensions TRANSPOSE handles (TFLite's
// kTransposeMaxDimensions).
const maxTransposeRank = 8

// Transpose is the kernel of TFLite's TRANSPOSE operator: output dimension
// i is input dimension perm[i], where input 1 (perm, int32, one entry per
// input dimension, negative counting from the end) is a permutation. It
// must be a constant tensor (tflrun sizes outputs at Prepare). Up to 8
// dimensions of any fixed-size element type. Matches TFLite's
// transpose.cc (which refuses repeated entries).
type Transpose struct {
	elem     int
	rank     int
	outShape []int
	stride   []int // input element stride of output dimension i
	pos      []int
	total    int
	// The permutation with size-1 dimensions dropped and runs of output
	// dimensions that stay adjacent and in order in the input merged
	// (NCHW→NHWC becomes one [C, H·W] → [H·W, C] matrix transpose per
	// batch): cshape[i] output extents, cstride[i] input element strides.
	cshape, cstride []int
	// Eval splits its units (transposeUnits) over threads (unitsFn);
	// pos holds each thread's odometer (rank ints per thread); in and
	// out are the tensors during Eval.
	units   int
	in, out *ops.Tensor
	unitsFn func(worker, lo, hi int)
}

// transposeBand is the number of output rows of a matrix transpose one
// unit of a threaded TRANSPOSE covers: a multiple of the byte kernel's
// 64-row tiles.
const transposeBand = 64

// NewTranspose returns a TRANSPOSE kernel for one node.
func NewTranspose() ops.Kernel { return &Transpose{} }

func init() {
	// The versions TFLite registers (8: bfloat16 or rank 7 and 8, 9:
	// float16, which the element-size kernel moves like any 2-byte type);
	// Prepare refuses the types this kernel lacks.
	register(ops.OpTranspose, NewTranspose, [2]int{1, 9})
}

// Prepare validates the permutation and sets the output shape.
func (k *Transpose) Prepare(n *ops.Node) error {
	*k = Transpose{}
	k.unitsFn = k.evalUnits
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	perm, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	rank := in.Rank()
	if rank > maxTransposeRank {
		return fmt.Errorf("input 0: rank %d, at most %d is supported", rank, maxTransposeRank)
	}
	if perm.Type != ops.Int32 {
		return fmt.Errorf("input 1 (perm): type %s, need int32", perm.Type)
	}
	if perm.Rank() != 1 || perm.Shape[0] != rank {
		return fmt.Errorf("input 1 (perm): shape %v, need [%d]", perm.Shape, rank)
	}
	if perm.Kind != ops.ConstTensor || len(perm.Data) < 4*rank {
		return ops.NotConstant("input 1 (perm)")
	}
	inStride := make([]int, rank)
	s := 1
	for d := rank - 1; d >= 0; d-- {
		inStride[d] = s
		s *= in.Shape[d]
	}
	seen := make([]bool, rank)
	k.rank, k.elem = rank, in.Type.Size()
	k.outShape = make([]int, rank)
	k.stride = make([]int, rank)
	k.pos = make([]int, rank*n.Threads())
	for i, p := range perm.Int32s()[:rank] {
		d := int(p)
		if d < 0 {
			d += rank
		}
		if d < 0 || d >= rank {
			return fmt.Errorf("input 1 (perm): entry %d is %d, outside [%d, %d)", i, p, -rank, rank)
		}
		if seen[d] {
			return fmt.Errorf("input 1 (perm): dimension %d appears twice", d)
		}
		seen[d] = true
		k.outShape[i] = in.Shape[d]
		k.stride[i] = inStride[d]
	}
	out.Shape = copyShape(k.outShape)
	k.total = in.NumElements()
	for i, d := range k.outShape {
		if d == 1 {
			continue
		}
		if c := len(k.cshape) - 1; c >= 0 && k.cstride[c] == k.stride[i]*d {
			k.cshape[c] *= d
			k.cstride[c] = k.stride[i]
			continue
		}
		k.cshape = append(k.cshape, d)
		k.cstride = append(k.cstride, k.stride[i])
	}
	k.units = k.transposeUnits()
	return nil
}

// layout returns how Eval walks the merged dimensions: outer of them by
// odometer, each position writing block output elements, and for a
// matrix transpose (mat) bands units of transposeBand rows per position.
func (k *Transpose) layout() (outer, block, bands int, mat bool) {
	n := len(k.cshape)
	if n == 0 {
		return 0, 1, 1, false
	}
	inner, innerStride := k.cshape[n-1], k.cstride[n-1]
	mat = n >= 2 && k.cstride[n-2] == 1 && innerStride == k.cshape[n-2]
	if !mat {
		return n - 1, inner, 1, false
	}
	rows := k.cshape[n-2]
	return n - 2, rows * inner, (rows + transposeBand - 1) / transposeBand, true
}

// transposeUnits is the number of units of work Eval splits: one per
// odometer position, times the row bands of a matrix transpose.
func (k *Transpose) transposeUnits() int {
	outer, _, bands, _ := k.layout()
	units := bands
	for _, d := range k.cshape[:outer] {
		units *= d
	}
	return units
}

// Eval gathers the input in output order.
func (k *Transpose) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("TRANSPOSE: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.total == 0 {
		return nil
	}
	k.in, k.out = in, out
	n.Parallel(k.units, k.total, k.unitsFn)
	k.in, k.out = nil, nil
	return nil
}

// evalUnits transposes the units [lo, hi) (transposeUnits) on worker's
// odometer.
func (k *Transpose) evalUnits(worker, lo, hi int) {
	in, out := k.in.Data, k.out.Data
	pos := k.pos[worker*k.rank : (worker+1)*k.rank]
	switch k.elem {
	case 1:
		transposeElems(k, in, out, pos, lo, hi)
	case 2:
		transposeElems(k, ops.View[uint16](in), ops.View[uint16](out), pos, lo, hi)
	case 4:
		transposeElems(k, ops.View[uint32](in), ops.View[uint32](out), pos, lo, hi)
	case 8:
		transposeElems(k, ops.View[uint64](in), ops.View[uint64](out), pos, lo, hi)
	default: // complex128
		transposeElems(k, ops.View[[2]uint64](in), ops.View[[2]uint64](out), pos, lo, hi)
	}
}

// transposeElems gathers the input in output order over the collapsed
// permutation: whole rows by copy when the innermost output dimension is
// contiguous in the input, tiled matrix transposes when the last two
// swap (the layout changes of ONNX-exported CNNs), and an element-wise
// gather otherwise. Each form produces the same bytes; only the order of
// the reads differs.
func transposeElems[T any](k *Transpose, in, out []T, pos []int, lo, hi int) {
	n := len(k.cshape)
	if n == 0 {
		out[0] = in[0]
		return
	}
	outer, block, bands, mat := k.layout()
	inner, innerStride := k.cshape[n-1], k.cstride[n-1]
	pos = pos[:outer]
	// The odometer position of the first unit.
	p := lo / bands
	for d := outer - 1; d >= 0; d-- {
		pos[d] = p % k.cshape[d]
		p /= k.cshape[d]
	}
	for u := lo; u < hi; {
		base := 0
		for d, p := range pos {
			base += p * k.cstride[d]
		}
		o := u / bands * block
		switch {
		case mat:
			// The bands of this position that are in [u, hi).
			b := u % bands
			e := min(bands, b+hi-u)
			rows := k.cshape[n-2]
			transposeTile(out[o:o+block], in[base:base+block], rows, inner, b*transposeBand, min(e*transposeBand, rows))
			u += e - b
			if e < bands {
				return
			}
		case innerStride == 1:
			copy(out[o:o+inner], in[base:base+inner])
			u++
		default:
			for j := 0; j < inner; j++ {
				out[o+j] = in[base+j*innerStride]
			}
			u++
		}
		for d := outer - 1; d >= 0; d-- {
			pos[d]++
			if pos[d] < k.cshape[d] {
				break
			}
			pos[d] = 0
		}
	}
}

// transposeTileSize is the edge of the square tiles transposeTile works
// in: 32×32 elements of up to 8 bytes read 32 rows of at most 256 bytes,
// which stay in L1 while the tile's output rows are written.
const transposeTileSize = 32

// transposeTile writes the rows [rowLo, rowHi) of the [cols, rows] matrix
// src transposed into dst ([rows, cols], dst[r·cols+c] = src[c·rows+r]),
// tile by tile so the strided side of every tile stays in cache. rowLo is
// a multiple of transposeBand.
func transposeTile[T any](dst, src []T, rows, cols, rowLo, rowHi int) {
	if d, ok := any(dst).([]byte); ok {
		transposeTileBytes(d, any(src).([]byte), rows, cols, rowLo, rowHi)
		return
	}
	const b = transposeTileSize
	for r0 := rowLo; r0 < rowHi; r0 += b {
		r1 := min(r0+b, rowHi)
		for c0 := 0; c0 < cols; c0 += b {
			c1 := min(c0+b, cols)
			for r := r0; r < r1; r++ {
				d := dst[r*cols+c0 : r*cols+c1]
				s := src[c0*rows+r:]
				for j := range d {
					d[j] = s[j*rows]
				}
			}
		}
	}
}

// transposeTileBytes is transposeTile for 1-byte elements (int8, uint8,
// bool): dst[r·cols+c] = src[c·rows+r] for the rows [rowLo, rowHi). Blocks of 8×8 bytes go
// through arch.TransposeBytes8 in tiles of 64×64 that stay in the L1 cache;
// the strips beyond the last whole block, and matrices with fewer than 8
// rows or columns (a channel count of 3 against an image plane), take
// element loops, with rows or columns of 3 and 4 unrolled.
func transposeTileBytes(dst, src []byte, rows, cols, rowLo, rowHi int) {
	dst, src = dst[:rows*cols], src[:rows*cols]
	if rows < 8 || cols < 8 {
		transposeThinBytes(dst, src, rows, cols, rowLo, rowHi)
		return
	}
	r8, c8 := rows&^7, cols&^7
	const tile = 64 // transposeBand is a multiple
	for rt := rowLo; rt < min(rowHi, r8); rt += tile {
		re := min(rt+tile, r8)
		for ct := 0; ct < c8; ct += tile {
			ce := min(ct+tile, c8)
			arch.TransposeBytes8(dst[rt*cols+ct:], cols, src[ct*rows+rt:], rows, re-rt, ce-ct)
		}
	}
	// The right strip (columns c8..cols of the first r8 rows) and the
	// bottom strip (rows r8..rows, every column).
	for r := rowLo; r < min(rowHi, r8); r++ {
		d := dst[r*cols : (r+1)*cols]
		for c := c8; c < cols; c++ {
			d[c] = src[c*rows+r]
		}
	}
	for r := max(r8, rowLo); r < rowHi; r++ {
		d := dst[r*cols : (r+1)*cols]
		for c := range d {
			d[c] = src[c*rows+r]
		}
	}
}

// transposeThinBytes is transposeTileBytes for fewer than 8 rows or
// columns. With fewer than 8 rows there is one band: rowLo 0, rowHi rows.
func transposeThinBytes(dst, src []byte, rows, cols, rowLo, rowHi int) {
	switch {
	case cols == 3: // interleave three planes
		p0, p1, p2 := src[:rows], src[rows:2*rows], src[2*rows:3*rows]
		for r := rowLo; r < rowHi; r++ {
			d := dst[3*r : 3*r+3 : 3*r+3]
			d[0], d[1], d[2] = p0[r], p1[r], p2[r]
		}
	case cols == 4:
		p0, p1, p2, p3 := src[:rows], src[rows:2*rows], src[2*rows:3*rows], src[3*rows:4*rows]
		for r := rowLo; r < rowHi; r++ {
			d := dst[4*r : 4*r+4 : 4*r+4]
			d[0], d[1], d[2], d[3] = p0[r], p1[r], p2[r], p3[r]
		}
	case rows == 3: // split into three planes
		d0, d1, d2 := dst[:cols], dst[cols:2*cols], dst[2*cols:3*cols]
		for c := range d0 {
			s := src[3*c : 3*c+3 : 3*c+3]
			d0[c], d1[c], d2[c] = s[0], s[1], s[2]
		}
	case rows == 4:
		d0, d1, d2, d3 := dst[:cols], dst[cols:2*cols], dst[2*cols:3*cols], dst[3*cols:4*cols]
		for c := range d0 {
			s := src[4*c : 4*c+4 : 4*c+4]
			d0[c], d1[c], d2[c], d3[c] = s[0], s[1], s[2], s[3]
		}
	case cols < 8: // few columns: gather each row's columns from the planes
		for r := rowLo; r < rowHi; r++ {
			d := dst[r*cols : (r+1)*cols]
			for c := range d {
				d[c] = src[c*rows+r]
			}
		}
	default: // few rows: scatter each source row over the rows
		for c := 0; c < cols; c++ {
			s := src[c*rows : (c+1)*rows]
			for r, v := range s {
				dst[r*cols+c] = v
			}
		}
	}
}
