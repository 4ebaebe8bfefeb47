package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "BiasAdd", Outputs: "output:T", MinInputs: 2, Infer: inferBiasAdd, Fold: foldBiasAdd, Legalize: rule(legalizeBiasAdd)})
	ir.RegisterOp(ir.OpRecord{Name: "BiasAddV1", Outputs: "output:T", MinInputs: 2, Infer: inferBiasAdd, Fold: foldBiasAdd, Legalize: rule(legalizeBiasAdd)})
}

func inferBiasAdd(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	x, b := n.Inputs[0].Shape, n.Inputs[1].Shape
	format, err := n.AttrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	if b != nil && len(b) != 1 {
		return fmt.Errorf("bias must be 1-D, has shape %s", b)
	}
	if x != nil && b != nil && len(x) > 0 && format != "NCHW" {
		if c := x[len(x)-1]; c >= 0 && b[0] >= 0 && c != b[0] {
			return fmt.Errorf("bias of %d values for %d channels", b[0], c)
		}
	}
	setOut(n, 0, n.Inputs[0].DType, x.Clone())
	return nil
}

// foldBiasAdd: BiasAdd is an Add broadcasting the bias over the channel
// axis, folded as AddV2 is.
func foldBiasAdd(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	format, _ := n.AttrString("data_format", "NHWC")
	if format != "NHWC" && format != "N...C" {
		return nil, nil
	}
	add := &ir.Node{Op: "AddV2", Inputs: n.Inputs, Outputs: n.Outputs}
	r, _ := ir.LookupOp("AddV2")
	return r.Fold(add, in)
}

// legalizeBiasAdd is an ADD broadcasting the bias over the last (channel) axis;
// package optimize folds it into a preceding convolution or
// FULLY_CONNECTED.
func legalizeBiasAdd(c *ctx) error {
	format, err := c.n.AttrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	if format != "NHWC" && format != "N...C" {
		return fmt.Errorf("data_format %q is not supported (only channels-last)", format)
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorADD, &schema.AddOptionsT{}, x, b)
}
