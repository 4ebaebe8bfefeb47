package tfops

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Einsum with two operands, as Keras's EinsumDense and MultiHeadAttention
// write it ("abc,cde->abde", "aecd,abcd->acbe", "acbe,aecd->abcd",
// "abcd,cde->abe"), is a batched matrix product: each label is a batch
// label (in both operands and the output), a contracted one (in both
// operands only) or a free one (in one operand and the output). The
// operands are transposed to [batch, free, contracted] and [batch,
// contracted, free], reshaped to three dimensions, multiplied by
// BATCH_MATMUL (FULLY_CONNECTED when there is no batch label and the
// right operand is a constant, as TensorFlow's converter writes a dense
// layer), and the product is reshaped and transposed to the output's
// order. Refused, naming the equation: ellipses, a label repeated in one
// operand (a diagonal), a label summed within one operand, sizes that
// differ, and other than two operands.
func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Einsum", Outputs: "output:T", MinInputs: 2, Infer: inferEinsum, Legalize: rule(legalizeEinsum)})
}

// einsumEq is a parsed two-operand equation.
type einsumEq struct {
	lhs, rhs, out string
}

func parseEinsum(n *ir.Node) (einsumEq, error) {
	eq, err := n.AttrString("equation", "")
	if err != nil {
		return einsumEq{}, err
	}
	if len(n.Inputs) != 2 {
		return einsumEq{}, fmt.Errorf("equation %q: Einsum of %d operands is not supported (two)", eq, len(n.Inputs))
	}
	e := strings.ReplaceAll(eq, " ", "")
	ins, out, ok := strings.Cut(e, "->")
	lhs, rhs, ok2 := strings.Cut(ins, ",")
	if !ok || !ok2 || strings.Contains(rhs, ",") {
		return einsumEq{}, fmt.Errorf("equation %q is not of the form \"lhs,rhs->out\"", eq)
	}
	if strings.Contains(e, ".") {
		return einsumEq{}, fmt.Errorf("equation %q: ellipses are not supported", eq)
	}
	for _, part := range []string{lhs, rhs, out} {
		seen := map[rune]bool{}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return einsumEq{}, fmt.Errorf("equation %q: %q is not a label", eq, r)
			}
			if seen[r] {
				return einsumEq{}, fmt.Errorf("equation %q: label %q repeats in %q (diagonals are not supported)", eq, r, part)
			}
			seen[r] = true
		}
	}
	for _, r := range out {
		if !strings.ContainsRune(lhs, r) && !strings.ContainsRune(rhs, r) {
			return einsumEq{}, fmt.Errorf("equation %q: output label %q is in no operand", eq, r)
		}
	}
	for _, side := range [2][2]string{{lhs, rhs}, {rhs, lhs}} {
		for _, r := range side[0] {
			if !strings.ContainsRune(side[1], r) && !strings.ContainsRune(out, r) {
				return einsumEq{}, fmt.Errorf("equation %q: label %q is summed within one operand, which is not supported", eq, r)
			}
		}
	}
	return einsumEq{lhs, rhs, out}, nil
}

// sizes maps each label to its size, checking the operands' ranks and
// that both give a shared label the same size (-1: unknown).
func (e einsumEq) sizes(a, b ir.Shape) (map[rune]int, error) {
	if len(a) != len(e.lhs) || len(b) != len(e.rhs) {
		return nil, fmt.Errorf("equation %s,%s->%s: operands of shapes %s and %s do not have ranks %d and %d", e.lhs, e.rhs, e.out, a, b, len(e.lhs), len(e.rhs))
	}
	size := map[rune]int{}
	for _, side := range []struct {
		labels string
		shape  ir.Shape
	}{{e.lhs, a}, {e.rhs, b}} {
		for i, r := range side.labels {
			d := side.shape[i]
			if old, ok := size[r]; ok && old >= 0 && d >= 0 && old != d {
				return nil, fmt.Errorf("equation %s,%s->%s: label %q has sizes %d and %d", e.lhs, e.rhs, e.out, r, old, d)
			}
			if old, ok := size[r]; !ok || old < 0 {
				size[r] = d
			}
		}
	}
	return size, nil
}

func inferEinsum(n *ir.Node) error {
	e, err := parseEinsum(n)
	if err != nil {
		return err
	}
	a, b := n.Inputs[0].Shape, n.Inputs[1].Shape
	if a == nil || b == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	size, err := e.sizes(a, b)
	if err != nil {
		return err
	}
	out := make(ir.Shape, len(e.out))
	for i, r := range e.out {
		out[i] = size[r]
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

// reshaped returns v reshaped to s: a constant when v is constant, else
// a RESHAPE (v itself when it already has that shape).
func (c *ctx) reshaped(v *ir.Value, s ir.Shape, suffix string) (*ir.Value, error) {
	if v.Shape.Equal(s) {
		return v, nil
	}
	if v.Const != nil {
		t, err := v.Const.Reshaped(s)
		if err != nil {
			return nil, err
		}
		return c.f.NewConst(c.n.Name+"/"+suffix, t), nil
	}
	sv, err := c.constInt32(suffix+"/shape", []int(s), ir.Shape{len(s)})
	if err != nil {
		return nil, err
	}
	t := c.f.NewTFL(c.n.Name+"/"+suffix, &ir.TFLOp{Builtin: schema.BuiltinOperatorRESHAPE, Version: 1, Options: options(&schema.ReshapeOptionsT{NewShape: int32s(s)})},
		[]*ir.Value{v, sv}, ir.TypeShape{DType: v.DType, Shape: s.Clone()})
	return t.Outputs[0], nil
}

// permutedTo returns v transposed so that its labels (from) come in the
// order to (v itself when they already do).
func (c *ctx) permutedTo(v *ir.Value, from, to, suffix string) (*ir.Value, error) {
	if from == to {
		return v, nil
	}
	perm := make([]int, len(to))
	for i, r := range to {
		perm[i] = strings.IndexRune(from, r)
	}
	return c.transposed(v, perm, suffix)
}

func legalizeEinsum(c *ctx) error {
	e, err := parseEinsum(c.n)
	if err != nil {
		return err
	}
	a, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	if a.DType != ir.Float32 || b.DType != ir.Float32 {
		return fmt.Errorf("Einsum of %s × %s is not supported (float32)", a.DType, b.DType)
	}
	sa, err := static(a)
	if err != nil {
		return err
	}
	sb, err := static(b)
	if err != nil {
		return err
	}
	size, err := e.sizes(sa, sb)
	if err != nil {
		return err
	}
	var batch, freeL, freeR, contract string
	for _, r := range e.out {
		inL, inR := strings.ContainsRune(e.lhs, r), strings.ContainsRune(e.rhs, r)
		switch {
		case inL && inR:
			batch += string(r)
		case inL:
			freeL += string(r)
		default:
			freeR += string(r)
		}
	}
	for _, r := range e.lhs {
		if strings.ContainsRune(e.rhs, r) && !strings.ContainsRune(e.out, r) {
			contract += string(r)
		}
	}
	prod := func(labels string) int {
		p := 1
		for _, r := range labels {
			p *= size[r]
		}
		return p
	}
	dims := func(labels string) ir.Shape {
		s := ir.Shape{}
		for _, r := range labels {
			s = append(s, size[r])
		}
		return s
	}
	B, M, K, N := prod(batch), prod(freeL), prod(contract), prod(freeR)
	if a, err = c.permutedTo(a, e.lhs, batch+freeL+contract, "lhs_transposed"); err != nil {
		return err
	}
	var y *ir.Value
	if batch == "" && b.Const != nil {
		// A dense layer: [M, K] × constant weights, which
		// FULLY_CONNECTED takes as [N, K].
		if b, err = c.permutedTo(b, e.rhs, freeR+contract, "weights"); err != nil {
			return err
		}
		if b, err = c.reshaped(b, ir.Shape{N, K}, "weights_2d"); err != nil {
			return err
		}
		if a, err = c.reshaped(a, ir.Shape{M, K}, "lhs_2d"); err != nil {
			return err
		}
		y = c.f.NewTFL(c.n.Name+"/matmul", &ir.TFLOp{Builtin: schema.BuiltinOperatorFULLY_CONNECTED, Version: 1, Options: options(&schema.FullyConnectedOptionsT{})},
			[]*ir.Value{a, b, nil}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{M, N}}).Outputs[0]
	} else {
		if b, err = c.permutedTo(b, e.rhs, batch+contract+freeR, "rhs_transposed"); err != nil {
			return err
		}
		if a, err = c.reshaped(a, ir.Shape{B, M, K}, "lhs_3d"); err != nil {
			return err
		}
		if b, err = c.reshaped(b, ir.Shape{B, K, N}, "rhs_3d"); err != nil {
			return err
		}
		y = c.f.NewTFL(c.n.Name+"/matmul", &ir.TFLOp{Builtin: schema.BuiltinOperatorBATCH_MATMUL, Version: 1, Options: options(&schema.BatchMatMulOptionsT{})},
			[]*ir.Value{a, b}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{B, M, N}}).Outputs[0]
	}
	if y, err = c.reshaped(y, dims(batch+freeL+freeR), "product"); err != nil {
		return err
	}
	if y, err = c.permutedTo(y, batch+freeL+freeR, e.out, "output"); err != nil {
		return err
	}
	// The node's users take y, under the node's name.
	y.Name = c.n.Outputs[0].Name
	c.f.ReplaceAllUses(c.n.Outputs[0], y)
	return nil
}
