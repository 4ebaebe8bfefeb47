package legalize

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/convert/tfops"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	register(reshape, "Reshape", "Squeeze", "ExpandDims")
	register(concat, "ConcatV2", "Concat")
	register(pack, "Pack")
	register(unpack, "Unpack")
	register(split, "Split", "SplitV")
	register(stridedSlice, "StridedSlice")
	register(slice, "Slice")
	register(transpose, "Transpose")
	register(reduce, "Mean", "Sum", "Max", "Min", "Prod", "All", "Any")
	register(pad, "Pad", "PadV2", "MirrorPad")
	register(gather, "GatherV2", "Gather", "ResourceGather")
	register(reverse, "ReverseV2")
	register(tile, "Tile")
	register(fill, "Fill")
	register(shape, "Shape")
	register(argMax, "ArgMax", "ArgMin")
	register(resize, "ResizeBilinear", "ResizeNearestNeighbor")
	register(broadcastTo, "BroadcastTo")
}

// reshape: Reshape, Squeeze and ExpandDims all become RESHAPE to the
// static output shape (the new shape given both as the shape input and
// the option, as TFLite's converter writes it).
func reshape(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	out, err := static(c.n.Outputs[0])
	if err != nil {
		return err
	}
	s, err := c.constInt32("shape", out, ir.Shape{len(out)})
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorRESHAPE, &schema.ReshapeOptionsT{NewShape: int32s(out)}, x, s)
}

func axisOf(c *ctx, i, rank int) (int, error) {
	t, err := c.constOf(i, "axis")
	if err != nil {
		return 0, err
	}
	v := t.Ints()
	if len(v) != 1 {
		return 0, fmt.Errorf("axis must be one value, got %v", v)
	}
	a := v[0]
	if a < -rank || a >= rank {
		return 0, fmt.Errorf("axis %d is out of range for rank %d", a, rank)
	}
	if a < 0 {
		a += rank
	}
	return a, nil
}

func concat(c *ctx) error {
	out, err := static(c.n.Outputs[0])
	if err != nil {
		return err
	}
	ai, vals := len(c.n.Inputs)-1, c.n.Inputs[:len(c.n.Inputs)-1]
	if c.n.Op == "Concat" {
		ai, vals = 0, c.n.Inputs[1:]
	}
	a, err := axisOf(c, ai, len(out))
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorCONCATENATION, &schema.ConcatenationOptionsT{Axis: int32(a)}, vals...)
}

func pack(c *ctx) error {
	axis, err := c.n.AttrInt("axis", 0)
	if err != nil {
		return err
	}
	out, err := static(c.n.Outputs[0])
	if err != nil {
		return err
	}
	if axis < 0 {
		axis += int64(len(out))
	}
	return c.same(schema.BuiltinOperatorPACK, &schema.PackOptionsT{ValuesCount: int32(len(c.n.Inputs)), Axis: int32(axis)}, c.n.Inputs...)
}

func unpack(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	axis, err := c.n.AttrInt("axis", 0)
	if err != nil {
		return err
	}
	if axis < 0 {
		axis += int64(len(s))
	}
	return c.same(schema.BuiltinOperatorUNPACK, &schema.UnpackOptionsT{Num: int32(len(c.n.Outputs)), Axis: int32(axis)}, x)
}

func split(c *ctx) error {
	k := int32(len(c.n.Outputs))
	if c.n.Op == "Split" {
		x, err := c.in(1)
		if err != nil {
			return err
		}
		s, err := static(x)
		if err != nil {
			return err
		}
		a, err := axisOf(c, 0, len(s))
		if err != nil {
			return err
		}
		av, err := c.constInt32("axis", []int{a}, ir.Scalar())
		if err != nil {
			return err
		}
		return c.same(schema.BuiltinOperatorSPLIT, &schema.SplitOptionsT{NumSplits: k}, av, x)
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	a, err := axisOf(c, 2, len(s))
	if err != nil {
		return err
	}
	sizes := make([]int, len(c.n.Outputs))
	for i, o := range c.n.Outputs {
		os, err := static(o)
		if err != nil {
			return err
		}
		sizes[i] = os[a]
	}
	sv, err := c.constInt32("size_splits", sizes, ir.Shape{len(sizes)})
	if err != nil {
		return err
	}
	av, err := c.constInt32("axis", []int{a}, ir.Scalar())
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorSPLIT_V, &schema.SplitVOptionsT{NumSplits: k}, x, sv, av)
}

// stridedSlice resolves the masks against the static input shape and
// writes TFLite's STRIDED_SLICE in dense form: one begin/end/stride per
// input dimension, end_mask only for a negative stride running through
// index 0, shrink_axis_mask for the removed dimensions; new axes become a
// RESHAPE afterwards.
func stridedSlice(c *ctx) error {
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
	spec, err := tfops.ResolveStridedSlice(c.n, s, arg[0], arg[1], arg[2])
	if err != nil {
		return err
	}
	var endMask, shrink int32
	end := append([]int(nil), spec.End...)
	var sliced ir.Shape
	for d := range spec.Begin {
		if spec.Stride[d] < 0 && end[d] < 0 {
			endMask |= 1 << uint(d)
			end[d] = 0
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
	opts := &schema.StridedSliceOptionsT{EndMask: endMask, ShrinkAxisMask: shrink}
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

func slice(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	bt, err := c.constOf(1, "begin")
	if err != nil {
		return err
	}
	out, err := static(c.n.Outputs[0])
	if err != nil {
		return err
	}
	begin := bt.Ints()
	if len(begin) != len(s) {
		return fmt.Errorf("begin %v does not match rank %d", begin, len(s))
	}
	b, err := c.constInt32("begin", begin, ir.Shape{len(s)})
	if err != nil {
		return err
	}
	z, err := c.constInt32("size", out, ir.Shape{len(s)})
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorSLICE, &schema.SliceOptionsT{}, x, b, z)
}

func transpose(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	p, err := c.asInt32(1, "perm")
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorTRANSPOSE, &schema.TransposeOptionsT{}, x, p)
}

var reducers = map[string]schema.BuiltinOperator{
	"Mean": schema.BuiltinOperatorMEAN, "Sum": schema.BuiltinOperatorSUM, "Max": schema.BuiltinOperatorREDUCE_MAX,
	"Min": schema.BuiltinOperatorREDUCE_MIN, "Prod": schema.BuiltinOperatorREDUCE_PROD,
	"All": schema.BuiltinOperatorREDUCE_ALL, "Any": schema.BuiltinOperatorREDUCE_ANY,
}

func reduce(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	keep, err := c.n.AttrBool("keep_dims", false)
	if err != nil {
		return err
	}
	at, err := c.constOf(1, "reduction axes")
	if err != nil {
		return err
	}
	axes := at.Ints()
	for i, a := range axes {
		if a < -len(s) || a >= len(s) {
			return fmt.Errorf("reduction axis %d is out of range for rank %d", a, len(s))
		}
		if a < 0 {
			axes[i] = a + len(s)
		}
	}
	av, err := c.constInt32("axes", axes, ir.Shape{len(axes)})
	if err != nil {
		return err
	}
	return c.same(reducers[c.n.Op], &schema.ReducerOptionsT{KeepDims: keep}, x, av)
}

func pad(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	p, err := c.asInt32(1, "paddings")
	if err != nil {
		return err
	}
	switch c.n.Op {
	case "Pad":
		return c.same(schema.BuiltinOperatorPAD, &schema.PadOptionsT{}, x, p)
	case "PadV2":
		v, err := c.in(2)
		if err != nil {
			return err
		}
		return c.same(schema.BuiltinOperatorPADV2, &schema.PadV2OptionsT{}, x, p, v)
	}
	mode, err := c.n.AttrString("mode", "REFLECT")
	if err != nil {
		return err
	}
	m := schema.MirrorPadModeREFLECT
	switch mode {
	case "REFLECT":
	case "SYMMETRIC":
		m = schema.MirrorPadModeSYMMETRIC
	default:
		return fmt.Errorf("mirror pad mode %q is not REFLECT or SYMMETRIC", mode)
	}
	return c.same(schema.BuiltinOperatorMIRROR_PAD, &schema.MirrorPadOptionsT{Mode: m}, x, p)
}

// gather: ResourceGather reads the variable's checkpoint value as the
// constant params.
func gather(c *ctx) error {
	params, err := c.in(0)
	if err != nil {
		return err
	}
	idx, err := c.in(1)
	if err != nil {
		return err
	}
	axis := 0
	if c.n.Op == "ResourceGather" {
		if params.Variable == nil {
			return fmt.Errorf("gathers from a resource that is not a resolved variable")
		}
		params = c.f.NewConst(c.n.Name+"/params", params.Variable.Value)
	}
	if c.n.Op == "GatherV2" {
		s, err := static(params)
		if err != nil {
			return err
		}
		if axis, err = axisOf(c, 2, len(s)); err != nil {
			return err
		}
	}
	return c.same(schema.BuiltinOperatorGATHER, &schema.GatherOptionsT{Axis: int32(axis)}, params, idx)
}

func reverse(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	a, err := c.asInt32(1, "axis")
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorREVERSE_V2, &schema.ReverseV2OptionsT{}, x, a)
}

func tile(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	m, err := c.asInt32(1, "multiples")
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorTILE, &schema.TileOptionsT{}, x, m)
}

func fill(c *ctx) error {
	d, err := c.in(0)
	if err != nil {
		return err
	}
	v, err := c.in(1)
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorFILL, &schema.FillOptionsT{}, d, v)
}

func shape(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorSHAPE, &schema.ShapeOptionsT{OutType: schema.TensorType(c.n.Outputs[0].DType)}, x)
}

func argMax(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	a, err := c.asInt32(1, "axis")
	if err != nil {
		return err
	}
	out := schema.TensorType(c.n.Outputs[0].DType)
	if c.n.Op == "ArgMin" {
		return c.same(schema.BuiltinOperatorARG_MIN, &schema.ArgMinOptionsT{OutputType: out}, x, a)
	}
	return c.same(schema.BuiltinOperatorARG_MAX, &schema.ArgMaxOptionsT{OutputType: out}, x, a)
}

func resize(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	size, err := c.asInt32(1, "size")
	if err != nil {
		return err
	}
	align, err := c.n.AttrBool("align_corners", false)
	if err != nil {
		return err
	}
	half, err := c.n.AttrBool("half_pixel_centers", false)
	if err != nil {
		return err
	}
	if c.n.Op == "ResizeBilinear" {
		if x.DType != ir.Float32 {
			return fmt.Errorf("ResizeBilinear of %s is not supported (TFLite's output type follows the input; TensorFlow's is float32)", x.DType)
		}
		return c.same(schema.BuiltinOperatorRESIZE_BILINEAR, &schema.ResizeBilinearOptionsT{AlignCorners: align, HalfPixelCenters: half}, x, size)
	}
	return c.same(schema.BuiltinOperatorRESIZE_NEAREST_NEIGHBOR, &schema.ResizeNearestNeighborOptionsT{AlignCorners: align, HalfPixelCenters: half}, x, size)
}

func broadcastTo(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := c.asInt32(1, "shape")
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorBROADCAST_TO, &schema.BroadcastToOptionsT{}, x, s)
}
