package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// reduction is the geometry shared by the reducing kernels (MEAN, SUM,
// REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL): which
// input dimensions are reduced, the output shape, and for every input
// dimension the stride of the output element it feeds (0 when reduced).
type reduction struct {
	inShape  []int
	outCount int
	count    int   // input elements reduced into each output
	outIdx   []int // output stride per input dimension (0 when reduced)
	pos      []int // odometer over the input
	resolved []int // reduced axes in the order given, repeats removed
}

// prepare reads input 0 and the constant int32 axes of input 1 (negative
// axes count from the end, repeats are ignored, as TFLite's ResolveAxis),
// sets output 0's shape (reduced dimensions kept as 1 with keepDims,
// removed otherwise) and fills r.
func (r *reduction) prepare(n *ops.Node, keepDims bool) (in, out *ops.Tensor, err error) {
	*r = reduction{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return nil, nil, err
	}
	if in, err = n.RequireInput(0); err != nil {
		return nil, nil, err
	}
	axes, err := n.RequireInput(1)
	if err != nil {
		return nil, nil, err
	}
	if out = n.Output(0); out == nil {
		return nil, nil, errors.New("output 0 is missing")
	}
	if out.Type != in.Type {
		return nil, nil, fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if axes.Type != ops.Int32 {
		return nil, nil, fmt.Errorf("input 1 (axes): type %s, need int32", axes.Type)
	}
	na := axes.NumElements()
	if axes.Kind != ops.ConstTensor || len(axes.Data) < 4*na {
		return nil, nil, errors.New("input 1 (axes): must be a constant tensor (tflrun sizes the output at Prepare)")
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return nil, nil, err
	}
	rank := in.Rank()
	reduced := make([]bool, rank)
	for _, a := range axes.Int32s()[:na] {
		ax := int(a)
		if ax < 0 {
			ax += rank
		}
		if rank > 0 && (ax < 0 || ax >= rank) {
			return nil, nil, fmt.Errorf("input 1 (axes): axis %d is outside an input of rank %d", a, rank)
		}
		if rank > 0 && !reduced[ax] {
			reduced[ax] = true
			r.resolved = append(r.resolved, ax)
		}
	}
	outShape := []int{}
	for i, d := range in.Shape {
		switch {
		case !reduced[i]:
			outShape = append(outShape, d)
		case keepDims:
			outShape = append(outShape, 1)
		}
	}
	out.Shape = outShape
	r.inShape = copyShape(in.Shape)
	r.outCount = 1
	for _, d := range outShape {
		r.outCount *= d
	}
	r.count = 1
	r.outIdx = make([]int, rank)
	r.pos = make([]int, rank)
	stride := 1
	for i := rank - 1; i >= 0; i-- {
		if reduced[i] {
			r.count *= in.Shape[i]
			continue
		}
		r.outIdx[i] = stride
		stride *= in.Shape[i]
	}
	return in, out, nil
}

// reduceInto folds every input element into its output slot with f,
// visiting the input in order (the order TFLite's reducers accumulate in).
func reduceInto[T, A any](r *reduction, in []T, acc []A, f func(a A, v T) A) {
	total := 1
	for _, d := range r.inShape {
		total *= d
	}
	if total == 0 {
		return
	}
	rank := len(r.inShape)
	if rank == 0 {
		acc[0] = f(acc[0], in[0])
		return
	}
	clear(r.pos)
	last := rank - 1
	inner, innerStride := r.inShape[last], r.outIdx[last]
	i := 0
	for {
		base := 0
		for d := 0; d < last; d++ {
			base += r.pos[d] * r.outIdx[d]
		}
		row := in[i : i+inner]
		if innerStride == 0 {
			a := acc[base]
			for _, v := range row {
				a = f(a, v)
			}
			acc[base] = a
		} else {
			o := acc[base : base+inner]
			for j, v := range row {
				o[j] = f(o[j], v)
			}
		}
		i += inner
		d := last - 1
		for ; d >= 0; d-- {
			r.pos[d]++
			if r.pos[d] < r.inShape[d] {
				break
			}
			r.pos[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// reduceSum adds every input element into its output slot, visiting the
// input in order (the order TFLite's sums accumulate in); it is
// reduceInto with the addition written out, for speed.
func reduceSum[T float32 | int8 | uint8 | int16 | int32 | int64, A float32 | int32 | int64](r *reduction, in []T, acc []A) {
	total := 1
	for _, d := range r.inShape {
		total *= d
	}
	if total == 0 {
		return
	}
	rank := len(r.inShape)
	if rank == 0 {
		acc[0] += A(in[0])
		return
	}
	clear(r.pos)
	last := rank - 1
	inner, innerStride := r.inShape[last], r.outIdx[last]
	i := 0
	for {
		base := 0
		for d := 0; d < last; d++ {
			base += r.pos[d] * r.outIdx[d]
		}
		row := in[i : i+inner]
		if innerStride == 0 {
			a := acc[base]
			for _, v := range row {
				a += A(v)
			}
			acc[base] = a
		} else {
			o := acc[base : base+inner]
			for j, v := range row {
				o[j] += A(v)
			}
		}
		i += inner
		d := last - 1
		for ; d >= 0; d-- {
			r.pos[d]++
			if r.pos[d] < r.inShape[d] {
				break
			}
			r.pos[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// Reduce is the kernel of TFLite's SUM, REDUCE_PROD, REDUCE_MAX,
// REDUCE_MIN, REDUCE_ANY and REDUCE_ALL operators: input 0 reduced over
// the constant int32 axes of input 1 (see reduction), keeping the reduced
// dimensions as 1 with ReducerOptions.KeepDims.
//
// Type paths, as TFLite's reduce.cc:
//   - SUM, REDUCE_PROD: float32 (accumulated in input order), int32 and
//     int64 (wrapping); SUM on int8, uint8 and int16 (zero points 0)
//     rescales the integer sum as TFLite's optimised QuantizedMeanOrSum:
//     round(sum·s + bias) + out_zp in float32 with s = in_scale/out_scale
//     and bias = −in_zp·s·count, saturated;
//   - REDUCE_MAX, REDUCE_MIN: float32, int32, int64, and int8, uint8,
//     int16 compared raw, which needs the input and output quantisation
//     equal (TFLite checks it);
//   - REDUCE_ANY, REDUCE_ALL: bool.
//
// An output whose reduced set is empty holds the neutral element (0, 1,
// the type's lowest or highest value, false, true). Quantised
// REDUCE_PROD is not supported; NaN inputs to REDUCE_MAX/MIN give
// unspecified results as in TFLite.
type Reduce struct {
	op  ops.BuiltinOperator
	r   reduction
	typ ops.DataType
	// Quantised SUM.
	quant  bool
	scale  float32
	bias   float32
	outZP  int32
	lo, hi int32
	accID  int
}

var reduceNames = map[ops.BuiltinOperator]string{
	ops.OpSum: "SUM", ops.OpReduceProd: "REDUCE_PROD", ops.OpReduceMax: "REDUCE_MAX", ops.OpReduceMin: "REDUCE_MIN",
	ops.OpReduceAny: "REDUCE_ANY", ops.OpReduceAll: "REDUCE_ALL",
}

// NewSum returns a SUM kernel for one node.
func NewSum() ops.Kernel { return &Reduce{op: ops.OpSum} }

// NewReduceProd returns a REDUCE_PROD kernel for one node.
func NewReduceProd() ops.Kernel { return &Reduce{op: ops.OpReduceProd} }

// NewReduceMax returns a REDUCE_MAX kernel for one node.
func NewReduceMax() ops.Kernel { return &Reduce{op: ops.OpReduceMax} }

// NewReduceMin returns a REDUCE_MIN kernel for one node.
func NewReduceMin() ops.Kernel { return &Reduce{op: ops.OpReduceMin} }

// NewReduceAny returns a REDUCE_ANY kernel for one node.
func NewReduceAny() ops.Kernel { return &Reduce{op: ops.OpReduceAny} }

// NewReduceAll returns a REDUCE_ALL kernel for one node.
func NewReduceAll() ops.Kernel { return &Reduce{op: ops.OpReduceAll} }

// Prepare validates the node, resolves the axes and sets the output shape.
func (k *Reduce) Prepare(n *ops.Node) error {
	op := k.op
	*k = Reduce{op: op}
	var opts ops.ReducerOptions
	if o, ok := n.Options.(*ops.ReducerOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *ReducerOptions", n.Options)
	}
	in, out, err := k.r.prepare(n, opts.KeepDims)
	if err != nil {
		return err
	}
	var types []ops.DataType
	switch op {
	case ops.OpSum:
		types = []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Int16}
	case ops.OpReduceProd:
		types = []ops.DataType{ops.Float32, ops.Int32, ops.Int64}
	case ops.OpReduceMax, ops.OpReduceMin:
		types = []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Int16}
	default:
		types = []ops.DataType{ops.Bool}
	}
	if err := requireType(in, "input 0", types...); err != nil {
		return fmt.Errorf("%v for %s", err, reduceNames[op])
	}
	k.typ = in.Type
	switch in.Type {
	case ops.Int8, ops.Uint8, ops.Int16:
		inScale, inZP, err := perTensorQuant(in, "input 0")
		if err != nil {
			return err
		}
		outScale, outZP, err := perTensorQuant(out, "output 0")
		if err != nil {
			return err
		}
		if in.Type == ops.Int16 && (inZP != 0 || outZP != 0) {
			return fmt.Errorf("input 0: int16 %s needs zero points 0, have %d (input) and %d (output)", reduceNames[op], inZP, outZP)
		}
		if op != ops.OpSum {
			if inScale != outScale || inZP != outZP {
				return fmt.Errorf("output 0: quantisation (scale %g, zero point %d) must equal the input's (%g, %d) for %s",
					outScale, outZP, inScale, inZP, reduceNames[op])
			}
			break
		}
		k.quant = true
		k.scale = inScale / outScale
		k.bias = float32(-inZP) * k.scale * float32(k.r.count)
		k.outZP = outZP
		k.lo, k.hi, _ = ops.TypeRange(in.Type)
		k.accID = n.RequestScratch(4 * k.r.outCount)
	}
	return nil
}

// Eval reduces.
func (k *Reduce) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return fmt.Errorf("%s: input or output missing at Eval", reduceNames[k.op])
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	oc := k.r.outCount
	if oc == 0 {
		return nil
	}
	if k.quant {
		acc, err := scratchInt32(n, k.accID, oc)
		if err != nil {
			return err
		}
		clear(acc)
		switch k.typ {
		case ops.Int8:
			reduceSum(&k.r, in.Int8s(), acc)
		case ops.Uint8:
			reduceSum(&k.r, in.Data, acc)
		default:
			reduceSum(&k.r, in.Int16s(), acc)
		}
		for i, s := range acc {
			v := ops.ClampInt32(f32ToInt32(roundf(float32(s)*k.scale+k.bias))+k.outZP, k.lo, k.hi)
			switch k.typ {
			case ops.Int8:
				out.Int8s()[i] = int8(v)
			case ops.Uint8:
				out.Data[i] = uint8(v)
			default:
				out.Int16s()[i] = int16(v)
			}
		}
		return nil
	}
	switch k.typ {
	case ops.Float32:
		// TFLite's optimised reducers start MAX/MIN from the first element,
		// so −Inf inputs give −Inf; an empty reduction gives ∓FLT_MAX.
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if k.r.count == 0 {
			lo, hi = -math.MaxFloat32, math.MaxFloat32
		}
		reduceTyped(k, in.Float32s(), out.Float32s()[:oc], lo, hi)
	case ops.Int32:
		reduceTyped(k, in.Int32s(), out.Int32s()[:oc], math.MinInt32, math.MaxInt32)
	case ops.Int64:
		reduceTyped(k, in.Int64s(), out.Int64s()[:oc], math.MinInt64, math.MaxInt64)
	case ops.Int8:
		reduceTyped(k, in.Int8s(), out.Int8s()[:oc], math.MinInt8, math.MaxInt8)
	case ops.Uint8:
		reduceTyped(k, in.Data, out.Data[:oc], 0, math.MaxUint8)
	case ops.Int16:
		reduceTyped(k, in.Int16s(), out.Int16s()[:oc], math.MinInt16, math.MaxInt16)
	case ops.Bool:
		o := out.Bools()[:oc]
		if k.op == ops.OpReduceAny {
			fillValue(o, false)
			reduceInto(&k.r, in.Bools(), o, func(a, v bool) bool { return a || v })
		} else {
			fillValue(o, true)
			reduceInto(&k.r, in.Bools(), o, func(a, v bool) bool { return a && v })
		}
	}
	return nil
}

// reduceTyped accumulates directly in the output, which starts at the
// operator's neutral element.
func reduceTyped[T float32 | int8 | uint8 | int16 | int32 | int64](k *Reduce, in, out []T, lowest, highest T) {
	switch k.op {
	case ops.OpSum:
		fillValue(out, 0)
		reduceInto(&k.r, in, out, func(a, v T) T { return a + v })
	case ops.OpReduceProd:
		fillValue(out, 1)
		reduceInto(&k.r, in, out, func(a, v T) T { return a * v })
	case ops.OpReduceMax:
		fillValue(out, lowest)
		reduceInto(&k.r, in, out, func(a, v T) T {
			if v > a {
				return v
			}
			return a
		})
	default:
		fillValue(out, highest)
		reduceInto(&k.r, in, out, func(a, v T) T {
			if v < a {
				return v
			}
			return a
		})
	}
}
