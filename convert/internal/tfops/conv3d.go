package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Conv3D and MaxPool3D (NDHWC only, SAME or VALID padding), as Keras's
// Conv3D and MaxPooling3D layers write them. Conv3D becomes TFLite's
// CONV_3D with a zero bias (the filter layout [D, H, W, in, out] is the
// same), as TensorFlow's converter does. MaxPool3D has no TFLite builtin
// (TensorFlow's converter writes a custom MaxPool3D); the maximum over a
// box is the maximum over depth of the maxima over height and width, so
// it becomes a MAX_POOL_2D over height and width ([N·D, H, W, C]) and a
// MAX_POOL_2D over depth ([N, D, H'·W'·C, 1], a window of kd × 1), with
// RESHAPEs between. Each dimension pads as TensorFlow pads it (SAME: the
// smaller half before), and padded cells take no part in a maximum in
// either, so the result is exactly TensorFlow's.
func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Conv3D", Outputs: "output:T", MinInputs: 2, Infer: inferConv3D, Legalize: rule(legalizeConv3D)})
	ir.RegisterOp(ir.OpRecord{Name: "MaxPool3D", Outputs: "output:T", MinInputs: 1, Infer: inferMaxPool3D, Legalize: rule(legalizeMaxPool3D)})
}

// window5 reads an NDHWC strides/dilations/ksize attribute: five values,
// the batch and channel entries 1.
func window5(n *ir.Node, name string, def []int64) ([3]int, error) {
	v, err := n.AttrInts(name, def)
	if err != nil {
		return [3]int{}, err
	}
	if len(v) != 5 || v[0] != 1 || v[4] != 1 {
		return [3]int{}, fmt.Errorf("%s %v: want 5 values with the batch and channel entries 1", name, v)
	}
	for _, x := range v[1:4] {
		if x <= 0 || x > 1<<20 {
			return [3]int{}, fmt.Errorf("%s %v: the spatial entries must be positive", name, v)
		}
	}
	return [3]int{int(v[1]), int(v[2]), int(v[3])}, nil
}

// ndhwc checks the data_format and padding of a 3-D op.
func ndhwc(n *ir.Node) (string, error) {
	if f, err := n.AttrString("data_format", "NDHWC"); err != nil {
		return "", err
	} else if f != "NDHWC" {
		return "", fmt.Errorf("data_format %q: only NDHWC converts", f)
	}
	padding, err := n.AttrString("padding", "")
	if err != nil {
		return "", err
	}
	if padding != "SAME" && padding != "VALID" {
		return "", fmt.Errorf("padding %q is not SAME or VALID", padding)
	}
	return padding, nil
}

// out3 is the output shape of a window k, stride s and dilation d over
// the spatial dimensions of x [N, D, H, W, C], with c channels.
func out3(x ir.Shape, k, s, d [3]int, padding string, c int) (ir.Shape, error) {
	out := ir.Shape{x[0], 0, 0, 0, c}
	for i := 0; i < 3; i++ {
		o, err := ConvOutSize(x[1+i], k[i], s[i], d[i], padding, 0, 0)
		if err != nil {
			return nil, err
		}
		out[1+i] = o
	}
	return out, nil
}

func inferConv3D(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	padding, err := ndhwc(n)
	if err != nil {
		return err
	}
	s, err := window5(n, "strides", nil)
	if err != nil {
		return err
	}
	d, err := window5(n, "dilations", []int64{1, 1, 1, 1, 1})
	if err != nil {
		return err
	}
	x, w := n.Inputs[0].Shape, n.Inputs[1].Shape
	if len(w) != 5 || !w.Static() {
		setOut(n, 0, n.Inputs[0].DType, ir.Shape{-1, -1, -1, -1, -1})
		return nil
	}
	if x == nil {
		setOut(n, 0, n.Inputs[0].DType, ir.Shape{-1, -1, -1, -1, w[4]})
		return nil
	}
	if len(x) != 5 {
		return fmt.Errorf("input must be 5-D NDHWC, has shape %s", x)
	}
	if x[4] >= 0 && x[4] != w[3] {
		return fmt.Errorf("input has %d channels, the filter %s takes %d", x[4], w, w[3])
	}
	out, err := out3(x, [3]int{w[0], w[1], w[2]}, s, d, padding, w[4])
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func legalizeConv3D(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	w, err := c.in(1)
	if err != nil {
		return err
	}
	padding, err := ndhwc(c.n)
	if err != nil {
		return err
	}
	s, err := window5(c.n, "strides", nil)
	if err != nil {
		return err
	}
	d, err := window5(c.n, "dilations", []int64{1, 1, 1, 1, 1})
	if err != nil {
		return err
	}
	ws, err := static(w)
	if err != nil {
		return err
	}
	if len(ws) != 5 {
		return fmt.Errorf("filter %q has shape %s, want [D, H, W, in, out]", w.Name, ws)
	}
	bias, err := c.zeroBias(x.DType, ws[4])
	if err != nil {
		return err
	}
	pad := schema.PaddingVALID
	if padding == "SAME" {
		pad = schema.PaddingSAME
	}
	opts := &schema.Conv3DOptionsT{Padding: pad, StrideD: int32(s[0]), StrideH: int32(s[1]), StrideW: int32(s[2]),
		DilationDFactor: int32(d[0]), DilationHFactor: int32(d[1]), DilationWFactor: int32(d[2])}
	return c.same(schema.BuiltinOperatorCONV_3D, opts, x, w, bias)
}

func inferMaxPool3D(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	padding, err := ndhwc(n)
	if err != nil {
		return err
	}
	k, err := window5(n, "ksize", nil)
	if err != nil {
		return err
	}
	s, err := window5(n, "strides", nil)
	if err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	if x == nil {
		setOut(n, 0, n.Inputs[0].DType, ir.Shape{-1, -1, -1, -1, -1})
		return nil
	}
	if len(x) != 5 {
		return fmt.Errorf("input must be 5-D NDHWC, has shape %s", x)
	}
	out, err := out3(x, k, s, [3]int{1, 1, 1}, padding, x[4])
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func legalizeMaxPool3D(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	padding, err := ndhwc(c.n)
	if err != nil {
		return err
	}
	k, err := window5(c.n, "ksize", nil)
	if err != nil {
		return err
	}
	s, err := window5(c.n, "strides", nil)
	if err != nil {
		return err
	}
	xs, err := static(x)
	if err != nil {
		return err
	}
	if len(xs) != 5 {
		return fmt.Errorf("input %q has shape %s, want 5-D NDHWC", x.Name, xs)
	}
	out, err := out3(xs, k, s, [3]int{1, 1, 1}, padding, xs[4])
	if err != nil {
		return err
	}
	pad := schema.PaddingVALID
	if padding == "SAME" {
		pad = schema.PaddingSAME
	}
	n, dd, h, w, ch := xs[0], xs[1], xs[2], xs[3], xs[4]
	oh, ow := out[2], out[3]
	pool := func(v *ir.Value, kh, kw, sh, sw int, shape ir.Shape, suffix string) *ir.Value {
		opts := &schema.Pool2DOptionsT{Padding: pad, FilterHeight: int32(kh), FilterWidth: int32(kw), StrideH: int32(sh), StrideW: int32(sw)}
		t := c.f.NewTFL(c.n.Name+"/"+suffix, &ir.TFLOp{Builtin: schema.BuiltinOperatorMAX_POOL_2D, Version: 1, Options: options(opts)},
			[]*ir.Value{v}, ir.TypeShape{DType: v.DType, Shape: shape})
		return t.Outputs[0]
	}
	// Height and width, each depth slice alone.
	v, err := c.reshaped(x, ir.Shape{n * dd, h, w, ch}, "slices")
	if err != nil {
		return err
	}
	v = pool(v, k[1], k[2], s[1], s[2], ir.Shape{n * dd, oh, ow, ch}, "hw")
	// Depth: a window of kd × 1 over [N, D, H'·W'·C, 1].
	if v, err = c.reshaped(v, ir.Shape{n, dd, oh * ow * ch, 1}, "columns"); err != nil {
		return err
	}
	v = pool(v, k[0], 1, s[0], 1, ir.Shape{n, out[1], oh * ow * ch, 1}, "d")
	if v, err = c.reshaped(v, out, "out"); err != nil {
		return err
	}
	o := c.n.Outputs[0]
	v.Name = o.Name
	c.f.ReplaceAllUses(o, v)
	return nil
}
