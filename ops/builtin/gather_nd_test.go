package builtin

import (
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of GATHER_ND: TFLite's kernel test vectors, random shapes against
// the definition for every params and index type, run-time index errors,
// and the nodes Prepare refuses.

func TestGatherNDTFLiteVectors(t *testing.T) {
	params := tensorOf(ops.Float32, []int{3, 2, 3}, []float32{1.1, -1.2, 1.3, -2.1, 2.2, 2.3,
		3.1, 3.2, -3.3, -4.1, -4.2, 4.3, 5.1, -5.2, 5.3, 6.1, -6.2, 6.3})
	n := node(nil, []*ops.Tensor{params, tensorOf(ops.Int32, []int{1, 2, 3}, []int32{0, 0, 1, 1, 1, 0})}, outTensor(ops.Float32))
	k := NewGatherND()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{1, 2})
	if got := n.Outputs[0].Float32s(); !slices.Equal(got, []float32{-1.2, -4.1}) {
		t.Fatalf("ElementIndexingIntoRank3Tensor: %v", got)
	}
	noAllocs(t, k, n)
	// SliceIndexingIntoRank3Tensor: indices [2, 1] pick whole [2, 3] slices.
	n = node(nil, []*ops.Tensor{params, tensorOf(ops.Int32, []int{2, 1}, []int32{0, 2})}, outTensor(ops.Float32))
	run(t, NewGatherND(), n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 2, 3})
	if got := n.Outputs[0].Float32s(); !slices.Equal(got, []float32{1.1, -1.2, 1.3, -2.1, 2.2, 2.3, 5.1, -5.2, 5.3, 6.1, -6.2, 6.3}) {
		t.Fatalf("SliceIndexingIntoRank3Tensor: %v", got)
	}
}

// indexTensor makes an index tensor of type typ holding vals.
func indexTensor(typ ops.DataType, shape []int, vals []int64) *ops.Tensor {
	switch typ {
	case ops.Int16:
		v := make([]int16, len(vals))
		for i, x := range vals {
			v[i] = int16(x)
		}
		return tensorOf(typ, shape, v)
	case ops.Int32:
		v := make([]int32, len(vals))
		for i, x := range vals {
			v[i] = int32(x)
		}
		return tensorOf(typ, shape, v)
	}
	return tensorOf(typ, shape, vals)
}

func TestGatherNDAgainstDefinition(t *testing.T) {
	r := lcg(41)
	ptypes := []ops.DataType{ops.Float32, ops.Float16, ops.BFloat16, ops.Uint8, ops.Int8, ops.Int16, ops.Int32, ops.Int64, ops.Bool}
	itypes := []ops.DataType{ops.Int16, ops.Int32, ops.Int64}
	for trial := 0; trial < 300; trial++ {
		pt, it := ptypes[trial%len(ptypes)], itypes[trial%len(itypes)]
		prank := r.intn(1, 4)
		pshape := make([]int, prank)
		for i := range pshape {
			pshape[i] = r.intn(1, 4)
		}
		nd := r.intn(0, prank)
		ishape := []int{}
		for i := r.intn(0, 2); i > 0; i-- {
			ishape = append(ishape, r.intn(0, 3))
		}
		ishape = append(ishape, nd)
		nIdx := prod(ishape)
		idx := make([]int64, nIdx)
		for i := range idx {
			idx[i] = int64(r.intn(0, pshape[i%max(nd, 1)]-1))
		}
		raw := make([]byte, prod(pshape)*pt.Size())
		for i := range raw {
			raw[i] = byte(r.next())
		}
		n := node(nil, []*ops.Tensor{tensorOf(pt, pshape, raw), indexTensor(it, ishape, idx)}, outTensor(pt))
		k := NewGatherND()
		if nd == 0 && prod(ishape[:len(ishape)-1]) > 0 {
			// Rows of 0 coordinates: TFLite refuses them (see
			// TestGatherNDIndexErrors).
			if err := prepare(k, n); err != nil {
				t.Fatal(err)
			}
			if err := k.Eval(n); err == nil {
				t.Fatalf("params %v, indices %v: Eval succeeded, TFLite refuses nd 0", pshape, ishape)
			}
			continue
		}
		run(t, k, n)
		outShape := append(append([]int{}, ishape[:len(ishape)-1]...), pshape[nd:]...)
		wantShape(t, n.Outputs[0].Shape, outShape)
		slice := prod(pshape[nd:]) * pt.Size()
		var want []byte
		for s := 0; s < prod(ishape[:len(ishape)-1]); s++ {
			off := 0
			for j := 0; j < nd; j++ {
				off = off*pshape[j] + int(idx[s*nd+j])
			}
			off *= slice
			want = append(want, raw[off:off+slice]...)
		}
		if got := n.Outputs[0].Data[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("%s params %v, %s indices %v = %v: got %v want %v", pt, pshape, it, ishape, idx, got, want)
		}
		noAllocs(t, k, n)
	}
}

func TestGatherNDIndexErrors(t *testing.T) {
	params := tensorOf(ops.Float32, []int{2, 2}, []float32{1.1, 1.2, 2.1, 2.2})
	for _, c := range []struct {
		name string
		idx  []int32
		want string
	}{
		{"too large row", []int32{0, 0, 2, 0}, "element 2 is 2, outside [0, 2) of params dimension 0"},
		{"too large column", []int32{0, 0, 1, 2}, "element 3 is 2"},
		{"negative", []int32{1, -1, 1, 1}, "element 1 is -1"},
		// TFLite checks the sign of every index before any bound.
		{"negative after a large one", []int32{5, 0, 0, -3}, "element 3 is -3"},
	} {
		n := node(nil, []*ops.Tensor{params, tensorOf(ops.Int32, []int{2, 2}, c.idx)}, outTensor(ops.Float32))
		k := NewGatherND()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		err := k.Eval(n)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Eval error %v, want %q", c.name, err, c.want)
		}
	}
	// Empty params with indices: TFLite's Eval refuses it.
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{0, 2}, []float32{}), tensorOf(ops.Int32, []int{1, 1}, []int32{0})}, outTensor(ops.Float32))
	k := NewGatherND()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty params: %v", err)
	}
	// Rows of 0 coordinates (nd 0) with slices to gather: TFLite's kernel
	// finds no index data and fails (recorded with tflite_ref).
	n = node(nil, []*ops.Tensor{params, tensorOf(ops.Int32, []int{3, 0}, []int32{})}, outTensor(ops.Float32))
	k = NewGatherND()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	wantShape(t, n.Outputs[0].Shape, []int{3, 2, 2})
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "input 1 (indices): rows of 0 coordinates") {
		t.Errorf("nd 0: %v", err)
	}
	// No slices at all is fine, whatever nd.
	n = node(nil, []*ops.Tensor{params, tensorOf(ops.Int32, []int{0, 0}, []int32{})}, outTensor(ops.Float32))
	run(t, NewGatherND(), n)
	wantShape(t, n.Outputs[0].Shape, []int{0, 2, 2})
	// ... and empty params with empty indices is fine.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{0, 2}, []float32{}), tensorOf(ops.Int32, []int{0, 1}, []int32{})}, outTensor(ops.Float32))
	run(t, NewGatherND(), n)
	wantShape(t, n.Outputs[0].Shape, []int{0, 2})
}

func TestGatherNDErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	i32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Int32, shape, make([]int32, prod(shape))) }
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"string params", node(nil, []*ops.Tensor{{Type: ops.String, Shape: []int{2}}, i32(1, 1)}, outTensor(ops.String)), []string{"params", "string"}},
		{"uint32 params", node(nil, []*ops.Tensor{tensorOf(ops.Uint32, []int{2}, []uint32{1, 2}), i32(1, 1)}, outTensor(ops.Uint32)), []string{"uint32"}},
		{"float indices", node(nil, []*ops.Tensor{f32(2), f32(1, 1)}, outTensor(ops.Float32)), []string{"indices", "float32"}},
		{"scalar params", node(nil, []*ops.Tensor{f32(), i32(1, 1)}, outTensor(ops.Float32)), []string{"params", "vector"}},
		{"scalar indices", node(nil, []*ops.Tensor{f32(2), i32()}, outTensor(ops.Float32)), []string{"indices", "vector"}},
		{"nd too large", node(nil, []*ops.Tensor{f32(2, 2), i32(1, 3)}, outTensor(ops.Float32)), []string{"innermost dimension 3", "rank 2"}},
		{"output type", node(nil, []*ops.Tensor{f32(2, 2), i32(1, 1)}, outTensor(ops.Int32)), []string{"output 0", "int32"}},
		{"one input", node(nil, []*ops.Tensor{f32(2, 2)}, outTensor(ops.Float32)), []string{"1 inputs"}},
		{"missing indices", node(nil, []*ops.Tensor{f32(2, 2), nil}, outTensor(ops.Float32)), []string{"input 1"}},
		{"no output", node(nil, []*ops.Tensor{f32(2, 2), i32(1, 1)}), []string{"0 outputs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewGatherND(), c.n, c.wants...) })
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for v := 1; v <= 7; v++ {
		_, err := r.FindBuiltin(ops.OpGatherND, v)
		if (err == nil) != (v == 1 || v >= 3 && v <= 6) {
			t.Errorf("GATHER_ND version %d: %v (registered: 1, 3-6)", v, err)
		}
	}
}
