package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// UnsortedSegment is the kernel of TFLite's UNSORTED_SEGMENT_SUM, _PROD,
// _MAX and _MIN operators (unsorted_segment.cc, one kernel there too):
// input 1 (segment_ids, int32) has the shape of a prefix of input 0's
// (data) and maps each data slice after that prefix to an output segment;
// input 2 (num_segments, an int32 scalar or [1]) is the number of
// segments. The output has shape [num_segments] + data.shape[rank(ids):]
// and segment j is the fold of the slices whose id is j, starting from the
// operator's neutral element: 0 for SUM, 1 for PROD, the type's lowest
// value for MAX (−FLT_MAX for float32, not −Inf) and its highest for MIN.
// Slices fold in data order; negative ids are skipped; an id at or beyond
// num_segments fails Eval. As TFLite, integers wrap, and MAX and MIN are
// std::max and std::min (a NaN input is kept only when it comes first,
// and never replaces a number already there).
//
// TFLite sizes the output from the value of num_segments: tflrun needs it
// constant (else the interpreter prepares it at Invoke); segment_ids may vary.
// Types: float32 and int32. Each operator has version 1, as TFLite's
// register.cc.
type UnsortedSegment struct {
	op       *unsortedSegmentOp
	typ      ops.DataType
	ids      int // number of segment ids
	sliceLen int // elements per data slice
	segs     int
	outElems int
}

// unsortedSegmentOp is what one operator of the family adds.
type unsortedSegmentOp struct {
	name string
	// f32 and i32 initialise out to the neutral element and fold the
	// slices in.
	f32 func(k *UnsortedSegment, ids []int32, in, out []float32)
	i32 func(k *UnsortedSegment, ids []int32, in, out []int32)
}

// Prepare validates the node and sets the output shape from input 2.
func (k *UnsortedSegment) Prepare(n *ops.Node) error {
	op := k.op
	*k = UnsortedSegment{op: op}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	data, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	ids, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	ns, err := n.RequireInput(2)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(data, "input 0 (data)", ops.Int32, ops.Float32); err != nil {
		return fmt.Errorf("%v for %s", err, op.name)
	}
	if out.Type != data.Type {
		return fmt.Errorf("output 0: type %s differs from data type %s", out.Type, data.Type)
	}
	if err := requireType(ids, "input 1 (segment_ids)", ops.Int32); err != nil {
		return err
	}
	if err := requireType(ns, "input 2 (num_segments)", ops.Int32); err != nil {
		return err
	}
	if _, err := numElementsChecked(data, "input 0 (data)"); err != nil {
		return err
	}
	if ids.Rank() > data.Rank() {
		return fmt.Errorf("input 1 (segment_ids): rank %d exceeds the data rank %d", ids.Rank(), data.Rank())
	}
	for i, d := range ids.Shape {
		if d != data.Shape[i] {
			return fmt.Errorf("input 1 (segment_ids): shape %v is not a prefix of the data shape %v", ids.Shape, data.Shape)
		}
	}
	if !(ns.Rank() == 0 || ns.Rank() == 1 && ns.Shape[0] == 1) {
		return fmt.Errorf("input 2 (num_segments): shape %v, need a scalar or [1]", ns.Shape)
	}
	nv, err := constInts(ns, 2, "num_segments", false)
	if err != nil {
		return err
	}
	if nv[0] < 0 {
		return fmt.Errorf("input 2 (num_segments): %d is negative", nv[0])
	}
	shape := append([]int{int(nv[0])}, data.Shape[ids.Rank():]...)
	if k.outElems, err = ops.ShapeElements(shape, data.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	if ids.IsConstant() {
		for i, id := range ids.Int32s()[:ids.NumElements()] {
			if int64(id) >= nv[0] {
				return fmt.Errorf("input 1 (segment_ids): entry %d is %d, not below num_segments %d", i, id, nv[0])
			}
		}
	}
	out.Shape = shape
	k.typ = data.Type
	k.ids = ids.NumElements()
	k.segs = shape[0]
	k.sliceLen = 1
	for _, d := range shape[1:] {
		k.sliceLen *= d
	}
	return nil
}

// unsortedSegmentIDError reports a segment id at or beyond the segment
// count; a value type, so that returning it does not allocate.
type unsortedSegmentIDError struct {
	pos  int
	id   int32
	segs int
}

func (e unsortedSegmentIDError) Error() string {
	return fmt.Sprintf("input 1 (segment_ids): entry %d is %d, not below num_segments %d", e.pos, e.id, e.segs)
}

// checkIDs fails on the first id at or beyond the segment count (TFLite
// validates all of them before folding).
func (k *UnsortedSegment) checkIDs(ids []int32) error {
	for i, id := range ids {
		if id >= 0 && int(id) >= k.segs {
			return unsortedSegmentIDError{i, id, k.segs}
		}
	}
	return nil
}

// Eval folds the slices into their segments.
func (k *UnsortedSegment) Eval(n *ops.Node) error {
	data, ids, out := n.Input(0), n.Input(1), n.Output(0)
	if data == nil || ids == nil || out == nil {
		return errors.New("UNSORTED_SEGMENT: input or output missing at Eval")
	}
	if err := checkData(data, ids, out); err != nil {
		return err
	}
	idv := ids.Int32s()[:k.ids]
	if err := k.checkIDs(idv); err != nil {
		return err
	}
	if k.outElems == 0 {
		return nil
	}
	if k.typ == ops.Float32 {
		k.op.f32(k, idv, data.Float32s(), out.Float32s()[:k.outElems])
	} else {
		k.op.i32(k, idv, data.Int32s(), out.Int32s()[:k.outElems])
	}
	return nil
}

// unsortedFold fills out with init and folds every slice with f.
func unsortedFold[T float32 | int32](k *UnsortedSegment, ids []int32, in, out []T, init T, f func(acc, v T) T) {
	fillValue(out, init)
	w := k.sliceLen
	for i, id := range ids {
		if id < 0 {
			continue
		}
		dst := out[int(id)*w : int(id+1)*w]
		src := in[i*w : (i+1)*w]
		for e := range dst {
			dst[e] = f(dst[e], src[e])
		}
	}
}

// The neutral elements of MAX and MIN: std::numeric_limits lowest() and
// max().
const (
	segLowestF32  = -math.MaxFloat32
	segHighestF32 = math.MaxFloat32
)
