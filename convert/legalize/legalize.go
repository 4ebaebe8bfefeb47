// Package legalize rewrites the TensorFlow ops left in a converted
// function into TensorFlow Lite builtin operators, following the mapping
// of TensorFlow's own converter (MatMul → FULLY_CONNECTED with the weights
// transposed to [out, in], Conv2D → CONV_2D with the filter transposed to
// [out, h, w, in], DepthwiseConv2dNative → DEPTHWISE_CONV_2D with the
// filter reshaped to [1, h, w, in·multiplier], FusedBatchNorm at
// inference → MUL and ADD by per-channel constants, ...). Package
// optimize then folds and fuses the result the way TFLite's converter
// does.
//
// An op without a legalisation is an error naming the node, its op and
// the function it sits in.
package legalize

import (
	"fmt"
	"sort"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// rule legalises one TensorFlow node.
type rule func(c *ctx) error

var rules = map[string]rule{}

func register(r rule, ops ...string) {
	for _, op := range ops {
		rules[op] = r
	}
}

// Supported lists the TensorFlow ops with a legalisation, sorted.
func Supported() []string {
	var out []string
	for k := range rules {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Func legalises every TensorFlow node of f (Const nodes stay: their
// values become constant tensors). f must have been simplified (shapes
// inferred, constants folded). Errors name the node, op and function.
func Func(f *ir.Function) error {
	if err := f.TopoSort(); err != nil {
		return err
	}
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if n.TFL != nil || n.Op == "Const" {
			continue
		}
		r, ok := rules[n.Op]
		if !ok {
			if n.Op == "Placeholder" {
				return n.Errorf("is needed by the outputs but is not an input (name it in --input_arrays)")
			}
			return n.Errorf("no TFLite legalisation for op %s", n.Op)
		}
		if err := r(&ctx{f: f, n: n}); err != nil {
			return n.Wrap(err)
		}
	}
	f.RemoveUnused()
	return nil
}

// ctx is the node being legalised.
type ctx struct {
	f *ir.Function
	n *ir.Node
}

func (c *ctx) in(i int) (*ir.Value, error) {
	if i >= len(c.n.Inputs) || c.n.Inputs[i] == nil {
		return nil, fmt.Errorf("input %d is missing", i)
	}
	return c.n.Inputs[i], nil
}

// static returns a value's shape, failing when it is not static.
func static(v *ir.Value) (ir.Shape, error) {
	if !v.Shape.Static() {
		return nil, fmt.Errorf("tensor %q has shape %s, which is not static (pin dynamic dimensions with --input_shapes)", v.Name, v.Shape)
	}
	return v.Shape, nil
}

// constOf returns the constant value of input i, failing when it is not
// constant (what is "a constant" must be known at conversion time).
func (c *ctx) constOf(i int, what string) (*ir.Tensor, error) {
	v, err := c.in(i)
	if err != nil {
		return nil, err
	}
	if v.Const == nil {
		return nil, fmt.Errorf("%s (input %d, %q) must be a constant", what, i, v.Name)
	}
	return v.Const, nil
}

// options wraps an options table in the BuiltinOptions union.
func options(v any) *schema.BuiltinOptionsT {
	var t schema.BuiltinOptions
	switch v.(type) {
	case nil:
		return nil
	case *schema.Conv2DOptionsT:
		t = schema.BuiltinOptionsConv2DOptions
	case *schema.DepthwiseConv2DOptionsT:
		t = schema.BuiltinOptionsDepthwiseConv2DOptions
	case *schema.Pool2DOptionsT:
		t = schema.BuiltinOptionsPool2DOptions
	case *schema.FullyConnectedOptionsT:
		t = schema.BuiltinOptionsFullyConnectedOptions
	case *schema.SoftmaxOptionsT:
		t = schema.BuiltinOptionsSoftmaxOptions
	case *schema.ConcatenationOptionsT:
		t = schema.BuiltinOptionsConcatenationOptions
	case *schema.AddOptionsT:
		t = schema.BuiltinOptionsAddOptions
	case *schema.SubOptionsT:
		t = schema.BuiltinOptionsSubOptions
	case *schema.MulOptionsT:
		t = schema.BuiltinOptionsMulOptions
	case *schema.DivOptionsT:
		t = schema.BuiltinOptionsDivOptions
	case *schema.ReshapeOptionsT:
		t = schema.BuiltinOptionsReshapeOptions
	case *schema.PackOptionsT:
		t = schema.BuiltinOptionsPackOptions
	case *schema.UnpackOptionsT:
		t = schema.BuiltinOptionsUnpackOptions
	case *schema.SplitOptionsT:
		t = schema.BuiltinOptionsSplitOptions
	case *schema.SplitVOptionsT:
		t = schema.BuiltinOptionsSplitVOptions
	case *schema.StridedSliceOptionsT:
		t = schema.BuiltinOptionsStridedSliceOptions
	case *schema.ReducerOptionsT:
		t = schema.BuiltinOptionsReducerOptions
	case *schema.GatherOptionsT:
		t = schema.BuiltinOptionsGatherOptions
	case *schema.TransposeOptionsT:
		t = schema.BuiltinOptionsTransposeOptions
	case *schema.PadOptionsT:
		t = schema.BuiltinOptionsPadOptions
	case *schema.PadV2OptionsT:
		t = schema.BuiltinOptionsPadV2Options
	case *schema.MirrorPadOptionsT:
		t = schema.BuiltinOptionsMirrorPadOptions
	case *schema.CastOptionsT:
		t = schema.BuiltinOptionsCastOptions
	case *schema.LeakyReluOptionsT:
		t = schema.BuiltinOptionsLeakyReluOptions
	case *schema.BatchMatMulOptionsT:
		t = schema.BuiltinOptionsBatchMatMulOptions
	case *schema.ArgMaxOptionsT:
		t = schema.BuiltinOptionsArgMaxOptions
	case *schema.ArgMinOptionsT:
		t = schema.BuiltinOptionsArgMinOptions
	case *schema.ResizeBilinearOptionsT:
		t = schema.BuiltinOptionsResizeBilinearOptions
	case *schema.ResizeNearestNeighborOptionsT:
		t = schema.BuiltinOptionsResizeNearestNeighborOptions
	case *schema.SliceOptionsT:
		t = schema.BuiltinOptionsSliceOptions
	case *schema.ReverseV2OptionsT:
		t = schema.BuiltinOptionsReverseV2Options
	case *schema.SelectV2OptionsT:
		t = schema.BuiltinOptionsSelectV2Options
	case *schema.TileOptionsT:
		t = schema.BuiltinOptionsTileOptions
	case *schema.FillOptionsT:
		t = schema.BuiltinOptionsFillOptions
	case *schema.ShapeOptionsT:
		t = schema.BuiltinOptionsShapeOptions
	case *schema.SquaredDifferenceOptionsT:
		t = schema.BuiltinOptionsSquaredDifferenceOptions
	case *schema.MaximumMinimumOptionsT:
		t = schema.BuiltinOptionsMaximumMinimumOptions
	case *schema.AddNOptionsT:
		t = schema.BuiltinOptionsAddNOptions
	case *schema.LogSoftmaxOptionsT:
		t = schema.BuiltinOptionsLogSoftmaxOptions
	case *schema.BroadcastToOptionsT:
		t = schema.BuiltinOptionsBroadcastToOptions
	default:
		panic(fmt.Sprintf("legalize: options type %T has no union tag", v))
	}
	return &schema.BuiltinOptionsT{Type: t, Value: v}
}

// emit adds a TFLite operator named after the node being legalised.
func (c *ctx) emit(code schema.BuiltinOperator, version int32, opts any, inputs []*ir.Value, outs ...ir.TypeShape) *ir.Node {
	return c.f.NewTFL(c.n.Name, &ir.TFLOp{Builtin: code, Version: version, Options: options(opts)}, inputs, outs...)
}

// outs describes the node's outputs, for an operator computing them all.
func (c *ctx) outs() []ir.TypeShape {
	ts := make([]ir.TypeShape, len(c.n.Outputs))
	for i, o := range c.n.Outputs {
		ts[i] = ir.TypeShape{DType: o.DType, Shape: o.Shape}
	}
	return ts
}

// replace makes the users of the node's outputs use t's outputs, naming
// them after the TensorFlow tensors they stand for.
func (c *ctx) replace(t *ir.Node) {
	for i, o := range c.n.Outputs {
		if i < len(t.Outputs) {
			t.Outputs[i].Name = o.Name
			c.f.ReplaceAllUses(o, t.Outputs[i])
		}
	}
}

// same emits one operator with the node's inputs and outputs.
func (c *ctx) same(code schema.BuiltinOperator, opts any, inputs ...*ir.Value) error {
	for i, in := range inputs {
		if in == nil {
			return fmt.Errorf("input %d is missing", i)
		}
	}
	c.replace(c.emit(code, 1, opts, inputs, c.outs()...))
	return nil
}

// constInt32 adds an int32 constant (shape arguments of TFLite ops are
// int32).
func (c *ctx) constInt32(suffix string, vals []int, shape ir.Shape) (*ir.Value, error) {
	t, err := ir.FromInts(ir.Int32, shape, vals)
	if err != nil {
		return nil, err
	}
	return c.f.NewConst(c.n.Name+"/"+suffix, t), nil
}

// asInt32 re-types a constant integer input as int32 (TensorFlow allows
// int64 for shapes and axes; TFLite kernels expect int32).
func (c *ctx) asInt32(i int, what string) (*ir.Value, error) {
	t, err := c.constOf(i, what)
	if err != nil {
		return nil, err
	}
	if !t.DType.IsInteger() {
		return nil, fmt.Errorf("%s must be integer, is %s", what, t.DType)
	}
	if t.DType == ir.Int32 {
		return c.n.Inputs[i], nil
	}
	return c.constInt32(what, t.Ints(), t.Shape)
}

func init() {
	register(func(c *ctx) error {
		users := c.f.Uses()[c.n.Outputs[0]]
		what := "a function result"
		if len(users) > 0 {
			what = users[0].String()
		}
		v := c.n.Outputs[0].Variable
		name := c.n.Name
		if v != nil {
			name = v.Name
		}
		return fmt.Errorf("variable %q is used by %s; tflrun folds variables only where they are read (ReadVariableOp, ResourceGather)", name, what)
	}, "VarHandleOp")
}
