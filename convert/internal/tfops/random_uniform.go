package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// RandomUniform (TensorFlow's uniform floats in [0, 1) of the shape held
// by input 0) becomes TFLite's RANDOM_UNIFORM with its seed and seed2
// attributes as RandomOptions, as TensorFlow's converter does
// (legalize_patterns.td, LegalizeRandomUniform). It is never folded: each
// run draws new values (both seeds zero: seeded at random). TF1 dropout
// draws its mask with it (floor(keep_prob + uniform)), which a frozen
// graph keeps with keep_prob as an input.
func init() {
	ir.RegisterOp(ir.OpRecord{Name: "RandomUniform", Outputs: "output:dtype", MinInputs: 1, Infer: inferRandomUniform, Legalize: rule(legalizeRandomUniform)})
}

func inferRandomUniform(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	dt, err := n.AttrType("dtype")
	if err != nil {
		return err
	}
	dims, ok := constInts(n, 0)
	if !ok {
		var out ir.Shape
		if s := n.Inputs[0].Shape; len(s) == 1 && s[0] >= 0 {
			out = make(ir.Shape, s[0])
			for i := range out {
				out[i] = -1
			}
		}
		setOut(n, 0, dt, out)
		return nil
	}
	for _, d := range dims {
		if d < 0 {
			return fmt.Errorf("RandomUniform shape %v has a negative size", dims)
		}
	}
	out := ir.Shape(dims)
	if err := checkElements(n, out); err != nil {
		return err
	}
	setOut(n, 0, dt, out)
	return nil
}

func legalizeRandomUniform(c *ctx) error {
	if dt := c.n.Outputs[0].DType; dt != ir.Float32 {
		return fmt.Errorf("RandomUniform of %s: TFLite's RANDOM_UNIFORM draws float32 only", dt)
	}
	shape, err := c.in(0)
	if err != nil {
		return err
	}
	if s := shape.Shape; !s.RankKnown() || len(s) != 1 {
		return fmt.Errorf("RandomUniform shape %q has shape %s, not a vector", shape.Name, s)
	}
	if shape.DType != ir.Int32 {
		// RANDOM_UNIFORM reads an int32 shape; a constant int64 one is
		// written as int32.
		dims, ok := constInts(c.n, 0)
		if !ok {
			return fmt.Errorf("RandomUniform shape %q is %s and not a constant: TFLite's RANDOM_UNIFORM reads an int32 shape", shape.Name, shape.DType)
		}
		v := make([]int32, len(dims))
		for i, d := range dims {
			if d < 0 || d > 1<<31-1 {
				return fmt.Errorf("RandomUniform shape %v: dimension %d is not an int32 size", dims, d)
			}
			v[i] = int32(d)
		}
		shape = c.f.NewConst(c.n.Name+"/shape", ir.FromInt32s(ir.Shape{len(v)}, v))
	}
	seed, err := c.n.AttrInt("seed", 0)
	if err != nil {
		return err
	}
	seed2, err := c.n.AttrInt("seed2", 0)
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorRANDOM_UNIFORM, &schema.RandomOptionsT{Seed: seed, Seed2: seed2}, shape)
}
