package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "DepthwiseConv2dNative", Outputs: "output:T", MinInputs: 2, Infer: inferConv, Legalize: rule(legalizeDepthwiseConv2D)})
}

// legalizeDepthwiseConv2D: filter [h, w, in, mult] is reshaped to
// [1, h, w, in·mult]: output channel c·mult + m is input channel c with
// multiplier m in both layouts.
func legalizeDepthwiseConv2D(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	f, err := c.in(1)
	if err != nil {
		return err
	}
	if !x.DType.IsFloat() {
		return fmt.Errorf("DepthwiseConv2dNative of %s is not supported (float only)", x.DType)
	}
	fs, err := static(f)
	if err != nil {
		return err
	}
	sh, sw, err := Window4(c.n, "strides", nil)
	if err != nil {
		return err
	}
	dh, dw, err := Window4(c.n, "dilations", []int64{1, 1, 1, 1})
	if err != nil {
		return err
	}
	x, pad, err := c.convPadding(x)
	if err != nil {
		return err
	}
	shape := ir.Shape{1, fs[0], fs[1], fs[2] * fs[3]}
	var w *ir.Value
	if f.Const != nil {
		t, err := f.Const.Reshaped(shape)
		if err != nil {
			return err
		}
		w = c.f.NewConst(c.n.Name+"/filter", t)
	} else {
		s, err := c.constInt32("filter/shape", shape, ir.Shape{4})
		if err != nil {
			return err
		}
		r := c.f.NewTFL(c.n.Name+"/filter", &ir.TFLOp{Builtin: schema.BuiltinOperatorRESHAPE, Version: 1, Options: options(&schema.ReshapeOptionsT{NewShape: int32s(shape)})},
			[]*ir.Value{f, s}, ir.TypeShape{DType: f.DType, Shape: shape})
		w = r.Outputs[0]
	}
	b, err := c.zeroBias(x.DType, fs[2]*fs[3])
	if err != nil {
		return err
	}
	version := int32(1)
	if dh != 1 || dw != 1 {
		version = 2
	}
	opts := &schema.DepthwiseConv2DOptionsT{Padding: pad, StrideH: int32(sh), StrideW: int32(sw), DepthMultiplier: int32(fs[3]),
		DilationHFactor: int32(dh), DilationWFactor: int32(dw)}
	c.replace(c.emit(schema.BuiltinOperatorDEPTHWISE_CONV_2D, version, opts, []*ir.Value{x, w, b}, c.outs()...))
	return nil
}
