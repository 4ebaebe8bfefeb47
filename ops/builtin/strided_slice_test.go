package builtin

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's strided_slice_test.cc (In1D*, In2D*, In3D*,
// In5D*, Offset*, EllipsisMask*/NewAxisMask*, shrink-axis cases), run with
// float32 and int8 data and with constant and (offset) non-constant begin.

type sliceCase struct {
	name                 string
	shape                []int
	begin, end, strides  []int32
	bm, em, elm, nam, sm int32
	offset               bool
	wantShape            []int
	want                 []int
}

func seq(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i + 1)
	}
	return v
}

var sliceCases = []sliceCase{
	{"In1D", []int{4}, []int32{1}, []int32{3}, []int32{1}, 0, 0, 0, 0, 0, false, []int{2}, []int{2, 3}},
	{"In1D_EmptyOutput", []int{4}, []int32{10}, []int32{3}, []int32{1}, 0, 0, 0, 0, 0, false, []int{0}, nil},
	{"In1D_NegativeBegin", []int{4}, []int32{-3}, []int32{3}, []int32{1}, 0, 0, 0, 0, 0, false, []int{2}, []int{2, 3}},
	{"In1D_OutOfRangeBegin", []int{4}, []int32{-5}, []int32{3}, []int32{1}, 0, 0, 0, 0, 0, false, []int{3}, []int{1, 2, 3}},
	{"In1D_NegativeEnd", []int{4}, []int32{1}, []int32{-2}, []int32{1}, 0, 0, 0, 0, 0, false, []int{1}, []int{2}},
	{"In1D_OutOfRangeEnd", []int{4}, []int32{-3}, []int32{5}, []int32{1}, 0, 0, 0, 0, 0, false, []int{3}, []int{2, 3, 4}},
	{"In1D_BeginMask", []int{4}, []int32{1}, []int32{3}, []int32{1}, 1, 0, 0, 0, 0, false, []int{3}, []int{1, 2, 3}},
	{"In1D_NegativeBeginNegativeStride", []int{4}, []int32{-2}, []int32{-3}, []int32{-1}, 0, 0, 0, 0, 0, false, []int{1}, []int{3}},
	{"In1D_OutOfRangeBeginNegativeStride", []int{4}, []int32{5}, []int32{2}, []int32{-1}, 0, 0, 0, 0, 0, false, []int{1}, []int{4}},
	{"In1D_NegativeEndNegativeStride", []int{4}, []int32{2}, []int32{-4}, []int32{-1}, 0, 0, 0, 0, 0, false, []int{2}, []int{3, 2}},
	{"In1D_EndMask", []int{4}, []int32{1}, []int32{3}, []int32{1}, 0, 1, 0, 0, 0, false, []int{3}, []int{2, 3, 4}},
	{"In1D_NegStride", []int{3}, []int32{-1}, []int32{-4}, []int32{-1}, 0, 0, 0, 0, 0, false, []int{3}, []int{3, 2, 1}},
	{"In1D_EvenLenStride2", []int{2}, []int32{0}, []int32{2}, []int32{2}, 0, 0, 0, 0, 0, false, []int{1}, []int{1}},
	{"In1D_OddLenStride2", []int{3}, []int32{0}, []int32{3}, []int32{2}, 0, 0, 0, 0, 0, false, []int{2}, []int{1, 3}},
	{"In2D_Identity", []int{2, 3}, []int32{0, 0}, []int32{2, 3}, []int32{1, 1}, 0, 0, 0, 0, 0, false, []int{2, 3}, []int{1, 2, 3, 4, 5, 6}},
	{"In2D", []int{2, 3}, []int32{1, 0}, []int32{2, 2}, []int32{1, 1}, 0, 0, 0, 0, 0, false, []int{1, 2}, []int{4, 5}},
	{"In2D_Stride2", []int{2, 3}, []int32{0, 0}, []int32{2, 3}, []int32{2, 2}, 0, 0, 0, 0, 0, false, []int{1, 2}, []int{1, 3}},
	{"In2D_NegStride", []int{2, 3}, []int32{1, -1}, []int32{2, -4}, []int32{2, -1}, 0, 0, 0, 0, 0, false, []int{1, 3}, []int{6, 5, 4}},
	{"In2D_BeginMask", []int{2, 3}, []int32{1, 0}, []int32{2, 2}, []int32{1, 1}, 1, 0, 0, 0, 0, false, []int{2, 2}, []int{1, 2, 4, 5}},
	{"In2D_EndMask", []int{2, 3}, []int32{1, 0}, []int32{2, 2}, []int32{1, 1}, 0, 2, 0, 0, 0, false, []int{1, 3}, []int{4, 5, 6}},
	{"In2D_NegStrideBeginMask", []int{2, 3}, []int32{1, -2}, []int32{2, -4}, []int32{1, -1}, 2, 0, 0, 0, 0, false, []int{1, 3}, []int{6, 5, 4}},
	{"In2D_NegStrideEndMask", []int{2, 3}, []int32{1, -2}, []int32{2, -3}, []int32{1, -1}, 0, 2, 0, 0, 0, false, []int{1, 2}, []int{5, 4}},
	{"In2D_ShrinkAxis_Endmask_AtSameAxis", []int{2, 2}, []int32{0, -1}, []int32{0, 0}, []int32{1, -1}, 1, 1, 0, 0, 1, false, []int{1}, []int{2}},
	{"In3D_Identity", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{1, 1, 1}, 0, 0, 0, 0, 0, false, []int{2, 3, 2}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
	{"In3D_NegStride", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{-1, -1, -1}, 0, 0, 0, 0, 0, false, []int{0, 0, 0}, nil},
	{"In3D_Strided2", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 3, 2}, []int32{2, 2, 2}, 0, 0, 0, 0, 0, false, []int{1, 2, 1}, []int{1, 5}},
	{"In3D_IdentityShrinkAxis1", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 3, 2}, []int32{1, 1, 1}, 0, 0, 0, 0, 1, false, []int{3, 2}, []int{1, 2, 3, 4, 5, 6}},
	{"In3D_IdentityShrinkAxis5", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 3, 1}, []int32{1, 1, 1}, 0, 0, 0, 0, 5, false, []int{3}, []int{1, 3, 5}},
	{"In3D_IdentityShrinkAxis6", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{2, 1, 1}, []int32{1, 1, 1}, 0, 0, 0, 0, 6, false, []int{2}, []int{1, 7}},
	{"In3D_IdentityShrinkAxis7", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 1, 1}, []int32{1, 1, 1}, 0, 0, 0, 0, 7, false, []int{}, []int{1}},
	{"In5D_Identity", []int{2, 2, 2, 1, 2}, []int32{0, 0, 0, 0, 0}, []int32{2, 1, 2, 1, 2}, []int32{1, 1, 1, 1, 1}, 0, 0, 0, 0, 0, false, []int{2, 1, 2, 1, 2}, []int{1, 2, 3, 4, 9, 10, 11, 12}},
	{"In5D_IdentityShrinkAxis1", []int{2, 2, 2, 1, 2}, []int32{0, 0, 0, 0, 0}, []int32{2, 1, 2, 1, 2}, []int32{1, 1, 1, 1, 1}, 0, 0, 0, 0, 1, false, []int{1, 2, 1, 2}, []int{1, 2, 3, 4}},
	{"In3D_SmallBegin", []int{2, 3, 2}, []int32{0}, []int32{1}, []int32{1}, 0, 0, 0, 0, 0, false, []int{1, 3, 2}, []int{1, 2, 3, 4, 5, 6}},
	{"In3D_SmallBeginWithShrinkAxis1", []int{2, 3, 2}, []int32{0}, []int32{1}, []int32{1}, 0, 0, 0, 0, 1, false, []int{3, 2}, []int{1, 2, 3, 4, 5, 6}},
	{"In3D_BackwardSmallBeginEndMask", []int{1, 1, 2}, []int32{1}, []int32{0}, []int32{1}, 0, 1, 0, 0, 0, false, []int{0, 1, 2}, nil},
	{"In3D_Backward", []int{1, 1, 2}, []int32{1, 0, 0}, []int32{0, -1, -1}, []int32{1, 1, 1}, 6, 7, 0, 0, 0, false, []int{0, 1, 2}, nil},
	{"EllipsisMask1_NewAxisMask2", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 2, 1}, []int32{1, 1, 1}, 0, 0, 1, 2, 0, false, []int{2, 3, 1, 1}, []int{1, 3, 5, 7, 9, 11}},
	{"EllipsisMask2_NewAxisMask1", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 2, 1}, []int32{1, 1, 1}, 0, 0, 2, 1, 0, false, []int{1, 2, 3, 1}, []int{1, 3, 5, 7, 9, 11}},
	{"EllipsisMask2_NewAxisMask5", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 2, 1}, []int32{1, 1, 1}, 0, 0, 2, 5, 0, false, []int{1, 2, 3, 2, 1}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
	{"EllipsisMask2_NewAxisMask2", []int{2, 3, 2}, []int32{0, 0, 0}, []int32{1, 2, 1}, []int32{1, 1, 1}, 0, 0, 2, 2, 0, false, []int{1, 3, 1}, []int{1, 3, 5}},
	{"Offset", []int{10}, []int32{1}, []int32{3}, []int32{1}, 0, 0, 0, 0, 0, true, []int{3}, []int{2, 3, 4}},
	{"OffsetArray", []int{3, 4}, []int32{0, 1}, []int32{2, 2}, []int32{1, 1}, 0, 0, 0, 0, 0, true, []int{2, 2}, []int{2, 3, 6, 7}},
	{"OffsetConstantStride", []int{5, 6}, []int32{0, 1}, []int32{4, 3}, []int32{2, 2}, 0, 0, 0, 0, 0, true, []int{2, 2}, []int{2, 4, 14, 16}},
	{"OffsetConstantNegativeStride", []int{5, 6}, []int32{4, 4}, []int32{-4, -3}, []int32{-2, -2}, 0, 0, 0, 0, 0, true, []int{2, 2}, []int{29, 27, 17, 15}},
}

func sliceNode(tc sliceCase, typ ops.DataType, constBegin bool) *ops.Node {
	var in *ops.Tensor
	v := seq(prod(tc.shape))
	if typ == ops.Float32 {
		in = tensorOf(ops.Float32, tc.shape, v)
	} else {
		iv := make([]int8, len(v))
		for i, x := range v {
			iv[i] = int8(x)
		}
		in = tensorOf(ops.Int8, tc.shape, iv)
	}
	n := len(tc.begin)
	b := tensorOf(ops.Int32, []int{n}, tc.begin)
	if constBegin {
		constT(b)
	}
	opts := &StridedSliceOptions{BeginMask: tc.bm, EndMask: tc.em, EllipsisMask: tc.elm, NewAxisMask: tc.nam, ShrinkAxisMask: tc.sm, Offset: tc.offset}
	return node(opts, []*ops.Tensor{in, b, constT(tensorOf(ops.Int32, []int{n}, tc.end)), constT(tensorOf(ops.Int32, []int{n}, tc.strides))}, outTensor(typ))
}

func TestStridedSliceTFLiteVectors(t *testing.T) {
	for _, tc := range sliceCases {
		for _, typ := range []ops.DataType{ops.Float32, ops.Int8} {
			for _, constBegin := range []bool{true, false} {
				if !constBegin && !tc.offset {
					continue // a dynamic begin needs offset mode in tflrun
				}
				t.Run(tc.name+"/"+typ.String(), func(t *testing.T) {
					n := sliceNode(tc, typ, constBegin)
					k := NewStridedSlice()
					run(t, k, n)
					wantShape(t, n.Outputs[0].Shape, tc.wantShape)
					if typ == ops.Float32 {
						got := n.Outputs[0].Float32s()
						want := make([]float64, len(tc.want))
						for i, w := range tc.want {
							want[i] = float64(w)
						}
						nearFloats(t, "output", got[:len(want)], want, 0)
					} else {
						equalInts(t, "output", n.Outputs[0].Int8s()[:len(tc.want)], tc.want)
					}
					noAllocs(t, k, n)
				})
			}
		}
	}
}

func TestStridedSliceErrors(t *testing.T) {
	in := tensorOf(ops.Float32, []int{2, 3}, seq(6))
	i32 := func(v ...int32) *ops.Tensor { return constT(tensorOf(ops.Int32, []int{len(v)}, v)) }
	for _, tc := range []struct {
		name string
		ins  []*ops.Tensor
		opts *StridedSliceOptions
		frag string
	}{
		{"zero stride", []*ops.Tensor{in, i32(0, 0), i32(1, 1), i32(1, 0)}, &StridedSliceOptions{}, "entry 1 is 0"},
		{"lengths", []*ops.Tensor{in, i32(0, 0), i32(1), i32(1, 1)}, &StridedSliceOptions{}, "entries"},
		{"type", []*ops.Tensor{in, i32(0, 0), i32(1, 1), constT(tensorOf(ops.Int64, []int{2}, []int64{1, 1}))}, &StridedSliceOptions{}, "need int32"},
		{"dynamic begin", []*ops.Tensor{in, tensorOf(ops.Int32, []int{2}, []int32{0, 0}), i32(1, 1), i32(1, 1)}, &StridedSliceOptions{}, "constant"},
		{"shrink out of range", []*ops.Tensor{in, i32(5, 0), i32(6, 1), i32(1, 1)}, &StridedSliceOptions{ShrinkAxisMask: 1}, "shrink index 5"},
		{"inputs", []*ops.Tensor{in, i32(0, 0), i32(1, 1)}, &StridedSliceOptions{}, "inputs"},
		// An ellipsis past every entry leaves dimension 0 with none (TFLite
		// reads past its strides); found by FuzzPrepareShaped.
		{"ellipsis past the entries", []*ops.Tensor{tensorOf(ops.Float32, []int{1, 1, 1}, seq(1)), i32(), i32(), i32()},
			&StridedSliceOptions{EllipsisMask: 2}, "leave effective dimension 0 without an entry of the 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantPrepareError(t, NewStridedSlice(), node(tc.opts, tc.ins, outTensor(ops.Float32)), tc.frag)
		})
	}
	// A dynamic begin (offset mode) that selects fewer elements than the
	// output was sized for is an Eval error, not unwritten output.
	n := node(&StridedSliceOptions{Offset: true}, []*ops.Tensor{tensorOf(ops.Float32, []int{4}, seq(4)), tensorOf(ops.Int32, []int{1}, []int32{3}), i32(3), i32(1)}, outTensor(ops.Float32))
	k := NewStridedSlice()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "different number") {
		t.Fatalf("Eval error %v", err)
	}
}

// TestStridedSliceRandomRuns: random int8 and float32 slices of rank 1-5
// (begin and end anywhere in range, strides −2..3, some dimensions taken
// whole so that the innermost ones fold into one run, and the yolo11n
// shapes: half the channels of an NHWC tensor, leading channels of
// [1,144,8400]) against the definition, output element i at input index
// Σ (begin_d + i_d·stride_d)·inStride_d.
func TestStridedSliceRandomRuns(t *testing.T) {
	r := lcg(31)
	type slice struct {
		shape              []int
		begin, end, stride []int32
	}
	cases := []slice{
		{[]int{1, 16, 16, 32}, []int32{0, 0, 0, 16}, []int32{1, 16, 16, 32}, []int32{1, 1, 1, 1}},
		{[]int{1, 144, 84}, []int32{0, 0, 0}, []int32{1, 64, 84}, []int32{1, 1, 1}},
		{[]int{1, 2, 128, 40}, []int32{0, 0, 64, 0}, []int32{1, 2, 128, 40}, []int32{1, 1, 1, 1}},
	}
	for range 300 {
		rank := r.intn(1, 5)
		c := slice{shape: make([]int, rank), begin: make([]int32, rank), end: make([]int32, rank), stride: make([]int32, rank)}
		for d := range rank {
			n := r.intn(1, 9)
			c.shape[d] = n
			st := []int32{1, 1, 1, 2, 3, -1, -2}[r.intn(0, 6)]
			b := int32(r.intn(0, n-1))
			e := int32(r.intn(int(b)+1, n)) // [b, e) is not empty
			if r.intn(0, 2) == 0 {
				st, b, e = 1, 0, int32(n) // taken whole
			}
			if st < 0 {
				b, e = e-1, b-1 // downwards from e-1 to b
				if e < 0 {
					st = -1
					e = -int32(n) - 1 // to index 0: -n-1 clamps to "before 0"
				}
			}
			c.begin[d], c.end[d], c.stride[d] = b, e, st
		}
		cases = append(cases, c)
	}
	for ci, c := range cases {
		// The output shape and elements by the definition.
		rank := len(c.shape)
		counts, inStride := make([]int, rank), make([]int, rank)
		s := 1
		for d := rank - 1; d >= 0; d-- {
			inStride[d] = s
			s *= c.shape[d]
			b, e, st := int(c.begin[d]), int(c.end[d]), int(c.stride[d])
			if e < -1 {
				e = -1 // -n-1 clamps to before index 0
			}
			if st > 0 && e > b {
				counts[d] = (e - b + st - 1) / st
			} else if st < 0 && b > e {
				counts[d] = (b - e - st - 1) / -st
			}
		}
		for _, typ := range []ops.DataType{ops.Int8, ops.Float32} {
			data := make([]float32, s)
			raw := make([]int8, s)
			for i := range data {
				raw[i] = int8(r.intn(-128, 127))
				data[i] = float32(raw[i])
			}
			var in *ops.Tensor
			if typ == ops.Int8 {
				in = tensorOf(ops.Int8, c.shape, raw)
			} else {
				in = tensorOf(ops.Float32, c.shape, data)
			}
			n := node(&StridedSliceOptions{}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{rank}, c.begin)),
				constT(tensorOf(ops.Int32, []int{rank}, c.end)), constT(tensorOf(ops.Int32, []int{rank}, c.stride))}, outTensor(typ))
			run(t, NewStridedSlice(), n)
			wantShape(t, n.Outputs[0].Shape, counts)
			o := 0
			forEach(counts, func(idx []int) {
				at := 0
				for d, i := range idx {
					at += (int(c.begin[d]) + i*int(c.stride[d])) * inStride[d]
				}
				var got, want float32
				if typ == ops.Int8 {
					got, want = float32(n.Outputs[0].Int8s()[o]), float32(raw[at])
				} else {
					got, want = n.Outputs[0].Float32s()[o], data[at]
				}
				if got != want {
					t.Fatalf("case %d %s (shape %v begin %v end %v strides %v): output %v = %v, want %v", ci, typ, c.shape, c.begin, c.end, c.stride, idx, got, want)
				}
				o++
			})
		}
	}
}
