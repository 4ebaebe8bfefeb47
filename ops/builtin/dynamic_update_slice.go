package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// DynamicUpdateSlice is the kernel of TFLite's DYNAMIC_UPDATE_SLICE
// operator (XLA's DynamicUpdateSlice): the output is input 0 (operand)
// with the block input 1 (update, same rank, no dimension larger than the
// operand's) written at the position held by input 2 (start_indices, int32
// or int64 of shape [rank], read at every Eval). As TFLite, each start is
// clamped to [0, operand dim − update dim], so the block always fits; an
// update as large as the operand replaces it whole.
//
// Types: any element of fixed size (bool, integers, float16, bfloat16,
// float32, float64, complex), copied bit for bit, and int4 (version 5),
// which TFLite keeps packed two to a byte and updates nibble by nibble
// (DynamicUpdateSliceInt4); at most 8 dimensions.
type DynamicUpdateSlice struct {
	rank       int
	dims, upd  [dusMaxRank]int
	outStride  [dusMaxRank]int // element strides of the operand
	updStride  [dusMaxRank]int
	elem       int
	count      int // operand elements
	updCount   int
	idx64      bool
	whole      bool
	packed     bool            // int4: offsets count nibbles
	pos, start [dusMaxRank]int // Eval scratch: odometer and clamped start
}

// dusMaxRank is TFLite's kMaxRank for DYNAMIC_UPDATE_SLICE.
const dusMaxRank = 8

// NewDynamicUpdateSlice returns a DYNAMIC_UPDATE_SLICE kernel for one node.
func NewDynamicUpdateSlice() ops.Kernel { return &DynamicUpdateSlice{} }

func init() {
	register(ops.OpDynamicUpdateSlice, NewDynamicUpdateSlice, [2]int{1, 6})
}

// Prepare validates the node and gives the output the operand's shape.
func (k *DynamicUpdateSlice) Prepare(n *ops.Node) error {
	*k = DynamicUpdateSlice{}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	op, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	upd, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	st, err := n.RequireInput(2)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if st.Rank() != 1 || st.Shape[0] != op.Rank() {
		return fmt.Errorf("input 2 (start_indices): shape %v, need [%d] (the operand's rank)", st.Shape, op.Rank())
	}
	if upd.Rank() != op.Rank() {
		return fmt.Errorf("input 1 (update): rank %d differs from the operand's %d", upd.Rank(), op.Rank())
	}
	for i := range op.Shape {
		if upd.Shape[i] > op.Shape[i] {
			return fmt.Errorf("input 1 (update): shape %v is larger than the operand's %v in dimension %d", upd.Shape, op.Shape, i)
		}
	}
	if upd.Type != op.Type {
		return fmt.Errorf("input 1 (update): type %s differs from the operand's %s", upd.Type, op.Type)
	}
	if err := requireType(st, "input 2 (start_indices)", ops.Int32, ops.Int64); err != nil {
		return err
	}
	if out.Type != op.Type {
		return fmt.Errorf("output 0: type %s differs from the operand's %s", out.Type, op.Type)
	}
	if op.Type.Size() == 0 && op.Type != ops.Int4 {
		return fmt.Errorf("input 0 (operand): type %s is not supported", op.Type)
	}
	if op.Rank() > dusMaxRank {
		return fmt.Errorf("input 0 (operand): rank %d, at most %d is supported", op.Rank(), dusMaxRank)
	}
	if k.count, err = numElementsChecked(op, "input 0 (operand)"); err != nil {
		return err
	}
	if k.updCount, err = numElementsChecked(upd, "input 1 (update)"); err != nil {
		return err
	}
	k.rank, k.elem, k.idx64 = op.Rank(), op.Type.Size(), st.Type == ops.Int64
	if op.Type == ops.Int4 {
		k.packed, k.elem = true, 1
	}
	copy(k.dims[:], op.Shape)
	copy(k.upd[:], upd.Shape)
	so, su := 1, 1
	for i := k.rank - 1; i >= 0; i-- {
		k.outStride[i], k.updStride[i] = so, su
		so *= op.Shape[i]
		su *= upd.Shape[i]
	}
	k.whole = k.count == k.updCount
	out.Shape = copyShape(op.Shape)
	return nil
}

// Eval copies the operand and writes the update block at the clamped
// start.
func (k *DynamicUpdateSlice) Eval(n *ops.Node) error {
	op, upd, st, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if op == nil || upd == nil || st == nil || out == nil {
		return errors.New("DYNAMIC_UPDATE_SLICE: input or output missing at Eval")
	}
	if err := checkData(op, upd, st, out); err != nil {
		return err
	}
	e := k.elem
	if k.whole {
		copy(out.Data[:out.Bytes()], upd.Data)
		return nil
	}
	copy(out.Data[:out.Bytes()], op.Data)
	if k.updCount == 0 {
		return nil
	}
	for i := 0; i < k.rank; i++ {
		var v int64
		if k.idx64 {
			v = st.Int64s()[i]
		} else {
			v = int64(st.Int32s()[i])
		}
		k.start[i] = int(min(max(0, v), int64(k.dims[i]-k.upd[i])))
	}
	// Copy rows of the innermost dimension; an odometer over the others.
	last := k.rank - 1
	row := k.upd[last] * e
	clear(k.pos[:k.rank])
	for {
		o, u := 0, 0
		for i := 0; i < last; i++ {
			o += (k.start[i] + k.pos[i]) * k.outStride[i]
			u += k.pos[i] * k.updStride[i]
		}
		o = (o + k.start[last]) * e
		u *= e
		if k.packed {
			for j := 0; j < row; j++ {
				storePacked(ops.Int4, out.Data, o+j, loadPacked(ops.Int4, upd.Data, u+j))
			}
		} else {
			copy(out.Data[o:o+row], upd.Data[u:u+row])
		}
		d := last - 1
		for ; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.upd[d] {
				break
			}
			k.pos[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}
