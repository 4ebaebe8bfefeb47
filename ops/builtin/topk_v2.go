package builtin

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// TopKV2 is the kernel of TFLite's TOPK_V2 operator: for every row of
// input 0 (its innermost dimension) it outputs the k largest values, in
// decreasing order (output 0), and their positions in the row (output 1).
//
// Input 1 holds k (one int32 or int16 value); when it is not a constant
// tensor Prepare returns an ops.NotConstantError and the interpreter
// prepares the node at Invoke with k's value (dynamic outputs); k ≤ 0 gives an empty last dimension,
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
//
// Speed: for 32-bit and narrower values, each row is one pass that
// rejects most elements with one comparison against the value of the
// k-th best candidate kept so far; candidates are packed into 64-bit
// keys (value order in the high half, reversed position in the low half)
// whose plain unsigned order is TFLite's ranking, gathered in a buffer of
// a few k and cut back to the best k by a quickselect when it fills, then
// sorted. int64 values use a heap of positions with the same order.
type TopKV2 struct {
	k, rows, rowSize int
	heapID           int
	// keysID is the candidate buffer (keysCap uint64 keys), -1 for int64;
	// idxID, for float32 rows, receives the positions arch.SelectAboveF32
	// finds (keysCap int32), else -1.
	keysID, keysCap int
	idxID           int
}

// NewTopKV2 returns a TOPK_V2 kernel for one node.
func NewTopKV2() ops.Kernel { return &TopKV2{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpTopKV2, NewTopKV2, [2]int{1, 3})
}

// Prepare validates the node and sets the output shapes.
func (t *TopKV2) Prepare(n *ops.Node) error {
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
	if err := requireType(in, "input 0", ops.Float32, ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Int64); err != nil {
		return err
	}
	if vals.Type != in.Type {
		return fmt.Errorf("output 0 (values): type %s differs from input type %s", vals.Type, in.Type)
	}
	if err := requireType(idx, "output 1 (indices)", ops.Int32, ops.Int16); err != nil {
		return err
	}
	if err := requireType(kt, "input 1 (k)", ops.Int32, ops.Int16); err != nil {
		return err
	}
	if kt.NumElements() != 1 {
		return fmt.Errorf("input 1 (k): %d elements, need 1", kt.NumElements())
	}
	if kt.Kind != ops.ConstTensor || len(kt.Data) < kt.Type.Size() {
		return ops.NotConstant("input 1 (k)")
	}
	if in.Rank() < 1 {
		return errors.New("input 0: needs at least 1 dimension")
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	k := 0
	if kt.Type == ops.Int32 {
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
	if idx.Type == ops.Int16 && t.rowSize > 1<<15 {
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
	t.heapID, t.keysID, t.idxID = -1, -1, -1
	if in.Type == ops.Int64 || t.k < topkHeapBelow {
		t.heapID = n.RequestScratch(4 * (t.k + 1))
	} else {
		// A buffer of 4k keys (at least 64, at most the row) is cut back
		// to k at most every 3k accepted candidates.
		t.keysCap = min(t.rowSize, max(4*t.k, 64))
		t.keysID = n.RequestScratch(8 * t.keysCap)
		if in.Type == ops.Float32 {
			t.idxID = n.RequestScratch(4 * t.keysCap)
		}
	}
	return nil
}

// Eval selects the top k of every row.
func (t *TopKV2) Eval(n *ops.Node) error {
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
	if t.heapID >= 0 {
		heap, err := scratchInt32(n, t.heapID, t.k+1)
		if err != nil {
			return err
		}
		switch in.Type {
		case ops.Float32:
			topK(t, heap, in.Float32s(), vals.Float32s(), idx)
		case ops.Int8:
			topK(t, heap, in.Int8s(), vals.Int8s(), idx)
		case ops.Uint8:
			topK(t, heap, in.Data, vals.Data, idx)
		case ops.Int16:
			topK(t, heap, in.Int16s(), vals.Int16s(), idx)
		case ops.Int32:
			topK(t, heap, in.Int32s(), vals.Int32s(), idx)
		case ops.Int64:
			topK(t, heap, in.Int64s(), vals.Int64s(), idx)
		}
		return nil
	}
	b, err := scratchBytes(n, t.keysID, 8*t.keysCap)
	if err != nil {
		return err
	}
	keys := ops.View[uint64](b)[:t.keysCap:t.keysCap]
	switch in.Type {
	case ops.Float32:
		pos, err := scratchInt32(n, t.idxID, t.keysCap)
		if err != nil {
			return err
		}
		topKKeyed(t, keys, pos, in.Float32s(), vals.Float32s(), idx, floatRankKey, scanKeysF32)
	case ops.Int8:
		topKKeyed(t, keys, nil, in.Int8s(), vals.Int8s(), idx, intRankKey[int8], scanKeys[int8])
	case ops.Uint8:
		topKKeyed(t, keys, nil, in.Data, vals.Data, idx, intRankKey[uint8], scanKeys[uint8])
	case ops.Int16:
		topKKeyed(t, keys, nil, in.Int16s(), vals.Int16s(), idx, intRankKey[int16], scanKeys[int16])
	case ops.Int32:
		topKKeyed(t, keys, nil, in.Int32s(), vals.Int32s(), idx, intRankKey[int32], scanKeys[int32])
	}
	return nil
}

// floatRankKey maps a float32 to a uint32 whose unsigned order is the
// value order, with -0 and +0 equal (they compare equal in TFLite). NaN
// gets some key: rows holding NaN have no defined result.
func floatRankKey(v float32) uint32 {
	if v == 0 {
		return 1 << 31
	}
	b := math.Float32bits(v)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// intRankKey maps an integer of up to 32 bits to a uint32 in the same
// order.
func intRankKey[T int8 | uint8 | int16 | int32](v T) uint32 {
	return uint32(int32(v)) ^ 1<<31
}

// rankKey packs value key kv and position c into a key whose unsigned
// order is TFLite's ranking: larger values first, then smaller positions.
func rankKey(kv uint32, c int) uint64 {
	return uint64(kv)<<32 | uint64(^uint32(c))
}

// keyPos is the row position of a rankKey.
func keyPos(key uint64) int { return int(^uint32(key)) }

// keyScan is the scan of topKRowKeys: scanKeys, or scanKeysF32 for
// float32 rows (pos is its position buffer, nil for scanKeys).
type keyScan[T float32 | int8 | uint8 | int16 | int32] func(row []T, from, k int, keys, b []uint64, pos []int32, th T, strict bool, key func(T) uint32) ([]uint64, bool)

// topKKeyed selects the top k of every row through rank keys (see
// TopKV2). keys is the candidate buffer: the whole row, or at least
// max(4k, 64) keys; key maps a value to its order key; scan and pos are
// the scan and its buffer.
func topKKeyed[T float32 | int8 | uint8 | int16 | int32](t *TopKV2, keys []uint64, pos []int32, in, vals []T, idx *ops.Tensor, key func(T) uint32, scan keyScan[T]) {
	k := t.k
	var i32 []int32
	var i16 []int16
	if idx.Type == ops.Int32 {
		i32 = idx.Int32s()
	} else {
		i16 = idx.Int16s()
	}
	for r := 0; r < t.rows; r++ {
		row := in[r*t.rowSize : (r+1)*t.rowSize]
		b := topKRowKeys(row, k, keys, pos, key, scan)
		slices.Sort(b)
		out := vals[r*k : (r+1)*k]
		for j := range out {
			p := keyPos(b[k-1-j])
			out[j] = row[p]
			if i32 != nil {
				i32[r*k+j] = int32(p)
			} else {
				i16[r*k+j] = int16(p)
			}
		}
	}
}

// topkHeapBelow is the k below which the heap is faster than the rank
// keys (its cost grows with log k per kept candidate, the keys' selection
// and sorting with k).
var topkHeapBelow = 24

// topkSample is the most positions topKRowKeys samples to set its first
// threshold.
const topkSample = 128

// topKRowKeys returns the rank keys of the k best positions of row, in no
// particular order, using keys as the candidate buffer.
//
// A row that fits in the buffer is selected directly. Otherwise the first
// threshold comes from a sample of evenly spaced positions: the value of
// the j-th best of m, with j about twice the number of the row's top k
// the sample should hold, so that about 2k positions reach it. If fewer
// than k do (unlikely for any but adversarially arranged rows), the row
// is scanned again from its first k positions.
func topKRowKeys[T float32 | int8 | uint8 | int16 | int32](row []T, k int, keys []uint64, pos []int32, key func(T) uint32, scan keyScan[T]) []uint64 {
	n := len(row)
	if n <= len(keys) {
		b := keys[:n]
		for c, v := range row {
			b[c] = rankKey(key(v), c)
		}
		if k < n {
			selectTopKeys(b, k)
		}
		return b[:k]
	}
	m := min(topkSample, len(keys), n)
	j := min(m, (2*k*m+n-1)/n+2)
	for i := range m {
		c := (2*i + 1) * n / (2 * m)
		keys[i] = rankKey(key(row[c]), c)
	}
	selectTopKeys(keys[:m], j)
	th := row[keyPos(keys[j-1])]
	if b, cut := scan(row, 0, k, keys, keys[:0], pos, th, false, key); cut || len(b) >= k {
		if len(b) > k {
			selectTopKeys(b, k)
		}
		return b[:k]
	}
	// Too few reached the sampled threshold: start from the first k
	// positions, the worst of which sets the threshold.
	b := keys[:k]
	worst := 0
	for c, v := range row[:k] {
		b[c] = rankKey(key(v), c)
		if b[c] < b[worst] {
			worst = c
		}
	}
	b, _ = scan(row, k, k, keys, b, pos, row[keyPos(b[worst])], true, key)
	if len(b) > k {
		selectTopKeys(b, k)
	}
	return b[:k]
}

// scanKeys appends to b the rank keys of the positions from onwards
// whose values reach the threshold th (v ≥ th, or v > th when strict).
// Whenever b fills keys it cuts b back to the k best and raises the
// threshold to the k-th best value, strictly: a later position with that
// value ranks below it. cut reports whether that happened, which proves
// that at least k positions reached the first threshold.
func scanKeys[T float32 | int8 | uint8 | int16 | int32](row []T, from, k int, keys, b []uint64, _ []int32, th T, strict bool, key func(T) uint32) (_ []uint64, cut bool) {
	c := from
	if !strict {
		for ; c < len(row); c++ {
			if v := row[c]; v >= th {
				b = append(b, rankKey(key(v), c))
				if len(b) == len(keys) {
					selectTopKeys(b, k)
					b = b[:k]
					th = row[keyPos(b[k-1])]
					cut = true
					c++
					break
				}
			}
		}
	}
	for ; c < len(row); c++ {
		if v := row[c]; v > th {
			b = append(b, rankKey(key(v), c))
			if len(b) == len(keys) {
				selectTopKeys(b, k)
				b = b[:k]
				th = row[keyPos(b[k-1])]
				cut = true
			}
		}
	}
	return b, cut
}

// scanKeysF32 is scanKeys for float32 rows, with the comparisons in
// arch.SelectAboveF32 (vector compares; only the positions that reach the
// threshold come back, into pos, at most as many as b has room for).
func scanKeysF32(row []float32, from, k int, keys, b []uint64, pos []int32, th float32, strict bool, _ func(float32) uint32) (_ []uint64, cut bool) {
	for from < len(row) {
		n, next := arch.SelectAboveF32(pos[:len(keys)-len(b)], row[from:], th, !strict)
		for _, p := range pos[:n] {
			c := from + int(p)
			b = append(b, rankKey(floatRankKey(row[c]), c))
		}
		from += next
		if len(b) == len(keys) {
			selectTopKeys(b, k)
			b = b[:k]
			th = row[keyPos(b[k-1])]
			strict, cut = true, true
		}
	}
	return b, cut
}

// selectTopKeys reorders the distinct keys b so that b[:k] holds the k
// largest and b[k-1] is the smallest of them (0 < k ≤ len(b)): a
// quickselect with median-of-three pivots that falls back to a full sort
// after 2·log2(len(b)) rounds, so it stays O(n log n) on any input.
func selectTopKeys(b []uint64, k int) {
	lo, hi := 0, len(b) // the k-th largest is in b[lo:hi]
	for budget := 2 * bits.Len(uint(len(b))); hi-lo > 16; budget-- {
		if budget == 0 {
			slices.SortFunc(b[lo:hi], func(x, y uint64) int { return cmp.Compare(y, x) })
			return
		}
		// Median of three as pivot, moved to b[lo].
		// Afterwards b[m] ≥ b[lo] ≥ b[hi-1].
		m := lo + (hi-lo)/2
		if b[lo] > b[m] {
			b[m], b[lo] = b[lo], b[m]
		}
		if b[hi-1] > b[lo] {
			b[hi-1], b[lo] = b[lo], b[hi-1]
		}
		if b[lo] > b[m] {
			b[m], b[lo] = b[lo], b[m]
		}
		pivot := b[lo]
		// Partition b[lo+1:hi], keys above the pivot first. The swap is
		// unconditional and the step a conditional move: the comparison
		// is a coin flip that a branch would mispredict half the time.
		i := lo + 1
		for j := lo + 1; j < hi; j++ {
			x := b[j]
			b[j] = b[i]
			b[i] = x
			if x > pivot {
				i++
			}
		}
		b[lo], b[i-1] = b[i-1], b[lo] // the pivot at its final rank i-1
		switch {
		case i-1 == k-1:
			return
		case i-1 > k-1:
			hi = i - 1
		default:
			lo = i
		}
	}
	// Few keys left: sort them in decreasing order.
	slices.SortFunc(b[lo:hi], func(x, y uint64) int { return cmp.Compare(y, x) })
}

// topK keeps, per row, a heap of the k best positions seen so far whose
// root is the worst of them, then sorts it best-first (the int64 path).
func topK[T float32 | int8 | uint8 | int16 | int32 | int64](t *TopKV2, heap []int32, in, vals []T, idx *ops.Tensor) {
	k := t.k
	var i32 []int32
	var i16 []int16
	if idx.Type == ops.Int32 {
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
