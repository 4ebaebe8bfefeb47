package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
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
		return nil, nil, ops.NotConstant("input 1 (axes)")
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
	r.collapse()
	return in, out, nil
}

// collapse rewrites inShape and outIdx into their shortest equivalent for
// the odometer: dimensions of size 1 dropped, neighbours merged when both
// are reduced or both kept (kept neighbours are contiguous in the
// output). The input is still visited in the same order, so every
// accumulation keeps its order; an empty input keeps its shape (the
// reducers return before walking it).
func (r *reduction) collapse() {
	shape, idx := r.inShape[:0:0], r.outIdx[:0:0]
	for i, d := range r.inShape {
		if d == 0 {
			return
		}
		if d == 1 {
			continue
		}
		red := r.outIdx[i] == 0
		if m := len(shape); m > 0 && (idx[m-1] == 0) == red {
			shape[m-1] *= d
			idx[m-1] = r.outIdx[i]
			continue
		}
		shape = append(shape, d)
		idx = append(idx, r.outIdx[i])
	}
	r.inShape, r.outIdx, r.pos = shape, idx, make([]int, len(shape))
}

// reduceInto folds every input element into its output slot with f,
// visiting the input in order (the order TFLite's reducers accumulate in).
func reduceInto[T, A any](r *reduction, in []T, acc []A, f func(a A, v T) A) {
	reduceRuns(r, in, acc, func(a A, row []T) A {
		for _, v := range row {
			a = f(a, v)
		}
		return a
	}, func(o []A, row []T) {
		for j, v := range row {
			o[j] = f(o[j], v)
		}
	})
}

// reduceRuns is reduceInto with the fold given a contiguous run at a
// time: along(a, row) folds a run whose elements all go to one slot (the
// last axis reduced), across(o, row) a run whose elements go to the
// slots o one by one (the last axis kept). Each run is folded in order.
func reduceRuns[T, A any](r *reduction, in []T, acc []A, along func(a A, row []T) A, across func(o []A, row []T)) {
	total := 1
	for _, d := range r.inShape {
		total *= d
	}
	if total == 0 {
		return
	}
	rank := len(r.inShape)
	if rank == 0 {
		acc[0] = along(acc[0], in[:1])
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
			acc[base] = along(acc[base], row)
		} else {
			across(acc[base:base+inner], row)
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
	// The reductions over the middle of a tensor whose last dimension is
	// kept (MEAN over H and W of NHWC, over the steps of [B, T, C]):
	// after collapse they are [R, C] or [O, R, C] with R reduced.
	if rank == 2 && r.outIdx[0] == 0 && r.outIdx[1] == 1 {
		sumRows(in, acc, r.inShape[0], r.inShape[1])
		return
	}
	// Each row's sum (the last axis reduced, LayerNorm's and RMSNorm's
	// SUM and MEAN): one chain per row, in order, eight rows at a time so
	// that the additions overlap instead of waiting on each other.
	if rank == 2 && r.outIdx[0] == 1 && r.outIdx[1] == 0 {
		sumEachRow(in, acc, r.inShape[0], r.inShape[1])
		return
	}
	if rank == 3 && r.outIdx[0] != 0 && r.outIdx[1] == 0 && r.outIdx[2] == 1 {
		rows, cols := r.inShape[1], r.inShape[2]
		for o := 0; o < r.inShape[0]; o++ {
			sumRows(in[o*rows*cols:(o+1)*rows*cols], acc[o*cols:(o+1)*cols], rows, cols)
		}
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
// dimensions as 1 with ReducerOptions.KeepDims. Each operator's file
// (sum.go, reduce_max.go, …) gives its types and its fold in a reduceOp,
// and its constructor's doc comment the type paths, as TFLite's reduce.cc.
//
// int8, uint8 and int16 inputs are compared raw, which needs the input and
// output quantisation equal (TFLite checks it), unless the operator
// rescales (SUM, REDUCE_PROD); int16 needs zero points 0. An output whose reduced set
// is empty holds the neutral element (0, 1, the type's lowest or highest
// value, false, true).
type Reduce struct {
	op  *reduceOp
	r   reduction
	typ ops.DataType
	// Quantised SUM and REDUCE_PROD.
	quant  bool
	scale  float32 // SUM
	bias   float32 // SUM
	inZP   int32   // REDUCE_PROD
	outZP  int32
	lo, hi int32
	accID  int
	// Quantised REDUCE_PROD: the per-step rescale and the output of an
	// empty reduction.
	mult  int32
	shift int
	empty int32
}

// reduceOp is what one reducing operator adds to the shared kernel.
type reduceOp struct {
	// name is the operator's TFLite name, for messages.
	name string
	// types lists the input types the operator takes.
	types []ops.DataType
	// The fold on each type: out starts at the operator's neutral element
	// (given lowest and highest, the type's extremes, for MAX and MIN) and
	// accumulates every input element, in input order.
	f32 func(r *reduction, in, out []float32, lowest, highest float32)
	i8  func(r *reduction, in, out []int8, lowest, highest int8)
	u8  func(r *reduction, in, out []uint8, lowest, highest uint8)
	i16 func(r *reduction, in, out []int16, lowest, highest int16)
	i32 func(r *reduction, in, out []int32, lowest, highest int32)
	i64 func(r *reduction, in, out []int64, lowest, highest int64)
	b   func(r *reduction, in, out []bool)
	// prepareQuant, when set, rescales int8, uint8 and int16 inputs (SUM,
	// REDUCE_PROD) instead of comparing them raw; it sets k.quant, and
	// evalQuant then computes those paths.
	prepareQuant func(k *Reduce, n *ops.Node, in *ops.Tensor, inScale float32, inZP int32, outScale float32, outZP int32) error
	evalQuant    func(k *Reduce, n *ops.Node, in, out *ops.Tensor) error
}

// Prepare validates the node, resolves the axes and sets the output shape.
func (k *Reduce) Prepare(n *ops.Node) error {
	op := k.op
	*k = Reduce{op: op}
	var opts ReducerOptions
	if o, ok := n.Options.(*ReducerOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *ReducerOptions", n.Options)
	}
	in, out, err := k.r.prepare(n, opts.KeepDims)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", op.types...); err != nil {
		return fmt.Errorf("%v for %s", err, op.name)
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
			return fmt.Errorf("input 0: int16 %s needs zero points 0, have %d (input) and %d (output)", op.name, inZP, outZP)
		}
		if op.prepareQuant == nil {
			if inScale != outScale || inZP != outZP {
				return fmt.Errorf("output 0: quantisation (scale %g, zero point %d) must equal the input's (%g, %d) for %s",
					outScale, outZP, inScale, inZP, op.name)
			}
			break
		}
		if err := op.prepareQuant(k, n, in, inScale, inZP, outScale, outZP); err != nil {
			return err
		}
	}
	return nil
}

// Eval reduces.
func (k *Reduce) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return fmt.Errorf("%s: input or output missing at Eval", k.op.name)
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	oc := k.r.outCount
	if oc == 0 {
		return nil
	}
	if k.quant {
		return k.op.evalQuant(k, n, in, out)
	}
	op := k.op
	switch k.typ {
	case ops.Float32:
		// TFLite's optimised reducers start MAX/MIN from the first element,
		// so −Inf inputs give −Inf; an empty reduction gives ∓FLT_MAX.
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if k.r.count == 0 {
			lo, hi = -math.MaxFloat32, math.MaxFloat32
		}
		op.f32(&k.r, in.Float32s(), out.Float32s()[:oc], lo, hi)
	case ops.Int32:
		op.i32(&k.r, in.Int32s(), out.Int32s()[:oc], math.MinInt32, math.MaxInt32)
	case ops.Int64:
		op.i64(&k.r, in.Int64s(), out.Int64s()[:oc], math.MinInt64, math.MaxInt64)
	case ops.Int8:
		op.i8(&k.r, in.Int8s(), out.Int8s()[:oc], math.MinInt8, math.MaxInt8)
	case ops.Uint8:
		op.u8(&k.r, in.Data, out.Data[:oc], 0, math.MaxUint8)
	case ops.Int16:
		op.i16(&k.r, in.Int16s(), out.Int16s()[:oc], math.MinInt16, math.MaxInt16)
	case ops.Bool:
		op.b(&k.r, in.Bools(), out.Bools()[:oc])
	}
	return nil
}

// ReducerOptions is TFLite's ReducerOptions (MEAN, SUM, REDUCE_MAX, …).
type ReducerOptions struct {
	KeepDims bool
}

func init() {
	registerOptions(schema.BuiltinOptionsReducerOptions, decodeReducerOptions)
}

// decodeReducerOptions decodes TFLite's ReducerOptions table.
func decodeReducerOptions(t ops.OptionsTable) (any, error) {
	var o schema.ReducerOptions
	initTable(&o, t)
	return &ReducerOptions{KeepDims: o.KeepDims()}, nil
}

// sumEachRow adds the cols elements of each of the rows×cols row-major
// in's rows, in order, into acc[row]: the sums reduceSum's general loop
// forms, eight rows interleaved.
func sumEachRow[T float32 | int8 | uint8 | int16 | int32 | int64, A float32 | int32 | int64](in []T, acc []A, rows, cols int) {
	in, acc = in[:rows*cols], acc[:rows]
	r := 0
	for ; r+8 <= rows; r += 8 {
		x0, x1, x2, x3 := in[r*cols:][:cols], in[(r+1)*cols:][:cols], in[(r+2)*cols:][:cols], in[(r+3)*cols:][:cols]
		x4, x5, x6, x7 := in[(r+4)*cols:][:cols], in[(r+5)*cols:][:cols], in[(r+6)*cols:][:cols], in[(r+7)*cols:][:cols]
		o := acc[r : r+8 : r+8]
		a0, a1, a2, a3, a4, a5, a6, a7 := o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]
		for j := range x0 {
			a0 += A(x0[j])
			a1 += A(x1[j])
			a2 += A(x2[j])
			a3 += A(x3[j])
			a4 += A(x4[j])
			a5 += A(x5[j])
			a6 += A(x6[j])
			a7 += A(x7[j])
		}
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
	for ; r < rows; r++ {
		a := acc[r]
		for _, v := range in[r*cols:][:cols] {
			a += A(v)
		}
		acc[r] = a
	}
}

// sumRows adds each of the rows×cols row-major in's rows into acc (cols
// long), row by row in order, as reduceSum's general loop does, with
// eight columns' sums held in registers across the rows.
func sumRows[T float32 | int8 | uint8 | int16 | int32 | int64, A float32 | int32 | int64](in []T, acc []A, rows, cols int) {
	if fi, ok := any(in).([]float32); ok {
		if fa, ok := any(acc).([]float32); ok {
			// The same order, vectorised across the columns.
			arch.SumRowsF32(fa, fi, rows, cols)
			return
		}
	}
	in, acc = in[:rows*cols], acc[:cols]
	j := 0
	for ; j+8 <= cols; j += 8 {
		o := acc[j : j+8 : j+8]
		a0, a1, a2, a3, a4, a5, a6, a7 := o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]
		for k := j; k < len(in); k += cols {
			s := in[k : k+8 : k+8]
			a0 += A(s[0])
			a1 += A(s[1])
			a2 += A(s[2])
			a3 += A(s[3])
			a4 += A(s[4])
			a5 += A(s[5])
			a6 += A(s[6])
			a7 += A(s[7])
		}
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
	for ; j < cols; j++ {
		a := acc[j]
		for k := j; k < len(in); k += cols {
			a += A(in[k])
		}
		acc[j] = a
	}
}
