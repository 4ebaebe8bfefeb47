package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "MatMul", Outputs: "product:T", MinInputs: 2, Infer: inferMatMul, Fold: foldMatMul, Legalize: rule(legalizeMatMul)})
	ir.RegisterOp(ir.OpRecord{Name: "BatchMatMul", Outputs: "output:T", MinInputs: 2, Infer: inferMatMul, Fold: foldMatMul, Legalize: rule(legalizeBatchMatMul)})
	ir.RegisterOp(ir.OpRecord{Name: "BatchMatMulV2", Outputs: "output:T", MinInputs: 2, Infer: inferMatMul, Fold: foldMatMul, Legalize: rule(legalizeBatchMatMul)})
	ir.RegisterOp(ir.OpRecord{Name: "BatchMatMulV3", Outputs: "output:Tout", MinInputs: 2, Infer: inferMatMul, Fold: foldMatMul, Legalize: rule(legalizeBatchMatMul)})
}

// MatMulShape gives the output shape of MatMul/BatchMatMul with the
// transpose/adjoint flags applied.
func MatMulShape(n *ir.Node, a, b ir.Shape) (ir.Shape, error) {
	ta, tb := "transpose_a", "transpose_b"
	if n.Op != "MatMul" {
		ta, tb = "adj_x", "adj_y"
	}
	tA, err := n.AttrBool(ta, false)
	if err != nil {
		return nil, err
	}
	tB, err := n.AttrBool(tb, false)
	if err != nil {
		return nil, err
	}
	if a == nil || b == nil {
		return nil, nil
	}
	if len(a) < 2 || len(b) < 2 || (n.Op == "MatMul" && (len(a) != 2 || len(b) != 2)) {
		return nil, fmt.Errorf("%s operands have ranks %d and %d", n.Op, len(a), len(b))
	}
	m, ka := a[len(a)-2], a[len(a)-1]
	if tA {
		m, ka = ka, m
	}
	kb, p := b[len(b)-2], b[len(b)-1]
	if tB {
		kb, p = p, kb
	}
	if ka >= 0 && kb >= 0 && ka != kb {
		return nil, fmt.Errorf("%s inner dimensions differ: %s × %s", n.Op, a, b)
	}
	batch, err := BroadcastShape(a[:len(a)-2], b[:len(b)-2])
	if err != nil {
		return nil, err
	}
	if n.Op == "BatchMatMul" && len(a) != len(b) {
		return nil, fmt.Errorf("BatchMatMul operands have ranks %d and %d", len(a), len(b))
	}
	return append(batch, m, p), nil
}

func inferMatMul(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	s, err := MatMulShape(n, n.Inputs[0].Shape, n.Inputs[1].Shape)
	if err != nil {
		return err
	}
	dt := n.Inputs[0].DType
	if n.Op == "BatchMatMulV3" {
		if dt, err = n.AttrType("Tout"); err != nil {
			return err
		}
	}
	setOut(n, 0, dt, s)
	return nil
}

func foldMatMul(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	if n.Op != "MatMul" || !in[0].DType.IsFloat() || in[0].DType != in[1].DType {
		return nil, nil
	}
	tA, _ := n.AttrBool("transpose_a", false)
	tB, _ := n.AttrBool("transpose_b", false)
	a, b := in[0], in[1]
	var err error
	if tA {
		if a, err = Transpose(a, []int{1, 0}); err != nil {
			return nil, err
		}
	}
	if tB {
		if b, err = Transpose(b, []int{1, 0}); err != nil {
			return nil, err
		}
	}
	m, k, p := a.Shape[0], a.Shape[1], b.Shape[1]
	if b.Shape[0] != k {
		return nil, fmt.Errorf("MatMul inner dimensions differ: %s × %s", a.Shape, b.Shape)
	}
	if m*p > maxFoldElements(n) || m*k*p > 1<<28 {
		return nil, nil
	}
	av, bv := a.Float32s(), b.Float32s()
	out := make([]float64, m*p)
	for i := 0; i < m; i++ {
		for j := 0; j < p; j++ {
			var s float32
			for q := 0; q < k; q++ {
				s += av[i*k+q] * bv[q*p+j]
			}
			out[i*p+j] = float64(s)
		}
	}
	t, err := ir.FromFloat64s(a.DType, ir.Shape{m, p}, out)
	return []*ir.Tensor{t}, err
}

// legalizeMatMul: FULLY_CONNECTED computes input [m, k] × weights[n, k]ᵀ, so
// TensorFlow's b [k, n] is transposed (b with transpose_b is already
// [n, k]) and a with transpose_a gets a TRANSPOSE.
func legalizeMatMul(c *ctx) error {
	a, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	ta, err := c.n.AttrBool("transpose_a", false)
	if err != nil {
		return err
	}
	tb, err := c.n.AttrBool("transpose_b", false)
	if err != nil {
		return err
	}
	if !a.DType.IsFloat() {
		return fmt.Errorf("MatMul of %s is not supported (float only)", a.DType)
	}
	if ta {
		if a, err = c.transposed(a, []int{1, 0}, "transpose_a"); err != nil {
			return err
		}
	}
	if !tb {
		if b, err = c.transposed(b, []int{1, 0}, "weights"); err != nil {
			return err
		}
	}
	c.replace(c.emit(schema.BuiltinOperatorFULLY_CONNECTED, 1, &schema.FullyConnectedOptionsT{}, []*ir.Value{a, b, nil}, c.outs()...))
	return nil
}

// legalizeBatchMatMul: with a 2-D (or batch-1) constant right operand it is a
// FULLY_CONNECTED keeping the leading dimensions (as TensorFlow's
// converter does); otherwise BATCH_MATMUL.
func legalizeBatchMatMul(c *ctx) error {
	a, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	adjX, err := c.n.AttrBool("adj_x", false)
	if err != nil {
		return err
	}
	adjY, err := c.n.AttrBool("adj_y", false)
	if err != nil {
		return err
	}
	if !a.DType.IsFloat() || a.DType != b.DType {
		return fmt.Errorf("%s of %s × %s is not supported (float only)", c.n.Op, a.DType, b.DType)
	}
	if b.Const != nil && !adjX && a.Shape.Rank() >= 2 {
		w := b.Const
		batch := 1
		for _, d := range w.Shape[:len(w.Shape)-2] {
			batch *= d
		}
		if batch == 1 {
			k, n := w.Shape[len(w.Shape)-2], w.Shape[len(w.Shape)-1]
			w2, err := w.Reshaped(ir.Shape{k, n})
			if err != nil {
				return err
			}
			wv := c.f.NewConst(c.n.Name+"/weights_2d", w2)
			if !adjY {
				if wv, err = c.transposed(wv, []int{1, 0}, "weights"); err != nil {
					return err
				}
			} else if k != n {
				wv.Shape = ir.Shape{k, n}
			}
			c.replace(c.emit(schema.BuiltinOperatorFULLY_CONNECTED, 5, &schema.FullyConnectedOptionsT{KeepNumDims: true}, []*ir.Value{a, wv, nil}, c.outs()...))
			return nil
		}
	}
	c.replace(c.emit(schema.BuiltinOperatorBATCH_MATMUL, 1, &schema.BatchMatMulOptionsT{AdjX: adjX, AdjY: adjY}, []*ir.Value{a, b}, c.outs()...))
	return nil
}
