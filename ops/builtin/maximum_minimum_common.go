package builtin

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// MaximumMinimum is the kernel of TFLite's MAXIMUM and MINIMUM operators:
// out[i] = a[i] > b[i] ? a[i] : b[i] (MAXIMUM) or a[i] < b[i] ? a[i] :
// b[i] (MINIMUM) with numpy-style broadcasting, as TFLite's
// maximum_minimum.cc. Inputs and output share one type: float32, int8,
// uint8, int16, int32 or int64. Quantised values are compared raw (TFLite
// does not rescale; the converter gives all three tensors one
// quantisation). With a NaN in either input the result is b's element,
// which is what the conditional selects. The operator's file (maximum.go,
// minimum.go) gives the selection on each type in a maxMinOp. int8,
// uint8 and int16 run through the vector arch.MaxBlocks / arch.MinBlocks
// routines over every broadcast pattern (vectorRuns); the other types
// select element by element.
type MaximumMinimum struct {
	op  *maxMinOp
	bc  broadcast
	typ ops.DataType
	// rep8, repU8 and rep16 are vectorRuns' scratch for the vector paths.
	rep8  [256]int8
	repU8 [256]uint8
	rep16 [256]int16
}

// maxMinOp is what MAXIMUM or MINIMUM adds to the shared kernel: its name
// and its selection on each type.
type maxMinOp struct {
	name string
	f32  func(x, y float32) float32
	i32  func(x, y int32) int32
	i64  func(x, y int64) int64
	// vi8, vu8 and vi16 are the in-place vector selections on runs
	// (arch.MaxBlocksInt8 or arch.MinBlocksInt8 and their twins).
	vi8  *blocksOp[int8]
	vu8  *blocksOp[uint8]
	vi16 *blocksOp[int16]
}

// blocksOp holds an in-place arch.MaxBlocks or arch.MinBlocks routine:
// dst[i] = sel(dst[i], src[i]).
type blocksOp[T int8 | uint8 | int16] struct {
	f func(dst, src []T, n, width, dstStride, srcStride int)
}

// blocksRun is vectorRuns' primitive for the integer paths: dst =
// sel(a, b) through p's in-place routine. The selection is commutative
// and exact on integers, so when dst is b's storage (the output written
// in place over input 1) b is the accumulator and a the source; when it
// is a's, a copy is not needed.
func blocksRun[T int8 | uint8 | int16](dst, a, b []T, p *blocksOp[T]) {
	if len(dst) == 0 {
		return
	}
	src := b
	switch {
	case unsafe.SliceData(dst) == unsafe.SliceData(b):
		src = a
	case unsafe.SliceData(dst) != unsafe.SliceData(a):
		copy(dst, a)
	}
	p.f(dst, src, 1, len(dst), 0, 0)
}

// Prepare checks the types and sets the broadcast output shape.
func (k *MaximumMinimum) Prepare(n *ops.Node) error {
	op := k.op
	*k = MaximumMinimum{op: op}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Float32, ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Int64); err != nil {
		return fmt.Errorf("%v for %s", err, k.op.name)
	}
	k.typ = a.Type
	return nil
}

// Eval computes the element-wise maximum or minimum.
func (k *MaximumMinimum) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New(k.op.name + ": input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	op := k.op
	switch k.typ {
	case ops.Float32:
		broadcastMap(&k.bc, a.Float32s(), b.Float32s(), out.Float32s(), op.f32)
	case ops.Int8:
		vectorRuns(&k.bc, a.Int8s(), b.Int8s(), out.Int8s(), op.vi8, blocksRun[int8], k.rep8[:])
	case ops.Uint8:
		vectorRuns(&k.bc, a.Data, b.Data, out.Data, op.vu8, blocksRun[uint8], k.repU8[:])
	case ops.Int16:
		vectorRuns(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), op.vi16, blocksRun[int16], k.rep16[:])
	case ops.Int32:
		broadcastMap(&k.bc, a.Int32s(), b.Int32s(), out.Int32s(), op.i32)
	case ops.Int64:
		broadcastMap(&k.bc, a.Int64s(), b.Int64s(), out.Int64s(), op.i64)
	}
	return nil
}
