package builtin

import (
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of DYNAMIC_UPDATE_SLICE: TFLite's kernel test vectors (clamped
// starts), random shapes and starts against the definition for several
// element sizes, and the errors.

func dusNode(op, upd, start *ops.Tensor) *ops.Node {
	return node(nil, []*ops.Tensor{op, upd, start}, outTensor(op.Type))
}

func TestDynamicUpdateSliceTFLiteVectors(t *testing.T) {
	op := tensorOf(ops.Float32, []int{3, 3}, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9})
	upd := tensorOf(ops.Float32, []int{2, 1}, []float32{-1, -2})
	for _, c := range []struct {
		start *ops.Tensor
		want  []float32
	}{
		{tensorOf(ops.Int32, []int{2}, []int32{1, 1}), []float32{1, 2, 3, 4, -1, 6, 7, -2, 9}},
		// Starts are clamped so the update fits.
		{tensorOf(ops.Int64, []int{2}, []int64{2, 2}), []float32{1, 2, 3, 4, 5, -1, 7, 8, -2}},
		{tensorOf(ops.Int32, []int{2}, []int32{-1, -1}), []float32{-1, 2, 3, -2, 5, 6, 7, 8, 9}},
	} {
		n := dusNode(op, upd, c.start)
		k := NewDynamicUpdateSlice()
		run(t, k, n)
		if got := n.Outputs[0].Float32s(); !slices.Equal(got, c.want) {
			t.Fatalf("start %v: got %v want %v", c.start.Data, got, c.want)
		}
		noAllocs(t, k, n)
	}
}

func TestDynamicUpdateSliceAgainstDefinition(t *testing.T) {
	r := lcg(89)
	types := []ops.DataType{ops.Bool, ops.Int16, ops.Float32, ops.Int64, ops.Complex128}
	for trial := 0; trial < 200; trial++ {
		typ := types[trial%len(types)]
		rank := r.intn(1, 5)
		shape := make([]int, rank)
		us := make([]int, rank)
		start := make([]int64, rank)
		for i := range shape {
			shape[i] = r.intn(1, 4)
			us[i] = r.intn(0, shape[i])
			start[i] = int64(r.intn(-2, 5))
		}
		e := typ.Size()
		raw := make([]byte, prod(shape)*e)
		ur := make([]byte, prod(us)*e)
		for i := range raw {
			raw[i] = byte(r.next())
		}
		for i := range ur {
			ur[i] = byte(r.next())
		}
		n := dusNode(tensorOf(typ, shape, raw), tensorOf(typ, us, ur), indexTensor(ops.Int32, []int{rank}, start))
		k := NewDynamicUpdateSlice()
		run(t, k, n)
		want := slices.Clone(raw)
		if prod(us) == prod(shape) {
			want = slices.Clone(ur)
		} else {
			forEach(us, func(u []int) {
				o := make([]int, rank)
				for i := range o {
					o[i] = u[i] + int(min(max(0, start[i]), int64(shape[i]-us[i])))
				}
				copy(want[index(shape, o)*e:][:e], ur[index(us, u)*e:][:e])
			})
		}
		if got := n.Outputs[0].Data[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("%s %v update %v start %v: got %v want %v", typ, shape, us, start, got, want)
		}
		noAllocs(t, k, n)
	}
}

func TestDynamicUpdateSliceErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"start length", dusNode(f32(2, 2), f32(1, 1), c32(0)), []string{"start_indices", "need [2]"}},
		{"update rank", dusNode(f32(2, 2), f32(1), c32(0, 0)), []string{"rank 1 differs"}},
		{"update too large", dusNode(f32(2, 2), f32(1, 3), c32(0, 0)), []string{"larger"}},
		{"update type", dusNode(f32(2, 2), tensorOf(ops.Int32, []int{1, 1}, []int32{1}), c32(0, 0)), []string{"update", "int32"}},
		{"float start", dusNode(f32(2, 2), f32(1, 1), f32(2)), []string{"start_indices", "float32"}},
		{"string", dusNode(&ops.Tensor{Type: ops.String, Shape: []int{2}}, &ops.Tensor{Type: ops.String, Shape: []int{1}}, c32(0)), []string{"string"}},
		{"rank 9", dusNode(f32(1, 1, 1, 1, 1, 1, 1, 1, 1), f32(1, 1, 1, 1, 1, 1, 1, 1, 1), constT(tensorOf(ops.Int32, []int{9}, make([]int32, 9)))), []string{"rank 9"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewDynamicUpdateSlice(), c.n, c.wants...) })
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for v := 1; v <= 7; v++ {
		if _, err := r.FindBuiltin(ops.OpDynamicUpdateSlice, v); (err == nil) != (v != 7) {
			t.Errorf("version %d: %v (registered: 1-6)", v, err)
		}
	}
}
