package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// maxPadRank is the most dimensions PAD handles (TFLite's
// PadKernelMaxDimensionCount).
const maxPadRank = 5

// Pad is the kernel of TFLite's PAD and PADV2 operators: input 0 surrounded
// by paddings[d][0] elements before and paddings[d][1] after along every
// dimension d.
//
// Inputs: 0 data (rank ≤ 5), 1 paddings ([rank, 2], int32 or int64, values
// in [0, 2^31), constant: tflrun sizes outputs at Prepare), 2 (PADV2 only,
// optional) a one-element tensor of the data type holding the pad value.
// The pad value is, as in TFLite's pad.cc: the constant when given (for a
// quantised int8/uint8/int16 input its scale and zero point must equal the
// output's), else the output zero point for uint8 and quantised int8/int16,
// else zero. Types: float32, float16, bfloat16, int8, uint8, int16, int32,
// int64, bool, float8_e4m3fn and float8_e5m2 (version 6; the pad value is
// the constant's byte or 0, as TFLite's extra-reference-kernel builds).
type Pad struct {
	elem      int
	inShape   []int
	outStride []int
	before    []int
	pos       []int
	last      int     // the innermost padded dimension (0 if none): Eval copies whole runs of it and the dimensions inside it
	pad       [8]byte // the pad value's bytes
	inElems   int
	outElems  int
	// Eval copies the input's rows of rowBytes bytes (the innermost
	// padded dimension and those inside it) into place and fills the pad
	// value around them (rowsFn), split over threads (an empty input:
	// the pad value in blocks of padBlock bytes, fillFn); pos holds each thread's
	// position (rank ints per thread); in and o are the tensors' bytes
	// during Eval.
	rowBytes, rows int
	in, o          []byte
	fillFn, rowsFn func(worker, lo, hi int)
}

// padBlock is the size in bytes of PAD's fill units, a multiple of every
// element size.
const padBlock = 4096

// NewPad returns a PAD / PADV2 kernel for one node.
func NewPad() ops.Kernel { return &Pad{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpPad, NewPad, [2]int{1, 6})
}

// Prepare validates the node and sets the output shape.
func (k *Pad) Prepare(n *ops.Node) error {
	*k = Pad{}
	k.fillFn, k.rowsFn = k.fill, k.copyRows
	if err := n.CheckIO(2, 3, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Float16, ops.BFloat16, ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Int64, ops.Bool, ops.Float8E4M3FN, ops.Float8E5M2); err != nil {
		return err
	}
	rank := in.Rank()
	if rank > maxPadRank {
		return fmt.Errorf("input 0: rank %d, at most %d is supported", rank, maxPadRank)
	}
	p, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	if p.Rank() != 2 || p.Shape[0] != rank || p.Shape[1] != 2 {
		return fmt.Errorf("input 1 (paddings): shape %v, need [%d 2]", p.Shape, rank)
	}
	if p.Type != ops.Int32 && p.Type != ops.Int64 {
		return fmt.Errorf("input 1 (paddings): type %s, need int32 or int64", p.Type)
	}
	if p.Kind != ops.ConstTensor || len(p.Data) < p.Bytes() {
		return ops.NotConstant("input 1 (paddings)")
	}
	k.elem = in.Type.Size()
	k.inShape = copyShape(in.Shape)
	k.before = make([]int, rank)
	k.pos = make([]int, rank*n.Threads())
	k.outStride = make([]int, rank)
	outShape := make([]int, rank)
	for d := 0; d < rank; d++ {
		var lo, hi int64
		if p.Type == ops.Int32 {
			lo, hi = int64(p.Int32s()[2*d]), int64(p.Int32s()[2*d+1])
		} else {
			lo, hi = p.Int64s()[2*d], p.Int64s()[2*d+1]
		}
		if lo < 0 || hi < 0 || lo > math.MaxInt32 || hi > math.MaxInt32 {
			return fmt.Errorf("input 1 (paddings): dimension %d pads by %d and %d; each must be in [0, 2^31)", d, lo, hi)
		}
		size := int64(in.Shape[d]) + lo + hi
		if size > math.MaxInt32 {
			return fmt.Errorf("output 0: dimension %d of size %d overflows", d, size)
		}
		outShape[d] = int(size)
		k.before[d] = int(lo)
		if lo != 0 || hi != 0 {
			k.last = d
		}
	}
	if k.outElems, err = ops.ShapeElements(outShape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	s := 1
	for d := rank - 1; d >= 0; d-- {
		k.outStride[d] = s
		s *= outShape[d]
	}
	k.inElems = in.NumElements()
	// The dimensions inside the innermost padded one are as contiguous
	// in the output as in the input: one copy covers them all.
	k.rowBytes = k.elem
	for d := k.last; d < rank; d++ {
		k.rowBytes *= k.inShape[d]
	}
	if k.inElems > 0 {
		k.rows = k.inElems * k.elem / k.rowBytes
	}
	out.Shape = outShape
	return k.padValue(n, in, out)
}

// padValue decides the fill value as TFLite's Pad Eval does.
func (k *Pad) padValue(n *ops.Node, in, out *ops.Tensor) error {
	quantPath := in.Type == ops.Uint8 || (in.Type == ops.Int8 || in.Type == ops.Int16) && isQuantized(in)
	cv := n.Input(2)
	if cv == nil {
		if quantPath {
			zp := out.ZeroPoint()
			lo, hi, _ := ops.TypeRange(in.Type)
			if zp < lo || zp > hi {
				return fmt.Errorf("output 0: zero point %d is outside the %s range", zp, in.Type)
			}
			putInt(k.pad[:k.elem], int64(zp))
		}
		return nil
	}
	if cv.Type != in.Type {
		return fmt.Errorf("input 2 (constant_values): type %s differs from input type %s", cv.Type, in.Type)
	}
	if cv.NumElements() != 1 {
		return fmt.Errorf("input 2 (constant_values): %d elements, need 1", cv.NumElements())
	}
	if cv.Kind != ops.ConstTensor || len(cv.Data) < k.elem {
		return ops.NotConstant("input 2 (constant_values)")
	}
	if quantPath && (cv.ZeroPoint() != out.ZeroPoint() || cv.Scale() != out.Scale()) {
		return fmt.Errorf("input 2 (constant_values): quantization (scale %g, zero point %d) differs from the output's (%g, %d)", cv.Scale(), cv.ZeroPoint(), out.Scale(), out.ZeroPoint())
	}
	copy(k.pad[:k.elem], cv.Data)
	return nil
}

// putInt stores v little-endian in b (1, 2, 4 or 8 bytes).
func putInt(b []byte, v int64) {
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
}

// Eval fills the output with the pad value and copies the input rows in.
func (k *Pad) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("PAD: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	eb := k.elem
	o := out.Data[:k.outElems*eb]
	if k.pad != [8]byte{} && len(k.inShape) > 0 && k.inElems > 0 {
		// A non-zero pad value (a quantised zero point) is filled over
		// the whole output first, in large blocks, then the rows copied
		// over it: filling many short gaps with a pattern cost more
		// (micro_retinaface's int8 PADs, 2-byte gaps).
		k.o = o
		n.Parallel((len(o)+padBlock-1)/padBlock, len(o)/8, k.fillFn)
		k.in = in.Data
		n.Parallel(k.rows, k.inElems, k.rowsFn)
		k.in, k.o = nil, nil
		return nil
	}
	if k.inElems == 0 || len(k.inShape) == 0 {
		if len(o) > 0 {
			k.o = o
			n.Parallel((len(o)+padBlock-1)/padBlock, len(o)/8, k.fillFn)
		}
		if k.inElems > 0 {
			copy(o[:eb], in.Data)
		}
		k.o = nil
		return nil
	}
	// A zero pad: each row is copied into place and zeros written only
	// between the rows (and before the first, after the last), so every
	// output byte is written once.
	k.o, k.in = o, in.Data
	n.Parallel(k.rows, len(o), k.rowsFn)
	k.in, k.o = nil, nil
	return nil
}

// fill sets the output blocks [lo, hi) of padBlock bytes to the pad
// value.
func (k *Pad) fill(_, lo, hi int) {
	seg := k.o[lo*padBlock : min(hi*padBlock, len(k.o))]
	eb := k.elem
	copy(seg, k.pad[:eb])
	for filled := eb; filled < len(seg); filled *= 2 {
		copy(seg[filled:], seg[:filled])
	}
}

// copyRows copies the input rows [lo, hi) (Prepare's rowBytes each, in
// input order, which is their order in the output) to their places in
// the output; with a zero pad value it also clears the output from the
// end of the row before each (the output's start for row 0) up to it,
// and after the last row to the output's end (a non-zero pad value has
// been filled over the whole output already).
func (k *Pad) copyRows(worker, lo, hi int) {
	rank, last, eb, row := len(k.inShape), k.last, k.elem, k.rowBytes
	pos := k.pos[worker*rank : (worker+1)*rank]
	prevEnd := 0 // bytes
	if lo > 0 {
		r := lo - 1
		for d := last - 1; d >= 0; d-- {
			pos[d] = r % k.inShape[d]
			r /= k.inShape[d]
		}
		prevEnd = k.rowOffset(pos)*eb + row
	}
	r := lo
	for d := last - 1; d >= 0; d-- {
		pos[d] = r % k.inShape[d]
		r /= k.inShape[d]
	}
	// Rows along dimension last-1 are outStride[last-1] elements apart:
	// a stretch of them needs one offset computation.
	inner, step := 1, 0
	if last > 0 {
		inner, step = k.inShape[last-1], k.outStride[last-1]*eb
	}
	zero := k.pad == [8]byte{} // else the output is filled already
	for i := lo; i < hi; {
		cnt := hi - i
		if last > 0 {
			cnt = min(cnt, inner-pos[last-1])
		}
		off := k.rowOffset(pos) * eb
		for j := i; j < i+cnt; j++ {
			if zero {
				clear(k.o[prevEnd:off])
			}
			copy(k.o[off:off+row], k.in[j*row:(j+1)*row])
			prevEnd = off + row
			off += step
		}
		i += cnt
		if i == k.rows && zero {
			clear(k.o[prevEnd:])
		}
		if last == 0 {
			break
		}
		pos[last-1] += cnt
		for d := last - 1; d > 0 && pos[d] >= k.inShape[d]; d-- {
			pos[d] = 0
			pos[d-1]++
		}
	}
}

// rowOffset is the output element offset of the input row at pos (the
// indices of the dimensions outside k.last).
func (k *Pad) rowOffset(pos []int) int {
	off := k.before[k.last] * k.outStride[k.last]
	for d := 0; d < k.last; d++ {
		off += (pos[d] + k.before[d]) * k.outStride[d]
	}
	return off
}
