package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// IsNan has no TFLite builtin; TensorFlow's converter writes it as
// NOT_EQUAL(x, x), true exactly for NaN (IEEE comparison), which stock
// TFLite runs. Keras layers guarding against NaN inputs carry it.
func init() {
	ir.RegisterOp(ir.OpRecord{Name: "IsNan", Outputs: "y:=bool", MinInputs: 1, Infer: inferIsNan, Fold: foldIsNan, Legalize: rule(legalizeIsNan)})
}

func inferIsNan(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	if dt := n.Inputs[0].DType; dt != ir.Invalid && !dt.IsFloat() {
		return fmt.Errorf("input is %s; IsNan takes a floating-point tensor", dt)
	}
	setOut(n, 0, ir.Bool, n.Inputs[0].Shape.Clone())
	return nil
}

func foldIsNan(_ *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	x := in[0]
	if !x.DType.IsFloat() {
		return nil, nil
	}
	v := x.Float64s()
	b := make([]byte, len(v))
	for i, e := range v {
		if math.IsNaN(e) {
			b[i] = 1
		}
	}
	t, err := ir.NewTensor(ir.Bool, x.Shape.Clone(), b)
	return []*ir.Tensor{t}, err
}

func legalizeIsNan(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorNOT_EQUAL, nil, x, x)
}
