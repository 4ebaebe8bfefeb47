package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Concatenation is the kernel of TFLite's CONCATENATION operator: its
// inputs joined along ConcatenationOptions.Axis (negative counts from the
// end).
//
// All inputs have one type and rank, and equal dimensions except along the
// axis; the output's axis dimension is their sum (rank-0 inputs give a 1-D
// output of one element each). Types: float32, float16, bfloat16, int8,
// uint8, int16, int32, uint32, int64, bool, float8_e4m3fn and float8_e5m2
// (version 7; copied bytes, TFLite's extra-reference-kernel builds), and
// int4 (version 5): packed two to a byte, copied element by element into
// an output cleared first, so an odd final element leaves its byte's high
// nibble 0, as TFLite's Concatenation<Int4>; int4 inputs need rank ≥ 1. As in TFLite's
// concatenation.cc: the fused activation must be NONE; int8 inputs must
// share the output's scale and zero point (no rescaling); int16 inputs and
// output need zero point 0; uint8 inputs with a scale or zero point other
// than the output's are requantised elementwise as
// round(q·s + b) + zp_out with s = scale_in·(1/scale_out) and b =
// -zp_in·s in float32, clamped to [0, 255] (ConcatenationWithScaling).
type Concatenation struct {
	outer  int
	inner  []int // bytes per outer slice, per input
	elem   int
	rescal []concatRescale
	packed bool // int4: inner counts elements, not bytes
	// The byte path is split over threads in blocks of concatBlock
	// output bytes (ops.Node.Parallel): rowBytes is the sum of inner,
	// blocksFn reads the node's tensors in ins and out during Eval.
	rowBytes int
	ins      []*ops.Tensor
	out      *ops.Tensor
	blocksFn func(worker, lo, hi int)
}

// concatBlock is the output bytes of one unit of a threaded
// CONCATENATION.
const concatBlock = 4096

type concatRescale struct {
	copy  bool
	scale float32
	bias  float32
	outZP int32
}

// NewConcatenation returns a CONCATENATION kernel for one node.
func NewConcatenation() ops.Kernel { return &Concatenation{} }

// ConcatenationOptions is TFLite's ConcatenationOptions.
type ConcatenationOptions struct {
	Axis       int
	Activation ops.Activation
}

func init() {
	// The versions TFLite registers; 5 is int4, 6 float16, 7 the float8
	// types. Prepare refuses the types this kernel lacks.
	register(ops.OpConcatenation, NewConcatenation, [2]int{1, 7})
	registerOptions(schema.BuiltinOptionsConcatenationOptions, decodeConcatenationOptions)
}

// decodeConcatenationOptions decodes TFLite's ConcatenationOptions table.
func decodeConcatenationOptions(t ops.OptionsTable) (any, error) {
	var o schema.ConcatenationOptions
	initTable(&o, t)
	return &ConcatenationOptions{Axis: int(o.Axis()), Activation: ops.Activation(o.FusedActivationFunction())}, nil
}

// Prepare validates the inputs and sets the output shape.
func (k *Concatenation) Prepare(n *ops.Node) error {
	*k = Concatenation{}
	k.blocksFn = k.blocks
	var opts ConcatenationOptions
	if o, ok := n.Options.(*ConcatenationOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *ConcatenationOptions", n.Options)
	}
	if opts.Activation != ops.ActNone {
		return fmt.Errorf("options: fused activation %s is not supported (TFLite requires NONE)", opts.Activation)
	}
	if len(n.Inputs) < 1 || len(n.Outputs) != 1 {
		return fmt.Errorf("has %d inputs and %d outputs, needs at least 1 and 1", len(n.Inputs), len(n.Outputs))
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	t0, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if err := requireType(t0, "input 0", ops.Float32, ops.Float16, ops.BFloat16, ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Uint32, ops.Int64, ops.Bool, ops.Float8E4M3FN, ops.Float8E5M2, ops.Int4); err != nil {
		return err
	}
	if t0.Type == ops.Int4 && t0.Rank() == 0 {
		return errors.New("input 0: int4 scalars cannot be concatenated (TFLite requires rank ≥ 1)")
	}
	if out.Type != t0.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, t0.Type)
	}
	rank := t0.Rank()
	axis := opts.Axis
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank && !(rank == 0 && axis == 0) {
		return fmt.Errorf("options: axis %d is outside inputs of rank %d", opts.Axis, rank)
	}
	k.elem = t0.Type.Size()
	if t0.Type == ops.Int4 {
		k.packed, k.elem = true, 1
	}
	var outShape []int
	if rank == 0 {
		outShape = []int{len(n.Inputs)}
	} else {
		outShape = copyShape(t0.Shape)
		outShape[axis] = 0
	}
	for i, t := range n.Inputs {
		label := fmt.Sprintf("input %d", i)
		if t == nil {
			return fmt.Errorf("%s is required but omitted", label)
		}
		if t.Type != t0.Type {
			return fmt.Errorf("%s: type %s differs from input 0 type %s", label, t.Type, t0.Type)
		}
		if t.Rank() != rank {
			return fmt.Errorf("%s: rank %d differs from input 0 rank %d", label, t.Rank(), rank)
		}
		if _, err := numElementsChecked(t, label); err != nil {
			return err
		}
		for d := 0; d < rank; d++ {
			if d == axis {
				if outShape[axis] > math.MaxInt32-t.Shape[d] {
					return fmt.Errorf("%s: concatenated dimension overflows", label)
				}
				outShape[axis] += t.Shape[d]
			} else if t.Shape[d] != t0.Shape[d] {
				return fmt.Errorf("%s: dimension %d is %d, input 0 has %d", label, d, t.Shape[d], t0.Shape[d])
			}
		}
	}
	if _, err := ops.ShapeElements(outShape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = outShape
	k.outer = 1
	for d := 0; d < axis && d < rank; d++ {
		k.outer *= t0.Shape[d]
	}
	k.inner = make([]int, len(n.Inputs))
	for i, t := range n.Inputs {
		b := k.elem
		for d := axis; d < rank; d++ {
			b *= t.Shape[d]
		}
		k.inner[i] = b
		k.rowBytes += b
	}
	return k.prepareQuant(n, out)
}

func (k *Concatenation) prepareQuant(n *ops.Node, out *ops.Tensor) error {
	switch out.Type {
	case ops.Int8:
		for i, t := range n.Inputs {
			if t.Scale() != out.Scale() || t.ZeroPoint() != out.ZeroPoint() {
				return fmt.Errorf("input %d: int8 quantization (scale %g, zero point %d) differs from the output's (%g, %d); TFLite does not rescale int8", i, t.Scale(), t.ZeroPoint(), out.Scale(), out.ZeroPoint())
			}
		}
	case ops.Int16:
		for i, t := range n.Inputs {
			if t.ZeroPoint() != 0 {
				return fmt.Errorf("input %d: int16 zero point %d, need 0", i, t.ZeroPoint())
			}
		}
		if out.ZeroPoint() != 0 {
			return fmt.Errorf("output 0: int16 zero point %d, need 0", out.ZeroPoint())
		}
	case ops.Uint8:
		k.rescal = make([]concatRescale, len(n.Inputs))
		os, ozp := out.Scale(), out.ZeroPoint()
		inv := float32(1) / os
		for i, t := range n.Inputs {
			r := &k.rescal[i]
			r.outZP = ozp
			if t.ZeroPoint() == ozp && t.Scale() == os {
				r.copy = true
				continue
			}
			r.scale = t.Scale() * inv
			r.bias = float32(-t.ZeroPoint()) * r.scale
		}
	}
	return nil
}

// Eval copies (or requantises) every input slice into place.
func (k *Concatenation) Eval(n *ops.Node) error {
	out := n.Output(0)
	if out == nil {
		return errors.New("CONCATENATION: output missing at Eval")
	}
	if err := checkData(out); err != nil {
		return err
	}
	for _, t := range n.Inputs {
		if t == nil || len(t.Data) < t.Bytes() {
			return errShortData
		}
	}
	if k.packed {
		clear(out.Data[:out.Bytes()])
		o := 0
		for outer := 0; outer < k.outer; outer++ {
			for i, t := range n.Inputs {
				sz := k.inner[i]
				for j := outer * sz; j < (outer+1)*sz; j++ {
					storePacked(ops.Int4, out.Data, o, loadPacked(ops.Int4, t.Data, j))
					o++
				}
			}
		}
		return nil
	}
	total := k.outer * k.rowBytes
	cost := 1
	if k.rescal != nil {
		cost = 8
	}
	k.ins, k.out = n.Inputs, out
	n.Parallel((total+concatBlock-1)/concatBlock, total*cost, k.blocksFn)
	k.ins, k.out = nil, nil
	return nil
}

// blocks copies (or rescales) the output bytes of blocks [lo, hi) of
// concatBlock bytes: each output byte comes from one input byte, so any
// split gives the same bits. Without rescaling, the whole outer slices
// of the range are copied input by input, as runs of that input's
// segment at the output's row stride (copyByteRuns); the partial slices at
// either end go through span.
func (k *Concatenation) blocks(worker, lo, hi int) {
	if k.rowBytes == 0 {
		return
	}
	rb := k.rowBytes
	o, end := lo*concatBlock, min(hi*concatBlock, k.outer*rb)
	r0, r1 := (o+rb-1)/rb, end/rb // the whole outer slices [r0, r1)
	if k.rescal != nil || r1 <= r0 {
		k.span(o, end)
		return
	}
	if o < r0*rb {
		k.span(o, r0*rb)
	}
	start := 0
	for i, sz := range k.inner {
		copyByteRuns(k.out.Data[r0*rb+start:], rb, k.ins[i].Data[r0*sz:], sz, sz, r1-r0)
		start += sz
	}
	if r1*rb < end {
		k.span(r1*rb, end)
	}
}

// copyByteRuns copies run segments of seg bytes, segment p from
// src[p·srcStride:] to dst[p·dstStride:] (CONCATENATION's inputs into
// its rows, SPLIT's rows into its outputs): copyRuns, with segments of
// fewer than four bytes (a channel or three at a time) moved byte by
// byte rather than by a memmove call each.
func copyByteRuns(dst []byte, dstStride int, src []byte, srcStride, seg, run int) {
	if run <= 0 || seg <= 0 {
		return
	}
	if seg >= 4 {
		copyRuns(dst, dstStride, src, srcStride, seg, run)
		return
	}
	dst = dst[:(run-1)*dstStride+seg]
	src = src[:(run-1)*srcStride+seg]
	if seg == 1 {
		for p := 0; p < run; p++ {
			dst[p*dstStride] = src[p*srcStride]
		}
		return
	}
	for p := 0; p < run; p++ {
		for j := range seg {
			dst[p*dstStride+j] = src[p*srcStride+j]
		}
	}
}

// span copies (or rescales) the output bytes [o, end), walking the
// inputs' segments of each outer slice.
func (k *Concatenation) span(o, end int) {
	outer, at := o/k.rowBytes, o%k.rowBytes
	for o < end {
		// Find the input whose segment of this outer slice holds at.
		i, start := 0, 0
		for start+k.inner[i] <= at {
			start += k.inner[i]
			i++
		}
		for ; i < len(k.inner) && o < end; i++ {
			sz := k.inner[i]
			off := at - start // into this input's segment
			m := min(sz-off, end-o)
			src := k.ins[i].Data[outer*sz+off : outer*sz+off+m]
			dst := k.out.Data[o : o+m]
			if k.rescal != nil && !k.rescal[i].copy {
				r := &k.rescal[i]
				for j, v := range src {
					q := f32ToInt32(roundf(float32(float32(v)*r.scale)+r.bias)) + r.outZP
					dst[j] = uint8(ops.ClampInt32(q, 0, 255))
				}
			} else {
				copy(dst, src)
			}
			o += m
			start += sz
			at = start
		}
		outer, at = outer+1, 0
	}
}
