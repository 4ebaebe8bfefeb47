package builtin

import (
	"errors"
	"fmt"

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
}

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
	k.pos = make([]int, rank)
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
	return nil
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
	switch k.elem {
	case 1:
		transposeElems(k, in.Data, out.Data)
	case 2:
		transposeElems(k, ops.View[uint16](in.Data), ops.View[uint16](out.Data))
	case 4:
		transposeElems(k, ops.View[uint32](in.Data), ops.View[uint32](out.Data))
	case 8:
		transposeElems(k, ops.View[uint64](in.Data), ops.View[uint64](out.Data))
	default: // complex128
		transposeElems(k, ops.View[[2]uint64](in.Data), ops.View[[2]uint64](out.Data))
	}
	return nil
}

// transposeElems gathers the input in output order over the collapsed
// permutation: whole rows by copy when the innermost output dimension is
// contiguous in the input, tiled matrix transposes when the last two
// swap (the layout changes of ONNX-exported CNNs), and an element-wise
// gather otherwise. Each form produces the same bytes; only the order of
// the reads differs.
func transposeElems[T any](k *Transpose, in, out []T) {
	n := len(k.cshape)
	if n == 0 {
		out[0] = in[0]
		return
	}
	last := n - 1
	inner, innerStride := k.cshape[last], k.cstride[last]
	outer := last // dimensions the odometer walks
	mat := n >= 2 && k.cstride[n-2] == 1 && innerStride == k.cshape[n-2]
	if mat {
		outer = n - 2
	}
	pos := k.pos[:outer]
	clear(pos)
	o := 0
	for {
		base := 0
		for d, p := range pos {
			base += p * k.cstride[d]
		}
		switch {
		case innerStride == 1:
			copy(out[o:o+inner], in[base:base+inner])
			o += inner
		case mat:
			rows := k.cshape[n-2]
			transposeTile(out[o:o+rows*inner], in[base:base+rows*inner], rows, inner)
			o += rows * inner
		default:
			for j := 0; j < inner; j++ {
				out[o] = in[base+j*innerStride]
				o++
			}
		}
		d := outer - 1
		for ; d >= 0; d-- {
			pos[d]++
			if pos[d] < k.cshape[d] {
				break
			}
			pos[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// transposeTileSize is the edge of the square tiles transposeTile works
// in: 32×32 elements of up to 8 bytes read 32 rows of at most 256 bytes,
// which stay in L1 while the tile's output rows are written.
const transposeTileSize = 32

// transposeTile writes the [cols, rows] matrix src transposed into dst
// ([rows, cols], dst[r·cols+c] = src[c·rows+r]), tile by tile so the
// strided side of every tile stays in cache.
func transposeTile[T any](dst, src []T, rows, cols int) {
	const b = transposeTileSize
	for r0 := 0; r0 < rows; r0 += b {
		r1 := min(r0+b, rows)
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
