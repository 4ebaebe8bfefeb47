package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "MaxPool", Outputs: "output:T", MinInputs: 1, Infer: inferPool, Legalize: rule(legalizePool)})
	ir.RegisterOp(ir.OpRecord{Name: "AvgPool", Outputs: "output:T", MinInputs: 1, Infer: inferPool, Legalize: rule(legalizePool)})
}

func inferPool(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	kh, kw, err := Window4(n, "ksize", nil)
	if err != nil {
		return err
	}
	sh, sw, err := Window4(n, "strides", nil)
	if err != nil {
		return err
	}
	padding, err := n.AttrString("padding", "")
	if err != nil {
		return err
	}
	if x == nil {
		setOut(n, 0, n.Inputs[0].DType, ir.Shape{-1, -1, -1, -1})
		return nil
	}
	if len(x) != 4 {
		return fmt.Errorf("input must be 4-D NHWC, has shape %s", x)
	}
	oh, err := ConvOutSize(x[1], kh, sh, 1, padding, 0, 0)
	if err != nil {
		return err
	}
	ow, err := ConvOutSize(x[2], kw, sw, 1, padding, 0, 0)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, ir.Shape{x[0], oh, ow, x[3]})
	return nil
}

func legalizePool(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	kh, kw, err := Window4(c.n, "ksize", nil)
	if err != nil {
		return err
	}
	sh, sw, err := Window4(c.n, "strides", nil)
	if err != nil {
		return err
	}
	padding, err := c.n.AttrString("padding", "")
	if err != nil {
		return err
	}
	pad := schema.PaddingVALID
	switch padding {
	case "SAME":
		pad = schema.PaddingSAME
	case "VALID":
	default:
		return fmt.Errorf("padding %q is not SAME or VALID", padding)
	}
	code := schema.BuiltinOperatorMAX_POOL_2D
	if c.n.Op == "AvgPool" {
		code = schema.BuiltinOperatorAVERAGE_POOL_2D
	}
	opts := &schema.Pool2DOptionsT{Padding: pad, StrideH: int32(sh), StrideW: int32(sw), FilterHeight: int32(kh), FilterWidth: int32(kw)}
	return c.same(code, opts, x)
}
