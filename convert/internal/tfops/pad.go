package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Pad", Outputs: "output:T", MinInputs: 2, Infer: inferPad, Fold: foldPad, Legalize: rule(legalizePad)})
	ir.RegisterOp(ir.OpRecord{Name: "PadV2", Outputs: "output:T", MinInputs: 3, Infer: inferPad, Fold: foldPad, Legalize: rule(legalizePad)})
	ir.RegisterOp(ir.OpRecord{Name: "MirrorPad", Outputs: "output:T", MinInputs: 2, Infer: inferPad, Fold: foldPad, Legalize: rule(legalizePad)})
}

func padArgs(n *ir.Node) ([][2]int, bool, error) {
	s := n.Inputs[0].Shape
	p := n.Inputs[1]
	if p.Const == nil || s == nil {
		return nil, false, nil
	}
	v := p.Const.Ints()
	if len(v) != 2*len(s) {
		return nil, false, fmt.Errorf("paddings %s do not match rank %d", p.Const.Shape, len(s))
	}
	out := make([][2]int, len(s))
	for i := range out {
		out[i] = [2]int{v[2*i], v[2*i+1]}
		if out[i][0] < 0 || out[i][1] < 0 {
			return nil, false, fmt.Errorf("paddings %v are negative", v)
		}
	}
	return out, true, nil
}

func inferPad(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	pads, ok, err := padArgs(n)
	if err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	if !ok {
		var out ir.Shape
		if s != nil {
			out = make(ir.Shape, len(s))
			for i := range out {
				out[i] = -1
			}
		}
		setOut(n, 0, n.Inputs[0].DType, out)
		return nil
	}
	out := make(ir.Shape, len(s))
	for i := range s {
		out[i] = -1
		if s[i] >= 0 {
			out[i] = s[i] + pads[i][0] + pads[i][1]
		}
	}
	if err := checkElements(n, out); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func foldPad(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	if n.Op == "MirrorPad" {
		return nil, nil
	}
	pads, ok, err := padArgs(n)
	if err != nil || !ok {
		return nil, err
	}
	t := in[0]
	out := n.Outputs[0].Shape
	count, ok := out.NumElements()
	if !ok || count > maxFoldElements(n) || t.DType == ir.String {
		return nil, nil
	}
	var fill *ir.Tensor
	if n.Op == "PadV2" && len(in) > 2 {
		fill = in[2]
	} else {
		fill = &ir.Tensor{DType: t.DType, Shape: ir.Scalar(), Data: make([]byte, t.DType.Size())}
	}
	if fill.DType != t.DType || fill.NumElements() != 1 {
		return nil, fmt.Errorf("pad value must be a %s scalar", t.DType)
	}
	st := strides(t.Shape)
	sz := t.DType.Size()
	r := &ir.Tensor{DType: t.DType, Shape: out.Clone(), Data: make([]byte, count*sz)}
	for i := 0; i < count; i++ {
		k, rem, inside := 0, i, true
		for d := len(out) - 1; d >= 0; d-- {
			c := rem%out[d] - pads[d][0]
			rem /= out[d]
			if c < 0 || c >= t.Shape[d] {
				inside = false
				break
			}
			k += c * st[d]
		}
		if inside {
			copy(r.Data[i*sz:(i+1)*sz], t.Data[k*sz:(k+1)*sz])
		} else {
			copy(r.Data[i*sz:(i+1)*sz], fill.Data[:sz])
		}
	}
	return []*ir.Tensor{r}, nil
}

func legalizePad(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	p, err := c.asInt32(1, "paddings")
	if err != nil {
		return err
	}
	switch c.n.Op {
	case "Pad":
		return c.same(schema.BuiltinOperatorPAD, &schema.PadOptionsT{}, x, p)
	case "PadV2":
		v, err := c.in(2)
		if err != nil {
			return err
		}
		return c.same(schema.BuiltinOperatorPADV2, &schema.PadV2OptionsT{}, x, p, v)
	}
	mode, err := c.n.AttrString("mode", "REFLECT")
	if err != nil {
		return err
	}
	m := schema.MirrorPadModeREFLECT
	switch mode {
	case "REFLECT":
	case "SYMMETRIC":
		m = schema.MirrorPadModeSYMMETRIC
	default:
		return fmt.Errorf("mirror pad mode %q is not REFLECT or SYMMETRIC", mode)
	}
	return c.same(schema.BuiltinOperatorMIRROR_PAD, &schema.MirrorPadOptionsT{Mode: m}, x, p)
}
