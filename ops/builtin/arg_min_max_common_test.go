package builtin

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestArgMinMax(t *testing.T) {
	argRun := func(k ops.Kernel, in *ops.Tensor, axis *ops.Tensor, outType ops.DataType) *ops.Tensor {
		t.Helper()
		n := node(&ArgMinMaxOptions{OutputType: outType}, []*ops.Tensor{in, constT(axis)}, outTensor(outType))
		run(t, k, n)
		noAllocs(t, k, n)
		return n.Outputs[0]
	}
	a32 := func(v int32) *ops.Tensor { return tensorOf(ops.Int32, []int{1}, []int32{v}) }
	// arg_min_max_test.cc: GetMaxArgFloat, GetMaxArgUInt8, GetMaxArgInt8,
	// GetMaxArgInt, GetMaxArgMulDimensions, GetMaxArgNegativeAxis,
	// GetMaxArgOutput64, GetMinArg*, tie-breaking (first index).
	out := argRun(NewArgMax(), tensorOf(ops.Float32, []int{1, 1, 1, 4}, []float32{0.1, 0.9, 0.7, 0.3}), a32(3), ops.Int32)
	wantShape(t, out.Shape, []int{1, 1, 1})
	equalInts(t, "GetMaxArgFloat", out.Int32s(), []int{1})
	equalInts(t, "GetMaxArgUInt8", argRun(NewArgMax(), tensorOf(ops.Uint8, []int{1, 1, 1, 4}, []uint8{1, 9, 7, 3}), a32(3), ops.Int32).Int32s(), []int{1})
	equalInts(t, "GetMaxArgInt8", argRun(NewArgMax(), tensorOf(ops.Int8, []int{1, 1, 1, 4}, []int8{-1, -9, 7, 3}), a32(3), ops.Int32).Int32s(), []int{2})
	equalInts(t, "GetMaxArgMulDimensions", argRun(NewArgMax(), tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{1, 2, 7, 8, 1, 9, 7, 3}), a32(3), ops.Int32).Int32s(), []int{3, 1})
	out = argRun(NewArgMax(), tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{1, 2, 7, 8, 1, 9, 7, 3}), a32(-2), ops.Int32)
	wantShape(t, out.Shape, []int{1, 1, 4})
	equalInts(t, "GetMaxArgNegativeAxis", out.Int32s(), []int{0, 1, 0, 0})
	equalInts(t, "GetMaxArgOutput64", argRun(NewArgMax(), tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{10, 2, 7, 8, 1, 9, 7, 3}), tensorOf(ops.Int64, []int{1}, []int64{3}), ops.Int64).Int64s(), []int{0, 1})
	equalInts(t, "GetMinArgFloat", argRun(NewArgMin(), tensorOf(ops.Float32, []int{1, 1, 1, 4}, []float32{0.1, 0.9, 0.7, 0.3}), a32(3), ops.Int32).Int32s(), []int{0})
	equalInts(t, "GetMinArgMulDimensions", argRun(NewArgMin(), tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{1, 2, 7, 8, 1, 0, 7, 3}), a32(3), ops.Int32).Int32s(), []int{0, 1})
	equalInts(t, "ties take the first index", argRun(NewArgMax(), tensorOf(ops.Float32, []int{2, 3}, []float32{5, 5, 1, 2, 7, 7}), a32(1), ops.Int32).Int32s(), []int{0, 1})
	equalInts(t, "bool", argRun(NewArgMax(), tensorOf(ops.Bool, []int{4}, []bool{false, false, true, true}), a32(0), ops.Int64).Int64s(), []int{2})
	// Errors.
	f := tensorOf(ops.Float32, []int{2, 3}, make([]float32, 6))
	wantPrepareError(t, NewArgMax(), node(&ArgMinMaxOptions{OutputType: ops.Int32}, []*ops.Tensor{f, constT(a32(2))}, outTensor(ops.Int32)), "axis 2")
	wantPrepareError(t, NewArgMax(), node(&ArgMinMaxOptions{OutputType: ops.Float32}, []*ops.Tensor{f, constT(a32(0))}, outTensor(ops.Float32)), "int32 or int64")
	wantPrepareError(t, NewArgMin(), node(&ArgMinMaxOptions{OutputType: ops.Int32}, []*ops.Tensor{tensorOf(ops.Float32, []int{0, 3}, []float32{}), constT(a32(0))}, outTensor(ops.Int32)), "empty")
	wantPrepareError(t, NewArgMin(), node(&ArgMinMaxOptions{OutputType: ops.Int32}, []*ops.Tensor{tensorOf(ops.Int16, []int{3}, []int16{1, 2, 3}), constT(a32(0))}, outTensor(ops.Int32)), "ARG_MIN")
}

// argScan is arg_min_max.cc's loop as written there: the reference of
// the kernel's branch-free and chunked paths.
func argScan[T float32 | uint8 | int8 | int32](in []T, outer, axis, inner int, isMax bool) []int {
	out := make([]int, outer*inner)
	for o := 0; o < outer; o++ {
		for j := 0; j < inner; j++ {
			base := o*axis*inner + j
			best, bi := in[base], 0
			for i := 1; i < axis; i++ {
				v := in[base+i*inner]
				if isMax && v > best || !isMax && v < best {
					best, bi = v, i
				}
			}
			out[o*inner+j] = bi
		}
	}
	return out
}

// TestArgMinMaxMatchesScan compares ARG_MAX and ARG_MIN with argScan on
// every input type, for the last axis and inner ones (inner sizes across
// the argChunk boundary), values from narrow ranges (many ties) and wide
// ones, float NaNs and infinities, both index types, and 2-4 threads
// (run's sweep).
func TestArgMinMaxMatchesScan(t *testing.T) {
	r := lcg(11)
	shapes := [][]int{{1}, {7}, {3, 21}, {2, 5, 64}, {4, 65}, {1, 9, 9, 21}, {2, 3, 300}, {3, 257, 2}, {2, 4, 520}, {1, 21, 5, 61}}
	for _, shape := range shapes {
		for axis := range shape {
			outer, inner := prod(shape[:axis]), prod(shape[axis+1:])
			for _, typ := range []ops.DataType{ops.Float32, ops.Uint8, ops.Int8, ops.Int32, ops.Bool} {
				for _, narrow := range []bool{true, false} {
					for _, isMax := range []bool{true, false} {
						n := prod(shape)
						var in *ops.Tensor
						var want []int
						lo, hi := -128, 127
						if narrow {
							lo, hi = -2, 2
						}
						switch typ {
						case ops.Float32:
							f := randFloats(&r, n, float64(lo), float64(hi))
							if narrow {
								for i := range f {
									f[i] = float32(int(f[i]))
									switch i % 17 {
									case 3:
										f[i] = float32(math.NaN())
									case 5:
										f[i] = float32(math.Inf(1))
									case 9:
										f[i] = float32(math.Inf(-1))
									}
								}
							}
							in, want = tensorOf(ops.Float32, shape, f), argScan(f, outer, shape[axis], inner, isMax)
						case ops.Uint8:
							v := toUint8(randInts(&r, n, lo+128, hi+128))
							in, want = tensorOf(ops.Uint8, shape, v), argScan(v, outer, shape[axis], inner, isMax)
						case ops.Int8:
							v := toInt8(randInts(&r, n, lo, hi))
							in, want = tensorOf(ops.Int8, shape, v), argScan(v, outer, shape[axis], inner, isMax)
						case ops.Int32:
							v := randInts(&r, n, lo*1000, hi*1000)
							w := make([]int32, n)
							for i := range v {
								w[i] = int32(v[i])
							}
							in, want = tensorOf(ops.Int32, shape, w), argScan(w, outer, shape[axis], inner, isMax)
						case ops.Bool:
							v := toUint8(randInts(&r, n, 0, 1))
							b := make([]bool, n)
							for i := range v {
								b[i] = v[i] == 1
							}
							in, want = tensorOf(ops.Bool, shape, b), argScan(v, outer, shape[axis], inner, isMax)
						}
						for _, outType := range []ops.DataType{ops.Int32, ops.Int64} {
							k := NewArgMin()
							if isMax {
								k = NewArgMax()
							}
							nd := node(&ArgMinMaxOptions{OutputType: outType}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{1}, []int32{int32(axis)}))}, outTensor(outType))
							run(t, k, nd)
							got := make([]int64, len(want))
							if outType == ops.Int32 {
								for i, v := range nd.Outputs[0].Int32s() {
									got[i] = int64(v)
								}
							} else {
								for i, v := range nd.Outputs[0].Int64s() {
									got[i] = int64(v)
								}
							}
							equalInts(t, fmt.Sprintf("%v axis %d %s narrow=%v max=%v -> %s", shape, axis, typ, narrow, isMax, outType), got, want)
						}
					}
				}
			}
		}
	}
}

// BenchmarkArgMax times ARG_MAX over the 21 classes of a 513×513
// segmentation map (a DeepLab's last operator) against argScan, the
// loop it replaced, in one run.
func BenchmarkArgMax(b *testing.B) {
	r := lcg(5)
	shape := []int{1, 513, 513, 21}
	for _, typ := range []ops.DataType{ops.Uint8, ops.Int8, ops.Float32} {
		n := prod(shape)
		var in *ops.Tensor
		var scan func()
		switch typ {
		case ops.Uint8:
			v := toUint8(randInts(&r, n, 0, 255))
			in, scan = tensorOf(typ, shape, v), func() { argScan(v, 513*513, 21, 1, true) }
		case ops.Int8:
			v := toInt8(randInts(&r, n, -128, 127))
			in, scan = tensorOf(typ, shape, v), func() { argScan(v, 513*513, 21, 1, true) }
		default:
			v := randFloats(&r, n, -5, 5)
			in, scan = tensorOf(typ, shape, v), func() { argScan(v, 513*513, 21, 1, true) }
		}
		k := NewArgMax()
		nd := node(&ArgMinMaxOptions{OutputType: ops.Int64}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{1}, []int32{3}))}, outTensor(ops.Int64))
		if err := prepare(k, nd); err != nil {
			b.Fatal(err)
		}
		b.Run(typ.String()+"/kernel", func(b *testing.B) {
			for b.Loop() {
				if err := k.Eval(nd); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(typ.String()+"/scan", func(b *testing.B) {
			for b.Loop() {
				scan()
			}
		})
	}
}
