package ops

import (
	"errors"
	"fmt"
)

// TopKV2 is the kernel of TFLite's TOPK_V2 operator: for every row of
// input 0 (its innermost dimension) it outputs the k largest values, in
// decreasing order (output 0), and their positions in the row (output 1).
//
// Input 1 holds k (one int32 or int16 value) and must be a constant tensor
// (tflrun sizes outputs at Prepare); k ≤ 0 gives an empty last dimension,
// and k above the row length is an error. Outputs are shaped like the
// input with the last dimension replaced by max(k, 0). Values may be
// float32, int8, uint8, int16, int32 or int64 (output 0 has the input's
// type); indices are int32 or int16.
//
// Order matches TFLite's TopContainer exactly: a value ranks above another
// when it is larger, and equal values rank by position, the earlier first
// (a stable order by index). NaN inputs compare equal to everything there,
// which is not a consistent order; tflrun gives them no special treatment
// and the result for rows holding NaN is unspecified, as in TFLite.
type TopKV2 struct {
	k, rows, rowSize int
	heapID           int
}

// NewTopKV2 returns a TOPK_V2 kernel for one node.
func NewTopKV2() Kernel { return &TopKV2{} }

// Prepare validates the node and sets the output shapes.
func (t *TopKV2) Prepare(n *Node) error {
	*t = TopKV2{}
	if err := n.CheckIO(2, 2, 2); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	kt, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	vals, idx := n.Output(0), n.Output(1)
	if vals == nil || idx == nil {
		return errors.New("outputs 0 (values) and 1 (indices) are required")
	}
	if err := requireType(in, "input 0", Float32, Int8, Uint8, Int16, Int32, Int64); err != nil {
		return err
	}
	if vals.Type != in.Type {
		return fmt.Errorf("output 0 (values): type %s differs from input type %s", vals.Type, in.Type)
	}
	if err := requireType(idx, "output 1 (indices)", Int32, Int16); err != nil {
		return err
	}
	if err := requireType(kt, "input 1 (k)", Int32, Int16); err != nil {
		return err
	}
	if kt.NumElements() != 1 {
		return fmt.Errorf("input 1 (k): %d elements, need 1", kt.NumElements())
	}
	if kt.Kind != ConstTensor || len(kt.Data) < kt.Type.Size() {
		return errors.New("input 1 (k): must be a constant tensor (tflrun sizes the outputs at Prepare)")
	}
	if in.Rank() < 1 {
		return errors.New("input 0: needs at least 1 dimension")
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	k := 0
	if kt.Type == Int32 {
		k = int(kt.Int32s()[0])
	} else {
		k = int(kt.Int16s()[0])
	}
	t.rowSize = in.Shape[in.Rank()-1]
	if k > t.rowSize {
		return fmt.Errorf("input 1 (k): k = %d is larger than the last input dimension %d", k, t.rowSize)
	}
	if k < 0 {
		// TFLite would size the outputs with a negative dimension.
		return fmt.Errorf("input 1 (k): k = %d is negative", k)
	}
	if idx.Type == Int16 && t.rowSize > 1<<15 {
		return fmt.Errorf("output 1 (indices): int16 cannot index a row of %d", t.rowSize)
	}
	t.k = k
	t.rows = 1
	for _, d := range in.Shape[:in.Rank()-1] {
		t.rows *= d
	}
	shape := copyShape(in.Shape)
	shape[len(shape)-1] = t.k
	vals.Shape = shape
	idx.Shape = copyShape(shape)
	t.heapID = n.RequestScratch(4 * (t.k + 1))
	return nil
}

// Eval selects the top k of every row.
func (t *TopKV2) Eval(n *Node) error {
	in, vals, idx := n.Input(0), n.Output(0), n.Output(1)
	if in == nil || vals == nil || idx == nil {
		return errors.New("TOPK_V2: input or outputs missing at Eval")
	}
	if err := checkData(in, vals, idx); err != nil {
		return err
	}
	if t.k == 0 || t.rows == 0 {
		return nil
	}
	heap, err := scratchInt32(n, t.heapID, t.k+1)
	if err != nil {
		return err
	}
	switch in.Type {
	case Float32:
		topK(t, heap, in.Float32s(), vals.Float32s(), idx)
	case Int8:
		topK(t, heap, in.Int8s(), vals.Int8s(), idx)
	case Uint8:
		topK(t, heap, in.Data, vals.Data, idx)
	case Int16:
		topK(t, heap, in.Int16s(), vals.Int16s(), idx)
	case Int32:
		topK(t, heap, in.Int32s(), vals.Int32s(), idx)
	case Int64:
		topK(t, heap, in.Int64s(), vals.Int64s(), idx)
	}
	return nil
}

// topK keeps, per row, a heap of the k best positions seen so far whose
// root is the worst of them, then sorts it best-first.
func topK[T float32 | int8 | uint8 | int16 | int32 | int64](t *TopKV2, heap []int32, in, vals []T, idx *Tensor) {
	k := t.k
	var i32 []int32
	var i16 []int16
	if idx.Type == Int32 {
		i32 = idx.Int32s()
	} else {
		i16 = idx.Int16s()
	}
	for r := 0; r < t.rows; r++ {
		row := in[r*t.rowSize : (r+1)*t.rowSize]
		h := heap[:0]
		for c := range row[:k] {
			h = append(h, int32(c))
			siftUp(row, h, len(h)-1)
		}
		// Later positions have larger indices than every kept one, so one
		// ranks above the root (the worst kept) exactly when its value is
		// greater: most elements are rejected by one comparison with the
		// root's value, kept in a local.
		worst := row[h[0]]
		for c := k; c < len(row); c++ {
			if v := row[c]; v > worst {
				h[0] = int32(c)
				siftDown(row, h, 0)
				worst = row[h[0]]
			}
		}
		// Heap sort: repeatedly move the worst to the end.
		for end := len(h) - 1; end > 0; end-- {
			h[0], h[end] = h[end], h[0]
			siftDown(row, h[:end], 0)
		}
		out := vals[r*k : (r+1)*k]
		for j, p := range h {
			out[j] = row[p]
			if i32 != nil {
				i32[r*k+j] = p
			} else {
				i16[r*k+j] = int16(p)
			}
		}
	}
}

// ranksAbove reports whether position a of row ranks above position b:
// a larger value, or an equal value at a smaller index (TFLite's order).
func ranksAbove[T float32 | int8 | uint8 | int16 | int32 | int64](row []T, a, b int32) bool {
	va, vb := row[a], row[b]
	return vb < va || !(vb > va) && a < b
}

// siftUp restores the heap property (the root is the position that ranks
// lowest) after h[i] was added.
func siftUp[T float32 | int8 | uint8 | int16 | int32 | int64](row []T, h []int32, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !ranksAbove(row, h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

// siftDown restores the heap property after h[i] was replaced.
func siftDown[T float32 | int8 | uint8 | int16 | int32 | int64](row []T, h []int32, i int) {
	for {
		worst := i
		l, r := 2*i+1, 2*i+2
		if l < len(h) && ranksAbove(row, h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && ranksAbove(row, h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
