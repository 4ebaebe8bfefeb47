package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "FusedBatchNorm", Outputs: "y:T batch_mean:T batch_variance:T reserve_space_1:T reserve_space_2:T", MinInputs: 5, Infer: inferBatchNorm, Legalize: rule(legalizeBatchNorm)})
	ir.RegisterOp(ir.OpRecord{Name: "FusedBatchNormV2", Outputs: "y:T batch_mean:U batch_variance:U reserve_space_1:U reserve_space_2:U", MinInputs: 5, Infer: inferBatchNorm, Legalize: rule(legalizeBatchNorm)})
	ir.RegisterOp(ir.OpRecord{Name: "FusedBatchNormV3", Outputs: "y:T batch_mean:U batch_variance:U reserve_space_1:U reserve_space_2:U reserve_space_3:U", MinInputs: 5, Infer: inferBatchNorm, Legalize: rule(legalizeBatchNorm)})
}

func inferBatchNorm(n *ir.Node) error {
	if err := needInputs(n, 5); err != nil {
		return err
	}
	format, err := n.AttrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	c := -1
	if x != nil && len(x) > 0 {
		if format == "NCHW" && len(x) > 1 {
			c = x[1]
		} else {
			c = x[len(x)-1]
		}
	}
	setOut(n, 0, n.Inputs[0].DType, x.Clone())
	for i := 1; i < len(n.Outputs); i++ {
		dt := n.Outputs[i].DType
		if dt == ir.Invalid {
			dt = n.Inputs[1].DType
		}
		setOut(n, i, dt, ir.Shape{c})
	}
	return nil
}

// legalizeBatchNorm at inference: y = x·m + (offset − mean·m) with
// m = scale / sqrt(variance + epsilon), per channel (last axis), computed
// in float32 like TensorFlow's converter; the MUL and ADD then fold into a
// preceding convolution (package optimize).
func legalizeBatchNorm(c *ctx) error {
	training, err := c.n.AttrBool("is_training", true)
	if err != nil {
		return err
	}
	if training {
		return fmt.Errorf("batch normalisation in training mode (is_training=true) is not supported")
	}
	format, err := c.n.AttrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	if format != "NHWC" {
		return fmt.Errorf("data_format %q is not supported (only NHWC)", format)
	}
	eps, err := c.n.AttrFloat("epsilon", 0.0001)
	if err != nil {
		return err
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	var p [4][]float32
	for i, what := range []string{"scale", "offset", "mean", "variance"} {
		t, err := c.constOf(i+1, what)
		if err != nil {
			return err
		}
		p[i] = t.Float32s()
	}
	k := len(p[0])
	for i := range p {
		if len(p[i]) != k {
			return fmt.Errorf("batch norm parameters have %d and %d values", k, len(p[i]))
		}
	}
	if s := x.Shape; s.Rank() > 0 && s[len(s)-1] >= 0 && s[len(s)-1] != k {
		return fmt.Errorf("batch norm of %d channels applied to shape %s", k, s)
	}
	mul := make([]float32, k)
	add := make([]float32, k)
	for i := range mul {
		mul[i] = p[0][i] * rsqrt32(p[3][i]+eps)
		add[i] = p[1][i] - p[2][i]*mul[i]
	}
	mv := c.f.NewConst(c.n.Name+"/multiplier", ir.FromFloat32s(ir.Shape{k}, mul))
	av := c.f.NewConst(c.n.Name+"/offset", ir.FromFloat32s(ir.Shape{k}, add))
	y := c.n.Outputs[0]
	m := c.f.NewTFL(c.n.Name+"/mul", &ir.TFLOp{Builtin: schema.BuiltinOperatorMUL, Version: 1, Options: options(&schema.MulOptionsT{})},
		[]*ir.Value{x, mv}, ir.TypeShape{DType: y.DType, Shape: y.Shape})
	a := c.emit(schema.BuiltinOperatorADD, 1, &schema.AddOptionsT{}, []*ir.Value{m.Outputs[0], av}, ir.TypeShape{DType: y.DType, Shape: y.Shape})
	a.Outputs[0].Name = y.Name
	c.f.ReplaceAllUses(y, a.Outputs[0])
	for i, o := range c.n.Outputs[1:] {
		if c.f.HasUses(o) || c.f.IsResult(o) {
			return fmt.Errorf("output %d (batch statistics) is used; only y is available at inference", i+1)
		}
	}
	return nil
}

// rsqrt32 is 1/sqrt(x) rounded to float32 (sqrt and division are each
// correctly rounded when done in float64 and narrowed).
func rsqrt32(x float32) float32 {
	return float32(1 / float64(float32(math.Sqrt(float64(x)))))
}
