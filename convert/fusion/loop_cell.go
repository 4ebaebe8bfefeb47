package fusion

import (
	"github.com/tflrun/tflrun/convert/ir"
)

// The loop rules for LSTM and GRU layers that carry no annotation (a
// non-default activation, recurrent_dropout, Keras 3, TF1 graphs) find the
// cell's weights in the loop body by its structure: the matrix products of
// the step input and of a state by constant kernels, and the constant
// vectors added to them. Keras writes a cell in two ways:
//
//   - implementation=2 (the default): one product of the input by the
//     whole kernel [n_input, gates·units], one of the state by the whole
//     recurrent kernel (a GRU without reset_after: [units, 2·units] for
//     the gates, and [units, units] of r⊙h for the candidate), and one
//     bias, added to the input product, the recurrent product or their
//     sum;
//   - implementation=1 (forced by recurrent_dropout in Keras 2): one
//     product per gate with the kernel's column block [n_input, units],
//     the state multiplied by a dropout mask first (all ones at
//     inference), each product with its own bias block.
//
// Per-gate products are paired (input and recurrent product of one gate)
// by the addition that joins them; which gate a pair is follows from
// evaluating the body, so the rules try the gate orders and keep the one
// that reproduces the loop body exactly (see lstmCandidates).

// cellProduct is one matrix product of the loop body by a constant kernel.
type cellProduct struct {
	node   *ir.Node
	kernel *ir.Tensor // [rows, cols]
	// src is what the product multiplies: srcInput (the step input), a
	// state (its index in loopInfo.states), or srcComputed (a value
	// computed from the states, such as a GRU's r⊙h).
	src int
	// bias is a constant vector [cols] added to the product itself (nil:
	// none).
	bias *ir.Tensor
	// partner is the product of the other kind (input or recurrent)
	// this one is added to, when an addition joins them directly.
	partner *cellProduct
}

const (
	srcInput    = -1
	srcComputed = -2
)

// cellStructure is what the loop body multiplies and adds.
type cellStructure struct {
	in, rec []*cellProduct
	// sumBias is a constant vector added to the sum of an input and a
	// recurrent product (Keras 2's bias_add(x·W + h·R, b)); nil: none.
	sumBias *ir.Tensor
	// scalars are the float scalar constants the body adds to something
	// (candidates for TF1's forget_bias).
	scalars []float64
}

// cellProducts finds the constant-kernel products of L's body. It returns
// nil when the body multiplies the step input by no constant kernel.
func (L *loopInfo) cellProducts() *cellStructure {
	cs := &cellStructure{}
	byNode := map[*ir.Node]*cellProduct{}
	for _, n := range L.body.Nodes {
		if n.Op != "MatMul" || len(n.Inputs) != 2 || n.Inputs[0] == nil || n.Inputs[1] == nil {
			continue
		}
		k := n.Inputs[1].Const
		if k == nil || k.Shape.Rank() != 2 || !k.DType.IsFloat() {
			continue
		}
		if ta, _ := n.AttrBool("transpose_a", false); ta {
			continue
		}
		if tb, _ := n.AttrBool("transpose_b", false); tb {
			continue
		}
		p := &cellProduct{node: n, kernel: k, src: L.productSource(n.Inputs[0])}
		if in, rec := L.splitConcatProduct(n, k); in != nil {
			// TF1's cells: [x, h]·kernel, one product of both operands.
			byNode[n] = in
			cs.in, cs.rec = append(cs.in, in), append(cs.rec, rec)
			continue
		}
		byNode[n] = p
		if p.src == srcInput {
			cs.in = append(cs.in, p)
		} else {
			cs.rec = append(cs.rec, p)
		}
	}
	if len(cs.in) == 0 {
		return nil
	}
	for _, n := range L.body.Nodes {
		if !addOps[n.Op] || len(n.Inputs) != 2 || n.Inputs[0] == nil || n.Inputs[1] == nil {
			continue
		}
		// A bias: a constant vector added to a product or to a sum.
		for j := 0; j < 2; j++ {
			c := n.Inputs[1-j].Const
			if c == nil || c.Shape.Rank() != 1 || n.Op == "BiasAdd" && j == 1 {
				continue
			}
			other := throughIdentities(n.Inputs[j])
			if other.Producer == nil {
				continue
			}
			if p := byNode[other.Producer]; p != nil && p.bias == nil && c.Shape[0] == p.kernel.Shape[1] {
				p.bias = c
			} else if addOps[other.Producer.Op] && cs.sumBias == nil {
				cs.sumBias = c
			}
		}
		// A scalar added (TF1's forget_bias).
		for j := 0; j < 2; j++ {
			if c := n.Inputs[j].Const; c != nil && c.NumElements() == 1 && c.DType.IsFloat() && n.Op != "BiasAdd" {
				cs.scalars = append(cs.scalars, c.Float64s()[0])
			}
		}
		// A join of an input product and a recurrent product.
		a, b := productBehind(n.Inputs[0], byNode), productBehind(n.Inputs[1], byNode)
		if a == nil || b == nil || (a.src == srcInput) == (b.src == srcInput) {
			continue
		}
		if a.partner == nil && b.partner == nil {
			a.partner, b.partner = b, a
		}
	}
	return cs
}

// splitConcatProduct splits a product of ConcatV2(x, s) along the
// features (TF1's rnn cells: [x, h]·kernel, the kernel [n_input+units,
// cols]) into an input product (the kernel's first n_input rows) and a
// recurrent one, partners of each other. It returns nils for any other
// product.
func (L *loopInfo) splitConcatProduct(n *ir.Node, k *ir.Tensor) (in, rec *cellProduct) {
	c := throughIdentities(n.Inputs[0]).Producer
	if c == nil || c.Op != "ConcatV2" || len(c.Inputs) != 3 || c.Inputs[0] == nil || c.Inputs[1] == nil || c.Inputs[2] == nil {
		return nil, nil
	}
	ax := c.Inputs[2].Const
	if ax == nil || ax.NumElements() != 1 || ax.Ints()[0] != 1 && ax.Ints()[0] != -1 {
		return nil, nil
	}
	a, b := c.Inputs[0], c.Inputs[1]
	if L.productSource(a) != srcInput || L.productSource(b) == srcInput {
		return nil, nil
	}
	// The element read has the sequence's feature count (a TensorArray
	// read carries no static shape of its own).
	na, cols := L.nIn, k.Shape[1]
	if k.Shape[0] <= na || b.Shape.Rank() == 2 && b.Shape[1] >= 0 && b.Shape[1] != k.Shape[0]-na {
		return nil, nil
	}
	v := k.Float64s()
	top, _ := ir.FromFloat64s(k.DType, ir.Shape{na, cols}, v[:na*cols])
	bottom, _ := ir.FromFloat64s(k.DType, ir.Shape{k.Shape[0] - na, cols}, v[na*cols:])
	in = &cellProduct{node: n, kernel: top, src: srcInput}
	rec = &cellProduct{node: n, kernel: bottom, src: L.productSource(b)}
	in.partner, rec.partner = rec, in
	return in, rec
}

// colBlock returns columns [c0, c0+n) of a rank-2 tensor.
func colBlock(t *ir.Tensor, c0, n int) *ir.Tensor {
	rows, cols := t.Shape[0], t.Shape[1]
	v := t.Float64s()
	out := make([]float64, rows*n)
	for r := 0; r < rows; r++ {
		copy(out[r*n:(r+1)*n], v[r*cols+c0:r*cols+c0+n])
	}
	b, _ := ir.FromFloat64s(ir.Float64, ir.Shape{rows, n}, out)
	return b
}

// vecPart returns elements [c0, c0+n) of a vector (nil for nil).
func vecPart(t *ir.Tensor, c0, n int) *ir.Tensor {
	if t == nil {
		return nil
	}
	b, _ := ir.FromFloat64s(ir.Float64, ir.Shape{n}, t.Float64s()[c0:c0+n])
	return b
}

// addOps are the ops that add a bias or join two products.
var addOps = map[string]bool{"BiasAdd": true, "Add": true, "AddV2": true}

// productBehind follows v back through identities and constant additions
// (a bias) to a product of byNode, or returns nil.
func productBehind(v *ir.Value, byNode map[*ir.Node]*cellProduct) *cellProduct {
	for k := 0; k < 8 && v != nil; k++ {
		v = throughIdentities(v)
		p := v.Producer
		if p == nil {
			return nil
		}
		if cp := byNode[p]; cp != nil {
			return cp
		}
		if !addOps[p.Op] || len(p.Inputs) != 2 || p.Inputs[0] == nil || p.Inputs[1] == nil {
			return nil
		}
		switch {
		case p.Inputs[1].Const != nil:
			v = p.Inputs[0]
		case p.Inputs[0].Const != nil && p.Op != "BiasAdd":
			v = p.Inputs[1]
		default:
			return nil
		}
	}
	return nil
}

// productSource says what the left operand of a product is: the step
// input, a state, or something computed. It looks through identities and
// multiplications by all-ones masks (Keras's dropout masks at inference).
func (L *loopInfo) productSource(v *ir.Value) int {
	for k := 0; k < 16 && v != nil; k++ {
		v = throughIdentities(v)
		if v == L.read {
			return srcInput
		}
		for j, i := range L.states {
			if v == L.body.Params[i] {
				return j
			}
		}
		p := v.Producer
		if p == nil || p.Op != "Mul" || len(p.Inputs) != 2 {
			return srcComputed
		}
		switch {
		case isOnes(p.Inputs[1]):
			v = p.Inputs[0]
		case isOnes(p.Inputs[0]):
			v = p.Inputs[1]
		default:
			return srcComputed
		}
	}
	return srcComputed
}

// isOnes reports whether v is a constant of ones or OnesLike of
// something.
func isOnes(v *ir.Value) bool {
	if v == nil {
		return false
	}
	if v.Producer != nil && v.Producer.Op == "OnesLike" {
		return true
	}
	if v.Const == nil || !v.Const.DType.IsFloat() {
		return false
	}
	for _, x := range v.Const.Float64s() {
		if x != 1 {
			return false
		}
	}
	return true
}

// concatCols joins row-major matrices with equal row counts side by side.
func concatCols(blocks ...*ir.Tensor) []float64 {
	rows := blocks[0].Shape[0]
	cols := 0
	for _, b := range blocks {
		cols += b.Shape[1]
	}
	out := make([]float64, rows*cols)
	c0 := 0
	for _, b := range blocks {
		w, v := b.Shape[1], b.Float64s()
		for r := 0; r < rows; r++ {
			copy(out[r*cols+c0:r*cols+c0+w], v[r*w:(r+1)*w])
		}
		c0 += w
	}
	return out
}

// concatVecs joins vectors; a nil block is zeros of width n. It returns
// nil when every block is nil.
func concatVecs(n int, blocks ...*ir.Tensor) []float64 {
	some := false
	var out []float64
	for _, b := range blocks {
		if b == nil {
			out = append(out, make([]float64, n)...)
			continue
		}
		some = true
		out = append(out, b.Float64s()...)
	}
	if !some {
		return nil
	}
	return out
}

// permutations returns every ordering of 0..n-1 (the identity first).
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for pos := len(p); pos >= 0; pos-- {
			q := make([]int, 0, n)
			q = append(q, p[:pos]...)
			q = append(q, n-1)
			q = append(q, p[pos:]...)
			out = append(out, q)
		}
	}
	return out
}
