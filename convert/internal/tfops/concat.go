package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "ConcatV2", Outputs: "output:T", MinInputs: 2, Infer: inferConcat, Fold: foldConcat, Legalize: rule(legalizeConcat)})
	ir.RegisterOp(ir.OpRecord{Name: "Concat", Outputs: "output:T", MinInputs: 2, Infer: inferConcat, Fold: foldConcat, Legalize: rule(legalizeConcat)})
}

func concatAxis(n *ir.Node) (axisInput int, values []*ir.Value) {
	if n.Op == "Concat" {
		return 0, n.Inputs[1:]
	}
	return len(n.Inputs) - 1, n.Inputs[:len(n.Inputs)-1]
}

func inferConcat(n *ir.Node) error {
	if len(n.Inputs) < 2 {
		return fmt.Errorf("%s needs at least 2 inputs", n.Op)
	}
	ai, vals := concatAxis(n)
	for i, v := range n.Inputs {
		if v == nil {
			return fmt.Errorf("input %d is missing", i)
		}
	}
	axes, ok := constInts(n, ai)
	var rank = -1
	for _, v := range vals {
		if v.Shape != nil {
			rank = len(v.Shape)
		}
	}
	if !ok || len(axes) != 1 || rank < 0 {
		setOut(n, 0, vals[0].DType, nil)
		return nil
	}
	a, err := normAxis(axes[0], rank)
	if err != nil {
		return err
	}
	out := make(ir.Shape, rank)
	for i := range out {
		out[i] = -1
	}
	out[a] = 0
	for _, v := range vals {
		if v.Shape == nil {
			out[a] = -1
			continue
		}
		if len(v.Shape) != rank {
			return fmt.Errorf("%s inputs have ranks %d and %d", n.Op, rank, len(v.Shape))
		}
		for d := range out {
			if d == a {
				if out[a] >= 0 && v.Shape[d] >= 0 {
					out[a] += v.Shape[d]
				} else {
					out[a] = -1
				}
				continue
			}
			if out[d] < 0 {
				out[d] = v.Shape[d]
			} else if v.Shape[d] >= 0 && v.Shape[d] != out[d] {
				return fmt.Errorf("%s inputs differ in dimension %d: %d and %d", n.Op, d, out[d], v.Shape[d])
			}
		}
	}
	setOut(n, 0, vals[0].DType, out)
	return nil
}

func foldConcat(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out := n.Outputs[0].Shape
	if !out.Static() {
		return nil, nil
	}
	ai, _ := concatAxis(n)
	ax := in[ai].Ints()
	if len(ax) != 1 {
		return nil, fmt.Errorf("%s axis must be one value, got %v", n.Op, ax)
	}
	a, err := normAxis(ax[0], len(out))
	if err != nil {
		return nil, err
	}
	var ts []*ir.Tensor
	for i, t := range in {
		if i == ai {
			continue
		}
		if t.DType != n.Outputs[0].DType {
			return nil, fmt.Errorf("%s inputs have types %s and %s", n.Op, n.Outputs[0].DType, t.DType)
		}
		ts = append(ts, t)
	}
	return []*ir.Tensor{concatTensors(ts, a, out)}, nil
}

// concatTensors joins tensors along axis (all of one type, shapes equal
// except on axis).
func concatTensors(ts []*ir.Tensor, axis int, out ir.Shape) *ir.Tensor {
	count, _ := out.NumElements()
	outer := 1
	for _, d := range out[:axis] {
		outer *= d
	}
	inner := 1
	for _, d := range out[axis+1:] {
		inner *= d
	}
	type piece struct{ t, rows int }
	var pieces []piece
	for i, t := range ts {
		pieces = append(pieces, piece{i, t.Shape[axis]})
	}
	// element i of out: (o, a, r) -> which tensor and where
	rowOwner := make([]int, out[axis])
	rowLocal := make([]int, out[axis])
	k := 0
	for _, p := range pieces {
		for r := 0; r < p.rows; r++ {
			rowOwner[k], rowLocal[k] = p.t, r
			k++
		}
	}
	res := &ir.Tensor{DType: ts[0].DType, Shape: out.Clone()}
	sz := ts[0].DType.Size()
	if res.DType == ir.String {
		res.Strings = make([][]byte, count)
	} else {
		res.Data = make([]byte, count*sz)
	}
	i := 0
	for o := 0; o < outer; o++ {
		for a := 0; a < out[axis]; a++ {
			t := ts[rowOwner[a]]
			base := (o*t.Shape[axis] + rowLocal[a]) * inner
			if res.DType == ir.String {
				copy(res.Strings[i:i+inner], t.Strings[base:base+inner])
			} else {
				copy(res.Data[i*sz:(i+inner)*sz], t.Data[base*sz:(base+inner)*sz])
			}
			i += inner
		}
	}
	return res
}

func legalizeConcat(c *ctx) error {
	out, err := static(c.n.Outputs[0])
	if err != nil {
		return err
	}
	ai, vals := len(c.n.Inputs)-1, c.n.Inputs[:len(c.n.Inputs)-1]
	if c.n.Op == "Concat" {
		ai, vals = 0, c.n.Inputs[1:]
	}
	a, err := axisOf(c, ai, len(out))
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorCONCATENATION, &schema.ConcatenationOptionsT{Axis: int32(a)}, vals...)
}
