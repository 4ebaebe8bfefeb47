package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "ResizeBilinear", Outputs: "resized_images:=float", MinInputs: 2, Infer: inferResize, Legalize: rule(legalizeResize)})
	ir.RegisterOp(ir.OpRecord{Name: "ResizeNearestNeighbor", Outputs: "resized_images:T", MinInputs: 2, Infer: inferResize, Legalize: rule(legalizeResize)})
}

func inferResize(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	size, ok := constInts(n, 1)
	dt := n.Inputs[0].DType
	if n.Op == "ResizeBilinear" {
		dt = ir.Float32
	}
	if x == nil || len(x) != 4 {
		setOut(n, 0, dt, ir.Shape{-1, -1, -1, -1})
		return nil
	}
	out := ir.Shape{x[0], -1, -1, x[3]}
	if ok {
		if len(size) != 2 || size[0] < 0 || size[1] < 0 {
			return fmt.Errorf("resize size %v must be 2 non-negative values", size)
		}
		out[1], out[2] = size[0], size[1]
	}
	setOut(n, 0, dt, out)
	return nil
}

func legalizeResize(c *ctx) error {
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
