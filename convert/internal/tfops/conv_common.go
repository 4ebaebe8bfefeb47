package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// The window arithmetic Conv2D, DepthwiseConv2dNative and the pools share.

// ConvOutSize is the output size of a convolution or pooling window along
// one dimension: SAME pads to ceil(in/stride), VALID keeps windows inside
// the input, EXPLICIT adds the given padding.
func ConvOutSize(in, k, stride, dilation int, padding string, padLo, padHi int) (int, error) {
	if in < 0 {
		return -1, nil
	}
	if stride <= 0 || dilation <= 0 || k <= 0 {
		return 0, fmt.Errorf("window %d, stride %d and dilation %d must be positive", k, stride, dilation)
	}
	eff := (k-1)*dilation + 1
	switch padding {
	case "SAME":
		return (in + stride - 1) / stride, nil
	case "VALID":
		if in < eff {
			return 0, fmt.Errorf("window of %d does not fit an input of %d", eff, in)
		}
		return (in-eff)/stride + 1, nil
	case "EXPLICIT":
		in += padLo + padHi
		if in < eff {
			return 0, fmt.Errorf("window of %d does not fit a padded input of %d", eff, in)
		}
		return (in-eff)/stride + 1, nil
	}
	return 0, fmt.Errorf("padding %q is not SAME, VALID or EXPLICIT", padding)
}

// Window4 reads the NHWC strides/dilations/ksize style attribute (4
// values, batch and channel entries 1).
func Window4(n *ir.Node, name string, def []int64) (h, w int, err error) {
	v, err := n.AttrInts(name, def)
	if err != nil {
		return 0, 0, err
	}
	if len(v) != 4 {
		return 0, 0, n.Errorf("attribute %q has %d values, want 4", name, len(v))
	}
	format, err := n.AttrString("data_format", "NHWC")
	if err != nil {
		return 0, 0, err
	}
	if format != "NHWC" {
		return 0, 0, n.Errorf("data_format %q is not supported (only NHWC)", format)
	}
	if v[0] != 1 || v[3] != 1 {
		return 0, 0, n.Errorf("attribute %q = %v: batch and channel entries must be 1", name, v)
	}
	if v[1] <= 0 || v[2] <= 0 || v[1] > 1<<20 || v[2] > 1<<20 {
		return 0, 0, n.Errorf("attribute %q = %v has non-positive entries", name, v)
	}
	return int(v[1]), int(v[2]), nil
}

// ExplicitPads returns the (top, bottom, left, right) padding of an
// EXPLICIT-padded NHWC op.
func ExplicitPads(n *ir.Node) ([4]int, error) {
	v, err := n.AttrInts("explicit_paddings", nil)
	if err != nil {
		return [4]int{}, err
	}
	if len(v) != 8 {
		return [4]int{}, n.Errorf("explicit_paddings has %d values, want 8", len(v))
	}
	for _, x := range v {
		if x < 0 || x > 1<<20 {
			return [4]int{}, n.Errorf("explicit_paddings %v is out of range", v)
		}
	}
	return [4]int{int(v[2]), int(v[3]), int(v[4]), int(v[5])}, nil
}

func inferConv(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	x, f := n.Inputs[0].Shape, n.Inputs[1].Shape
	sh, sw, err := Window4(n, "strides", nil)
	if err != nil {
		return err
	}
	dh, dw, err := Window4(n, "dilations", []int64{1, 1, 1, 1})
	if err != nil {
		return err
	}
	padding, err := n.AttrString("padding", "")
	if err != nil {
		return err
	}
	var pads [4]int
	if padding == "EXPLICIT" {
		if pads, err = ExplicitPads(n); err != nil {
			return err
		}
	}
	if x != nil && len(x) != 4 {
		return fmt.Errorf("input must be 4-D NHWC, has shape %s", x)
	}
	if f != nil && len(f) != 4 {
		return fmt.Errorf("filter must be 4-D, has shape %s", f)
	}
	if x == nil || f == nil {
		setOut(n, 0, n.Inputs[0].DType, ir.Shape{-1, -1, -1, -1})
		return nil
	}
	if x[3] >= 0 && f[2] >= 0 {
		if n.Op == "Conv2D" && x[3]%max(f[2], 1) != 0 {
			return fmt.Errorf("input has %d channels, filter expects %d", x[3], f[2])
		}
		if n.Op == "DepthwiseConv2dNative" && x[3] != f[2] {
			return fmt.Errorf("input has %d channels, filter expects %d", x[3], f[2])
		}
	}
	oh, err := ConvOutSize(x[1], f[0], sh, dh, padding, pads[0], pads[1])
	if err != nil {
		return err
	}
	ow, err := ConvOutSize(x[2], f[1], sw, dw, padding, pads[2], pads[3])
	if err != nil {
		return err
	}
	oc := f[3]
	if n.Op == "DepthwiseConv2dNative" {
		oc = -1
		if f[2] >= 0 && f[3] >= 0 {
			oc = f[2] * f[3]
		}
	}
	setOut(n, 0, n.Inputs[0].DType, ir.Shape{x[0], oh, ow, oc})
	return nil
}

// convPadding maps TensorFlow padding to TFLite's; EXPLICIT padding
// becomes a PAD operator in front and VALID.
func (c *ctx) convPadding(x *ir.Value) (*ir.Value, schema.Padding, error) {
	padding, err := c.n.AttrString("padding", "")
	if err != nil {
		return nil, 0, err
	}
	switch padding {
	case "SAME":
		return x, schema.PaddingSAME, nil
	case "VALID":
		return x, schema.PaddingVALID, nil
	case "EXPLICIT":
		p, err := ExplicitPads(c.n)
		if err != nil {
			return nil, 0, err
		}
		s, err := static(x)
		if err != nil {
			return nil, 0, err
		}
		pads, err := c.constInt32("explicit_paddings", []int{0, 0, p[0], p[1], p[2], p[3], 0, 0}, ir.Shape{4, 2})
		if err != nil {
			return nil, 0, err
		}
		out := ir.Shape{s[0], s[1] + p[0] + p[1], s[2] + p[2] + p[3], s[3]}
		pad := c.f.NewTFL(c.n.Name+"/pad", &ir.TFLOp{Builtin: schema.BuiltinOperatorPAD, Version: 1, Options: options(&schema.PadOptionsT{})},
			[]*ir.Value{x, pads}, ir.TypeShape{DType: x.DType, Shape: out})
		return pad.Outputs[0], schema.PaddingVALID, nil
	}
	return nil, 0, fmt.Errorf("padding %q is not SAME, VALID or EXPLICIT", padding)
}
