package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Conv2D", Outputs: "output:T", MinInputs: 2, Infer: inferConv, Legalize: rule(legalizeConv2D)})
}

// legalizeConv2D: filter [h, w, in, out] → [out, h, w, in].
func legalizeConv2D(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	f, err := c.in(1)
	if err != nil {
		return err
	}
	if !x.DType.IsFloat() {
		return fmt.Errorf("Conv2D of %s is not supported (float only)", x.DType)
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
	w, err := c.transposed(f, []int{3, 0, 1, 2}, "filter")
	if err != nil {
		return err
	}
	b, err := c.zeroBias(x.DType, fs[3])
	if err != nil {
		return err
	}
	version := int32(1)
	if dh != 1 || dw != 1 {
		version = 2
	}
	opts := &schema.Conv2DOptionsT{Padding: pad, StrideH: int32(sh), StrideW: int32(sw), DilationHFactor: int32(dh), DilationWFactor: int32(dw)}
	c.replace(c.emit(schema.BuiltinOperatorCONV_2D, version, opts, []*ir.Value{x, w, b}, c.outs()...))
	return nil
}
