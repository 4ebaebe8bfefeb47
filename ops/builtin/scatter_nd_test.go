package builtin

import (
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SCATTER_ND: TFLite's kernel test vectors, random shapes against
// the definition for every updates type, run-time index errors, and the
// nodes Prepare refuses.

func TestScatterNDTFLiteVectors(t *testing.T) {
	n := node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{4, 1}, []int32{4, 3, 1, 7}),
		tensorOf(ops.Float32, []int{4}, []float32{9, 10, 11, 12}), c32(8)}, outTensor(ops.Float32))
	k := NewScatterND()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{8})
	if got := n.Outputs[0].Float32s(); !slices.Equal(got, []float32{0, 11, 0, 10, 9, 0, 0, 12}) {
		t.Fatalf("ScatterElementIntoVector: %v", got)
	}
	noAllocs(t, k, n)
}

func TestScatterNDAgainstDefinition(t *testing.T) {
	r := lcg(43)
	types := []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Bool}
	for trial := 0; trial < 300; trial++ {
		typ := types[trial%len(types)]
		orank := r.intn(1, 4)
		oshape := make([]int, orank)
		for i := range oshape {
			oshape[i] = r.intn(1, 4)
		}
		nd := r.intn(1, orank)
		ishape := []int{}
		for i := r.intn(0, 2); i > 0; i-- {
			ishape = append(ishape, r.intn(0, 3))
		}
		ishape = append(ishape, nd)
		idx := make([]int32, prod(ishape))
		for i := range idx {
			idx[i] = int32(r.intn(0, oshape[i%nd]-1))
		}
		ushape := append(append([]int{}, ishape[:len(ishape)-1]...), oshape[nd:]...)
		if len(ushape) == 0 {
			continue // scalar updates: TFLite needs rank ≥ 1
		}
		nu := prod(ushape)
		raw := make([]byte, nu*typ.Size())
		for i := range raw {
			raw[i] = byte(r.next())
			if typ == ops.Bool {
				raw[i] &= 1
			}
		}
		if typ == ops.Float32 {
			for i := 0; i < nu; i++ {
				ops.View[float32](raw)[i] = r.float(-4, 4)
			}
		}
		shapeVals := make([]int32, orank)
		for i, d := range oshape {
			shapeVals[i] = int32(d)
		}
		upd := tensorOf(typ, ushape, raw)
		n := node(nil, []*ops.Tensor{tensorOf(ops.Int32, ishape, idx), upd, c32(shapeVals...)}, outTensor(typ))
		k := NewScatterND()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, oshape)
		// The definition, element by element in update order (float sums
		// in that order too); integers wrap in their type.
		slice := prod(oshape[nd:])
		want := make([]float32, prod(oshape))
		wantI := make([]int64, prod(oshape))
		for s := 0; s < prod(ishape[:len(ishape)-1]); s++ {
			off := 0
			for j := 0; j < nd; j++ {
				off = off*oshape[j] + int(idx[s*nd+j])
			}
			for e := 0; e < slice; e++ {
				o, u := off*slice+e, s*slice+e
				switch typ {
				case ops.Float32:
					want[o] += upd.Float32s()[u]
				case ops.Int32:
					wantI[o] = int64(int32(wantI[o]) + upd.Int32s()[u])
				case ops.Int64:
					wantI[o] += upd.Int64s()[u]
				case ops.Int8:
					wantI[o] = int64(int8(wantI[o]) + upd.Int8s()[u])
				case ops.Uint8:
					wantI[o] = int64(uint8(wantI[o]) + upd.Uint8s()[u])
				case ops.Bool:
					if upd.Data[u] != 0 {
						wantI[o] = 1
					}
				}
			}
		}
		out := n.Outputs[0]
		if typ == ops.Float32 {
			if got := out.Float32s()[:len(want)]; !slices.Equal(got, want) {
				t.Fatalf("float32 indices %v %v into %v: got %v want %v", ishape, idx, oshape, got, want)
			}
		} else if got := widenBools(out)[:len(wantI)]; !slices.Equal(got, wantI) {
			t.Fatalf("%s indices %v %v into %v: got %v want %v", typ, ishape, idx, oshape, got, wantI)
		}
		noAllocs(t, k, n)
	}
}

// widenBools is widen with bool bytes as 0 and 1.
func widenBools(t *ops.Tensor) []int64 {
	if t.Type != ops.Bool {
		return widen(t)
	}
	v := make([]int64, t.NumElements())
	for i := range v {
		v[i] = int64(t.Data[i])
	}
	return v
}

func TestScatterNDErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	i32 := func(shape []int, v ...int32) *ops.Tensor { return tensorOf(ops.Int32, shape, v) }
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"int16 updates", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), tensorOf(ops.Int16, []int{1}, []int16{1}), c32(2)}, outTensor(ops.Int16)), []string{"updates", "int16"}},
		{"int64 indices", node(nil, []*ops.Tensor{tensorOf(ops.Int64, []int{1, 1}, []int64{0}), f32(1), constT(tensorOf(ops.Int64, []int{1}, []int64{2}))}, outTensor(ops.Float32)), []string{"indices", "int64"}},
		{"shape type differs", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), f32(1), constT(tensorOf(ops.Int64, []int{1}, []int64{2}))}, outTensor(ops.Float32)), []string{"shape", "differs"}},
		{"dynamic shape", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), f32(1), i32([]int{1}, 2)}, outTensor(ops.Float32)), []string{"input 2", "must be a constant tensor"}},
		{"outer mismatch", node(nil, []*ops.Tensor{i32([]int{2, 1}, 0, 1), f32(3), c32(4)}, outTensor(ops.Float32)), []string{"dimension 0 is 3", "indices have 2"}},
		{"rank mismatch", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), f32(1, 2), c32(4)}, outTensor(ops.Float32)), []string{"rank 2, need 1"}},
		{"slice mismatch", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), f32(1, 3), c32(4, 2)}, outTensor(ops.Float32)), []string{"dimension 1 is 3", "output's is 2"}},
		{"negative size", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), f32(1, 2), c32(-4, 2)}, outTensor(ops.Float32)), []string{"entry 0 is -4"}},
		{"overflow", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), f32(1, 1<<16), c32(1<<16, 1<<16)}, outTensor(ops.Float32)), []string{"output 0"}},
		{"scalar indices", node(nil, []*ops.Tensor{i32(nil, 0), f32(1), c32(4)}, outTensor(ops.Float32)), []string{"rank"}},
		{"output type", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), f32(1), c32(4)}, outTensor(ops.Int32)), []string{"output 0", "int32"}},
		{"two inputs", node(nil, []*ops.Tensor{i32([]int{1, 1}, 0), f32(1)}, outTensor(ops.Float32)), []string{"2 inputs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewScatterND(), c.n, c.wants...) })
	}
	for _, c := range []struct {
		idx  []int32
		want string
	}{{[]int32{0, 8}, "element 1 is 8, outside [0, 8)"}, {[]int32{-1, 0}, "element 0 is -1"}} {
		n := node(nil, []*ops.Tensor{i32([]int{2, 1}, c.idx...), f32(2), c32(8)}, outTensor(ops.Float32))
		k := NewScatterND()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("indices %v: Eval error %v, want %q", c.idx, err, c.want)
		}
	}
}
