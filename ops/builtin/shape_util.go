package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// constIntVector reads a constant int32 or int64 tensor of rank ≤ 1 (a
// list of sizes, indices or multiples) as int64s. want ≥ 0 requires that
// many elements. The shape kernels read such inputs at Prepare because
// tflrun sizes every output there.
func constIntVector(t *ops.Tensor, label string, want int) ([]int64, error) {
	if t.Type != ops.Int32 && t.Type != ops.Int64 {
		return nil, fmt.Errorf("%s: type %s, need int32 or int64", label, t.Type)
	}
	if t.Rank() > 1 {
		return nil, fmt.Errorf("%s: rank %d, need a vector", label, t.Rank())
	}
	n := t.NumElements()
	if want >= 0 && n != want {
		return nil, fmt.Errorf("%s: %d elements, need %d", label, n, want)
	}
	if t.Kind != ops.ConstTensor || len(t.Data) < n*t.Type.Size() {
		return nil, ops.NotConstant(label)
	}
	v := make([]int64, n)
	for i := range v {
		if t.Type == ops.Int32 {
			v[i] = int64(t.Int32s()[i])
		} else {
			v[i] = t.Int64s()[i]
		}
	}
	return v, nil
}

// repeatCopy fills the output of shape outShape from an input of shape
// inShape (same rank) where each output index i reads input index
// i mod inShape along every dimension: TILE, and BROADCAST_TO with the
// input's shape padded to the output's rank. eb is the element size;
// pos is an odometer of len(outShape).
func repeatCopy(in, out []byte, inShape, outShape, pos []int, eb int) {
	rank := len(outShape)
	total := 1
	for _, d := range outShape {
		total *= d
	}
	if total == 0 {
		return
	}
	if rank == 0 {
		copy(out[:eb], in[:eb])
		return
	}
	last := rank - 1
	inRow, outRow := inShape[last]*eb, outShape[last]*eb
	clear(pos)
	o := 0
	for {
		off, stride := 0, inShape[last]
		for d := last - 1; d >= 0; d-- {
			off += (pos[d] % inShape[d]) * stride
			stride *= inShape[d]
		}
		src := in[off*eb : off*eb+inRow]
		dst := out[o : o+outRow]
		for j := 0; j < outRow; j += inRow {
			copy(dst[j:], src)
		}
		o += outRow
		d := last - 1
		for ; d >= 0; d-- {
			pos[d]++
			if pos[d] < outShape[d] {
				break
			}
			pos[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
