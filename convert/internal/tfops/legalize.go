package tfops

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// The helpers the records' Legalize functions share: a legalisation runs
// on a ctx (the function and the node), emits TFLite operators named after
// the node and points the node's users at them.

// Reasons a record gives for having no Legalize (ir.OpRecord.NoLegalize).
const (
	byControlFlow = "lowered by package controlflow (lower-control-flow) before legalisation"
	byInlining    = "a function call: inlined, or fused by a fusion rule, by the inline pass"
	bySimplify    = "an identity at inference: bypassed by simplification"
	foldedOnly    = "folded when its inputs are constant; TFLite has no equivalent, so the legalize pass refuses a node left unfolded"
	byState       = "a variable update: kept as state by package stateful (lower-state), else refused by check-state-writes"
	bySaver       = "part of the checkpoint saver, which no result depends on: removed by simplification"
	unsupported   = "no TFLite equivalent in tflrun: the legalize pass refuses the node, naming it"
)

// rule adapts a legalisation written against ctx to ir.OpRecord.Legalize.
func rule(r func(c *ctx) error) func(f *ir.Function, n *ir.Node) error {
	return func(f *ir.Function, n *ir.Node) error { return r(&ctx{f: f, n: n}) }
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

// options wraps an options table in the BuiltinOptions union, whose tag
// for a table XOptionsT is BuiltinOptionsXOptions (flatc names both after
// the schema's table); nil stays nil. A type outside the union is a bug
// in a record, not bad input: options panics naming it.
func options(v any) *schema.BuiltinOptionsT {
	if v == nil {
		return nil
	}
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("tfops: options value %T is not a pointer to an options table", v))
	}
	tag, ok := schema.EnumValuesBuiltinOptions[strings.TrimSuffix(t.Elem().Name(), "T")]
	if !ok {
		panic(fmt.Sprintf("tfops: options type %T has no union tag", v))
	}
	return &schema.BuiltinOptionsT{Type: tag, Value: v}
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

// transposed returns v with its axes permuted: a folded constant when v is
// constant, else a TRANSPOSE operator.
func (c *ctx) transposed(v *ir.Value, perm []int, suffix string) (*ir.Value, error) {
	if v.Const != nil {
		t, err := Transpose(v.Const, perm)
		if err != nil {
			return nil, err
		}
		return c.f.NewConst(c.n.Name+"/"+suffix, t), nil
	}
	s, err := static(v)
	if err != nil {
		return nil, err
	}
	out := make(ir.Shape, len(perm))
	for i, p := range perm {
		out[i] = s[p]
	}
	p, err := c.constInt32(suffix+"/perm", perm, ir.Shape{len(perm)})
	if err != nil {
		return nil, err
	}
	t := c.f.NewTFL(c.n.Name+"/"+suffix, &ir.TFLOp{Builtin: schema.BuiltinOperatorTRANSPOSE, Version: 1, Options: options(&schema.TransposeOptionsT{})},
		[]*ir.Value{v, p}, ir.TypeShape{DType: v.DType, Shape: out})
	return t.Outputs[0], nil
}

// zeroBias is a constant [k] of zeros (TFLite's convolutions take a bias;
// TensorFlow's converter supplies zeros, which later ADDs fold into).
func (c *ctx) zeroBias(dt ir.DType, k int) (*ir.Value, error) {
	t, err := ir.FromFloat64s(dt, ir.Shape{k}, make([]float64, k))
	if err != nil {
		return nil, err
	}
	return c.f.NewConst(c.n.Name+"/bias", t), nil
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

func int32s(s ir.Shape) []int32 {
	out := make([]int32, len(s))
	for i, d := range s {
		out[i] = int32(d)
	}
	return out
}

// legalizeOneToOne legalises an op that is one TFLite operator with the
// same inputs, the first k of them required (k < 0: all, each present),
// and options made fresh per node by opts (nil: none), as the rows of the
// unary and binary tables and a few others are.
func legalizeOneToOne(code schema.BuiltinOperator, k int, opts func() any) func(f *ir.Function, n *ir.Node) error {
	return rule(func(c *ctx) error {
		inputs := c.n.Inputs
		if k >= 0 {
			inputs = make([]*ir.Value, k)
			for i := range inputs {
				x, err := c.in(i)
				if err != nil {
					return err
				}
				inputs[i] = x
			}
		}
		var o any
		if opts != nil {
			o = opts()
		}
		return c.same(code, o, inputs...)
	})
}
