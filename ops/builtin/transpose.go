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

func transposeElems[T any](k *Transpose, in, out []T) {
	if k.rank == 0 {
		out[0] = in[0]
		return
	}
	clear(k.pos)
	last := k.rank - 1
	inner, innerStride := k.outShape[last], k.stride[last]
	o := 0
	for {
		base := 0
		for d := 0; d < last; d++ {
			base += k.pos[d] * k.stride[d]
		}
		for j := 0; j < inner; j++ {
			out[o] = in[base+j*innerStride]
			o++
		}
		d := last - 1
		for ; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.outShape[d] {
				break
			}
			k.pos[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
