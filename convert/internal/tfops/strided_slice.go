package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "StridedSlice", Outputs: "output:T", MinInputs: 4, Infer: inferStridedSlice, Fold: foldStridedSlice, Legalize: rule(legalizeStridedSlice)})
}

// SliceSpec is a StridedSlice resolved against a static input shape
// (TensorFlow's "dense" form): one begin/stride/size per input dimension
// after expanding the ellipsis and applying begin/end masks and negative
// indices, which input dimensions are removed (shrink_axis_mask) and the
// final output shape (with new_axis_mask's size-1 dimensions).
type SliceSpec struct {
	Begin, Stride, Size []int
	// End is the exclusive end per input dimension; -1 with a negative
	// stride means "through index 0".
	End    []int
	Shrink []bool
	// Out is the output shape.
	Out ir.Shape
	// NewAxes reports whether Out has dimensions inserted by
	// new_axis_mask.
	NewAxes bool
}

// ResolveStridedSlice computes the SliceSpec of StridedSlice(input of
// shape in, begin, end, strides) with the node's masks.
func ResolveStridedSlice(n *ir.Node, in ir.Shape, begin, end, stride []int) (*SliceSpec, error) {
	var masks [5]int64
	for i, name := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
		v, err := n.AttrInt(name, 0)
		if err != nil {
			return nil, err
		}
		masks[i] = v
	}
	bm, em, elm, nam, sam := masks[0], masks[1], masks[2], masks[3], masks[4]
	k := len(begin)
	if len(end) != k || len(stride) != k {
		return nil, fmt.Errorf("begin, end and strides have lengths %d, %d, %d", len(begin), len(end), len(stride))
	}
	if k > 64 {
		return nil, fmt.Errorf("%d slice entries is more than the 64 masks can describe", k)
	}
	bit := func(m int64, i int) bool { return m>>uint(i)&1 == 1 }
	real := 0
	ellipsis := -1
	for i := 0; i < k; i++ {
		switch {
		case bit(elm, i):
			if ellipsis >= 0 {
				return nil, fmt.Errorf("ellipsis_mask %#x has more than one bit", elm)
			}
			ellipsis = i
		case !bit(nam, i):
			real++
		}
	}
	if real > len(in) {
		return nil, fmt.Errorf("slice has %d entries for an input of rank %d", real, len(in))
	}
	spec := &SliceSpec{}
	var out ir.Shape
	full := func(d int) {
		dim := in[d]
		spec.Begin = append(spec.Begin, 0)
		spec.End = append(spec.End, dim)
		spec.Stride = append(spec.Stride, 1)
		spec.Size = append(spec.Size, dim)
		spec.Shrink = append(spec.Shrink, false)
		out = append(out, dim)
	}
	d := 0
	for i := 0; i < k; i++ {
		if i == ellipsis {
			for c := len(in) - real; c > 0; c-- {
				full(d)
				d++
			}
			continue
		}
		if bit(nam, i) {
			out = append(out, 1)
			spec.NewAxes = true
			continue
		}
		dim := in[d]
		s := stride[i]
		if s == 0 {
			return nil, fmt.Errorf("stride %d is zero", i)
		}
		b, e := begin[i], end[i]
		shrink := bit(sam, i)
		if dim < 0 {
			return nil, fmt.Errorf("dimension %d of the input is unknown", d)
		}
		if shrink {
			if b < 0 {
				b += dim
			}
			if b < 0 || b >= dim {
				return nil, fmt.Errorf("index %d is out of range for dimension %d of size %d", begin[i], d, dim)
			}
			spec.Begin = append(spec.Begin, b)
			spec.End = append(spec.End, b+1)
			spec.Stride = append(spec.Stride, 1)
			spec.Size = append(spec.Size, 1)
			spec.Shrink = append(spec.Shrink, true)
			d++
			continue
		}
		lo, hi := 0, dim
		if s < 0 {
			lo, hi = -1, dim-1
		}
		clamp := func(x int) int { return min(max(x, lo), hi) }
		if bit(bm, i) {
			if s > 0 {
				b = 0
			} else {
				b = dim - 1
			}
		} else {
			if b < 0 {
				b += dim
			}
			b = clamp(b)
		}
		if bit(em, i) {
			if s > 0 {
				e = dim
			} else {
				e = -1
			}
		} else {
			if e < 0 {
				e += dim
			}
			e = clamp(e)
		}
		size := 0
		if (s > 0 && e > b) || (s < 0 && e < b) {
			size = (e - b + s - sign(s)) / s
		}
		spec.Begin = append(spec.Begin, b)
		spec.End = append(spec.End, e)
		spec.Stride = append(spec.Stride, s)
		spec.Size = append(spec.Size, size)
		spec.Shrink = append(spec.Shrink, false)
		out = append(out, size)
		d++
	}
	for ; d < len(in); d++ {
		full(d)
	}
	if out == nil {
		out = ir.Shape{}
	}
	spec.Out = out
	return spec, nil
}

func sign(x int) int {
	if x < 0 {
		return -1
	}
	return 1
}

func stridedSliceSpec(n *ir.Node) (*SliceSpec, bool, error) {
	if err := needInputs(n, 4); err != nil {
		return nil, false, err
	}
	s := n.Inputs[0].Shape
	b, ok1 := constInts(n, 1)
	e, ok2 := constInts(n, 2)
	st, ok3 := constInts(n, 3)
	if !ok1 || !ok2 || !ok3 || !s.Static() {
		return nil, false, nil
	}
	spec, err := ResolveStridedSlice(n, s, b, e, st)
	if err != nil {
		return nil, false, err
	}
	return spec, true, nil
}

func inferStridedSlice(n *ir.Node) error {
	spec, ok, err := stridedSliceSpec(n)
	if err != nil {
		return err
	}
	var out ir.Shape
	if ok {
		out = spec.Out
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func foldStridedSlice(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	spec, ok, err := stridedSliceSpec(n)
	if err != nil || !ok {
		return nil, err
	}
	t := in[0]
	st := strides(t.Shape)
	count, _ := ir.Shape(spec.Size).NumElements()
	sizes := spec.Size
	r := gather(t, ir.Shape(sizes), count, func(i int) int {
		k := 0
		for d := len(sizes) - 1; d >= 0; d-- {
			c := i % max(sizes[d], 1)
			i /= max(sizes[d], 1)
			k += (spec.Begin[d] + c*spec.Stride[d]) * st[d]
		}
		return k
	})
	r, err = r.Reshaped(spec.Out)
	return []*ir.Tensor{r}, err
}

// legalizeStridedSlice resolves the masks against the static input shape and
// writes TFLite's STRIDED_SLICE in dense form: one begin/end/stride per
// input dimension, end_mask only for a negative stride running through
// index 0, begin_mask and end_mask for a dimension taken whole (so that it
// stays whole when the model runs at another batch), shrink_axis_mask for
// the removed dimensions; new axes become a RESHAPE afterwards.
func legalizeStridedSlice(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	var arg [3][]int
	for i, what := range []string{"begin", "end", "strides"} {
		t, err := c.constOf(i+1, what)
		if err != nil {
			return err
		}
		arg[i] = t.Ints()
	}
	spec, err := ResolveStridedSlice(c.n, s, arg[0], arg[1], arg[2])
	if err != nil {
		return err
	}
	var beginMask, endMask, shrink int32
	end := append([]int(nil), spec.End...)
	var sliced ir.Shape
	for d := range spec.Begin {
		if spec.Stride[d] < 0 && end[d] < 0 {
			endMask |= 1 << uint(d)
			end[d] = 0
		}
		if !spec.Shrink[d] && spec.Stride[d] == 1 && spec.Begin[d] == 0 && end[d] == s[d] {
			// A dimension taken whole stays whole at any size (the
			// dynamic batch: see convert/dynamic_batch.go).
			beginMask |= 1 << uint(d)
			endMask |= 1 << uint(d)
		}
		if spec.Shrink[d] {
			shrink |= 1 << uint(d)
			continue
		}
		sliced = append(sliced, spec.Size[d])
	}
	if sliced == nil {
		sliced = ir.Shape{}
	}
	n := len(spec.Begin)
	b, err := c.constInt32("begin", spec.Begin, ir.Shape{n})
	if err != nil {
		return err
	}
	e, err := c.constInt32("end", end, ir.Shape{n})
	if err != nil {
		return err
	}
	st, err := c.constInt32("strides", spec.Stride, ir.Shape{n})
	if err != nil {
		return err
	}
	opts := &schema.StridedSliceOptionsT{BeginMask: beginMask, EndMask: endMask, ShrinkAxisMask: shrink}
	if !spec.NewAxes {
		return c.same(schema.BuiltinOperatorSTRIDED_SLICE, opts, x, b, e, st)
	}
	ss := c.f.NewTFL(c.n.Name+"/slice", &ir.TFLOp{Builtin: schema.BuiltinOperatorSTRIDED_SLICE, Version: 1, Options: options(opts)},
		[]*ir.Value{x, b, e, st}, ir.TypeShape{DType: x.DType, Shape: sliced})
	sh, err := c.constInt32("shape", spec.Out, ir.Shape{len(spec.Out)})
	if err != nil {
		return err
	}
	c.replace(c.emit(schema.BuiltinOperatorRESHAPE, 1, &schema.ReshapeOptionsT{NewShape: int32s(spec.Out)}, []*ir.Value{ss.Outputs[0], sh}, c.outs()...))
	return nil
}
