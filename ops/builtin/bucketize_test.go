package builtin

import (
	"math"
	"sort"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Tests of BUCKETIZE: TFLite's kernel test vector, every input type against
// sort.Search, integer inputs compared after rounding to float32, NaN, and
// unsorted boundaries.

func TestBucketize(t *testing.T) {
	b := []float32{0, 10, 100}
	n := node(&BucketizeOptions{Boundaries: b}, []*ops.Tensor{tensorOf(ops.Int32, []int{2, 2}, []int32{-5, 10000, 150, 10})}, outTensor(ops.Int32))
	k := NewBucketize()
	run(t, k, n)
	equalInts(t, "TFLite's Int32", n.Outputs[0].Int32s(), []int{0, 3, 3, 2})
	noAllocs(t, k, n)

	r := lcg(61)
	for trial := 0; trial < 100; trial++ {
		nb := r.intn(0, 6)
		bs := make([]float32, nb)
		for i := range bs {
			bs[i] = float32(r.intn(-5, 5))
		}
		sort.Slice(bs, func(i, j int) bool { return bs[i] < bs[j] })
		vals := make([]float64, 7)
		for i := range vals {
			vals[i] = float64(r.intn(-6, 6)) + 0.5*float64(r.intn(0, 1))
		}
		want := make([]int, len(vals))
		for i, v := range vals {
			want[i] = sort.Search(nb, func(j int) bool { return v < float64(bs[j]) })
		}
		for _, typ := range []ops.DataType{ops.Float32, ops.Float64} {
			var in *ops.Tensor
			if typ == ops.Float32 {
				f := make([]float32, len(vals))
				for i, v := range vals {
					f[i] = float32(v)
				}
				in = tensorOf(typ, []int{len(vals)}, f)
			} else {
				in = tensorOf(typ, []int{len(vals)}, vals)
			}
			n := node(&BucketizeOptions{Boundaries: bs}, []*ops.Tensor{in}, outTensor(ops.Int32))
			run(t, NewBucketize(), n)
			equalInts(t, typ.String(), n.Outputs[0].Int32s(), want)
		}
	}
	// int32 and int64 inputs compare as float32: 16777217 rounds to
	// 16777216, which is not below a boundary at 16777216.
	for _, in := range []*ops.Tensor{
		tensorOf(ops.Int32, []int{2}, []int32{16777217, 16777215}),
		tensorOf(ops.Int64, []int{2}, []int64{16777217, 16777215}),
	} {
		n := node(&BucketizeOptions{Boundaries: []float32{16777216}}, []*ops.Tensor{in}, outTensor(ops.Int32))
		run(t, NewBucketize(), n)
		equalInts(t, in.Type.String(), n.Outputs[0].Int32s(), []int{1, 0})
	}
	// NaN lands past every boundary; no boundaries give bucket 0.
	n = node(&BucketizeOptions{Boundaries: []float32{1, 2}}, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{float32(math.NaN())})}, outTensor(ops.Int32))
	run(t, NewBucketize(), n)
	equalInts(t, "NaN", n.Outputs[0].Int32s(), []int{2})
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{3})}, outTensor(ops.Int32))
	run(t, NewBucketize(), n)
	equalInts(t, "no boundaries", n.Outputs[0].Int32s(), []int{0})

	// A table without boundaries fails Prepare, as TFLite's parser refuses
	// it; an empty list is fine.
	for _, bs := range [][]float32{nil, {}} {
		fb := flatbuffers.NewBuilder(64)
		fb.Finish((&schema.BucketizeOptionsT{Boundaries: bs}).Pack(fb))
		buf := fb.FinishedBytes()
		o, err := decodeBucketizeOptions(ops.OptionsTable{Type: uint8(schema.BuiltinOptionsBucketizeOptions), Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
		if err != nil {
			t.Fatalf("boundaries %#v: decoder error %v", bs, err)
		}
		n := node(o, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, []float32{1, 2})}, outTensor(ops.Int32))
		err = prepare(NewBucketize(), n)
		if bs == nil && (err == nil || !strings.Contains(err.Error(), "no boundaries array")) || bs != nil && err != nil {
			t.Errorf("boundaries %#v: Prepare error %v", bs, err)
		}
	}
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"unsorted", node(&BucketizeOptions{Boundaries: []float32{1, 3, 2}}, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{0})}, outTensor(ops.Int32)), []string{"not sorted", "entry 2"}},
		{"uint8", node(nil, []*ops.Tensor{tensorOf(ops.Uint8, []int{1}, []uint8{0})}, outTensor(ops.Int32)), []string{"uint8"}},
		{"output type", node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{0})}, outTensor(ops.Int64)), []string{"output 0", "int64"}},
		{"options", node(&OneHotOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{0})}, outTensor(ops.Int32)), []string{"*BucketizeOptions"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewBucketize(), c.n, c.wants...) })
	}
}
