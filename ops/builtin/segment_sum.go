package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// SegmentSum is the kernel of TFLite's SEGMENT_SUM operator: input 0
// (data, rank ≥ 1) is split along its first dimension into segments by
// input 1 (segment_ids, int32 of shape [data.shape[0]], starting at 0 and
// rising by 0 or 1 from one entry to the next), and output row j is the
// sum of the data rows of segment j; the output has shape [last id + 1] +
// data.shape[1:]. As TFLite's reference SegmentSum, the rows add in order
// from 0 in the data type (int32 wraps).
//
// TFLite sizes the output from the values of segment_ids: tflrun needs
// them constant (else the interpreter prepares it at Invoke). Types: float32
// and int32. Version 1, as TFLite's register.cc.
type SegmentSum struct {
	typ        ops.DataType
	ids        []int32
	rowElems   int // elements per data row
	outElems   int
	rows, segs int
}

// NewSegmentSum returns a SEGMENT_SUM kernel for one node.
func NewSegmentSum() ops.Kernel { return &SegmentSum{} }

func init() {
	register(ops.OpSegmentSum, NewSegmentSum, [2]int{1, 1})
}

// Prepare validates the node, checks the segment ids and sets the output
// shape.
func (k *SegmentSum) Prepare(n *ops.Node) error {
	*k = SegmentSum{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	data, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	st, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(data, "input 0 (data)", ops.Int32, ops.Float32); err != nil {
		return err
	}
	if out.Type != data.Type {
		return fmt.Errorf("output 0: type %s differs from data type %s", out.Type, data.Type)
	}
	if _, err := numElementsChecked(data, "input 0 (data)"); err != nil {
		return err
	}
	ids, err := constInts(st, 1, "segment_ids", false)
	if err != nil {
		return err
	}
	if data.Rank() < 1 {
		return errors.New("input 0 (data): a scalar has no rows to segment")
	}
	if st.Rank() != 1 || st.Shape[0] != data.Shape[0] {
		return fmt.Errorf("input 1 (segment_ids): shape %v, need [%d] (one id per data row)", st.Shape, data.Shape[0])
	}
	prev := int64(-1)
	for i, id := range ids {
		if i == 0 && id != 0 || i > 0 && id-prev != 0 && id-prev != 1 {
			return fmt.Errorf("input 1 (segment_ids): entry %d is %d after %d; ids must start at 0 and rise by 0 or 1", i, id, prev)
		}
		prev = id
	}
	if prev+1 > math.MaxInt32 {
		return errors.New("input 1 (segment_ids): the segment count overflows")
	}
	shape := copyShape(data.Shape)
	shape[0] = int(prev + 1)
	if k.outElems, err = ops.ShapeElements(shape, data.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.typ = data.Type
	k.rows, k.segs = data.Shape[0], shape[0]
	k.rowElems = 1
	for _, d := range data.Shape[1:] {
		k.rowElems *= d
	}
	k.ids = make([]int32, len(ids))
	for i, id := range ids {
		k.ids[i] = int32(id)
	}
	return nil
}

// Eval sums the rows of every segment.
func (k *SegmentSum) Eval(n *ops.Node) error {
	data, out := n.Input(0), n.Output(0)
	if data == nil || out == nil {
		return errors.New("SEGMENT_SUM: input or output missing at Eval")
	}
	if err := checkData(data, out); err != nil {
		return err
	}
	if k.typ == ops.Float32 {
		segmentSum(k, data.Float32s(), out.Float32s())
	} else {
		segmentSum(k, data.Int32s(), out.Int32s())
	}
	return nil
}

func segmentSum[T float32 | int32](k *SegmentSum, in, out []T) {
	out = out[:k.outElems]
	clear(out)
	w := k.rowElems
	for i, id := range k.ids {
		dst := out[int(id)*w : int(id+1)*w]
		src := in[i*w : (i+1)*w]
		for e := range dst {
			dst[e] += src[e]
		}
	}
}
