package builtin

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// The vectors of TFLite's embedding_lookup_sparse_test.cc: a [4, 3, 2]
// table with value i + j/10 + k/100, lookups {1, 3, 0} at indices
// {0,0}, {2,0}, {2,1} (or 3-D {0,0,0}, {2,0,0}, {2,0,1}) with weights 1, 2, 4.

func sparseTable() *ops.Tensor {
	v := make([]float32, 4*3*2)
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 2; k++ {
				v[(i*3+j)*2+k] = float32(i) + float32(j)/10 + float32(k)/100
			}
		}
	}
	return constT(tensorOf(ops.Float32, []int{4, 3, 2}, v))
}

func sparseNode(c schema.CombinerType, indices []int32, rank int, dense []int32, constDense bool) *ops.Node {
	d := tensorOf(ops.Int32, []int{len(dense)}, dense)
	if constDense {
		constT(d)
	}
	return node(&EmbeddingLookupSparseOptions{Combiner: c}, []*ops.Tensor{
		tensorOf(ops.Int32, []int{3}, []int32{1, 3, 0}),
		tensorOf(ops.Int32, []int{3, rank}, indices),
		d,
		tensorOf(ops.Float32, []int{3}, []float32{1, 2, 4}),
		sparseTable(),
	}, outTensor(ops.Float32))
}

func TestEmbeddingLookupSparseTFLiteVectors(t *testing.T) {
	row1 := []float64{1.00, 1.01, 1.10, 1.11, 1.20, 1.21}
	zero := []float64{0, 0, 0, 0, 0, 0}
	sum := []float64{6.00, 6.06, 6.60, 6.66, 7.20, 7.26}
	sqrt20 := math.Sqrt(20)
	sqrtn := make([]float64, 6)
	for i, v := range sum {
		sqrtn[i] = v / sqrt20
	}
	cat := func(parts ...[]float64) []float64 {
		var out []float64
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		c    schema.CombinerType
		want []float64
	}{
		{"SUM", schema.CombinerTypeSUM, cat(row1, zero, sum)},
		{"MEAN", schema.CombinerTypeMEAN, cat(row1, zero, row1)},
		{"SQRTN", schema.CombinerTypeSQRTN, cat(row1, zero, sqrtn)},
	} {
		for _, constDense := range []bool{true, false} {
			n := sparseNode(tc.c, []int32{0, 0, 2, 0, 2, 1}, 2, []int32{3, 2}, constDense)
			k := NewEmbeddingLookupSparse()
			run(t, k, n)
			if !constDense {
				// The output is sized at Eval (run prepares the node
				// again at its end).
				if err := k.Eval(n); err != nil {
					t.Fatal(err)
				}
			}
			wantShape(t, n.Outputs[0].Shape, []int{3, 3, 2})
			nearFloats(t, tc.name, n.Outputs[0].Float32s(), tc.want, 1e-6)
			noAllocs(t, k, n)
		}
	}
	// Indices3DTest: dense shape [3, 2, 2], output [3, 2, 3, 2].
	n := sparseNode(schema.CombinerTypeSUM, []int32{0, 0, 0, 2, 0, 0, 2, 0, 1}, 3, []int32{3, 2, 2}, true)
	run(t, NewEmbeddingLookupSparse(), n)
	wantShape(t, n.Outputs[0].Shape, []int{3, 2, 3, 2})
	want := make([]float64, 36)
	copy(want, row1)
	copy(want[24:], sum)
	nearFloats(t, "3-D", n.Outputs[0].Float32s(), want, 1e-6)
}

// TestEmbeddingLookupSparseOrder checks the float32 arithmetic exactly:
// each product rounded before it is added, in lookup order, and the MEAN
// divisor summed in float32.
func TestEmbeddingLookupSparseOrder(t *testing.T) {
	n := sparseNode(schema.CombinerTypeMEAN, []int32{1, 0, 1, 0, 1, 1}, 2, []int32{2, 2}, true)
	n.Inputs[3] = tensorOf(ops.Float32, []int{3}, []float32{0.1, 0.7, 1.3})
	run(t, NewEmbeddingLookupSparse(), n)
	o := n.Outputs[0].Float32s()
	tab := n.Inputs[4].Float32s()
	w := []float32{0.1, 0.7, 1.3}
	// Every lookup goes to position 1 (elements 6…11).
	for j := 0; j < 6; j++ {
		s := float32(0)
		for i, id := range []int{1, 3, 0} {
			s += float32(tab[id*6+j] * w[i])
		}
		if want := s / (w[0] + w[1] + w[2]); o[6+j] != want {
			t.Fatalf("element %d = %v, want %v", 6+j, o[6+j], want)
		}
	}
	for j := 0; j < 6; j++ {
		if o[j] != 0 {
			t.Fatalf("unreached position: element %d = %v", j, o[j])
		}
	}
}

func TestEmbeddingLookupSparseErrors(t *testing.T) {
	// An id outside the table, and an index outside dense_shape, at Eval.
	n := sparseNode(schema.CombinerTypeSUM, []int32{0, 0, 2, 0, 2, 1}, 2, []int32{3, 2}, true)
	n.Inputs[0] = tensorOf(ops.Int32, []int{3}, []int32{1, 4, 0})
	wantEvalError(t, NewEmbeddingLookupSparse(), n, "id 4", "4 rows")
	n = sparseNode(schema.CombinerTypeSUM, []int32{0, 0, 3, 0, 2, 1}, 2, []int32{3, 2}, true)
	wantEvalError(t, NewEmbeddingLookupSparse(), n, "index 3", "dense_shape 3")
	n = sparseNode(schema.CombinerTypeSUM, []int32{0, 0, 2, 0, 2, 1}, 2, []int32{-3, 2}, false)
	wantEvalError(t, NewEmbeddingLookupSparse(), n, "dense_shape", "-3")
	// Prepare: types, ranks, sizes, combiner.
	n = sparseNode(schema.CombinerTypeSUM, []int32{0, 0, 2, 0, 2, 1}, 2, []int32{3, 2, 1}, true)
	wantPrepareError(t, NewEmbeddingLookupSparse(), n, "dense_shape", "3 entries")
	n = sparseNode(schema.CombinerType(5), []int32{0, 0, 2, 0, 2, 1}, 2, []int32{3, 2}, true)
	wantPrepareError(t, NewEmbeddingLookupSparse(), n, "combiner 5")
	n = sparseNode(schema.CombinerTypeSUM, []int32{0, 0, 2, 0, 2, 1}, 2, []int32{3, 2}, true)
	n.Inputs[3] = tensorOf(ops.Float32, []int{2}, []float32{1, 2})
	wantPrepareError(t, NewEmbeddingLookupSparse(), n, "2 weights")
	n = sparseNode(schema.CombinerTypeSUM, []int32{0, 0, 2, 0, 2, 1}, 2, []int32{3, 2}, true)
	n.Inputs[4] = constT(tensorOf(ops.Float32, []int{4}, []float32{1, 2, 3, 4}))
	wantPrepareError(t, NewEmbeddingLookupSparse(), n, "input 4 (value)", "rank")
	n = sparseNode(schema.CombinerTypeSUM, []int32{0, 0, 2, 0, 2, 1}, 2, []int32{1 << 30, 1 << 30}, true)
	wantPrepareError(t, NewEmbeddingLookupSparse(), n, "output 0")
}

// wantEvalError prepares n and checks that Eval fails with a message
// containing every fragment.
func wantEvalError(t *testing.T, k ops.Kernel, n *ops.Node, fragments ...string) {
	t.Helper()
	if err := prepare(k, n); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	err := k.Eval(n)
	if err == nil {
		t.Fatalf("Eval succeeded, want error containing %q", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("Eval error %q does not contain %q", err, f)
		}
	}
}
