package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// reduceWindowNode builds a REDUCE_WINDOW node with constant int64 window
// vectors.
func reduceWindowNode(fn schema.ReduceWindowFunction, in, init *ops.Tensor, out ops.DataType, win, str, dil []int64) *ops.Node {
	vec := func(v []int64) *ops.Tensor { return constT(tensorOf(ops.Int64, []int{len(v)}, v)) }
	return node(&ReduceWindowOptions{ReduceFunction: fn}, []*ops.Tensor{in, init, vec(win), vec(str), vec(dil)}, outTensor(out))
}

func TestReduceWindow(t *testing.T) {
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, []int{len(v)}, v) }
	// Windows of 2 at stride 2 on 5 values: (5-2)/2+1 = 2 outputs.
	n := reduceWindowNode(schema.ReduceWindowFunctionADD, f(1, 2, 3, 4, 5), f(0), ops.Float32, []int64{2}, []int64{2}, []int64{1})
	k := NewReduceWindow()
	run(t, k, n)
	equalFloat32s(t, "ADD", n.Outputs[0].Float32s(), []float32{3, 7})
	noAllocs(t, k, n)
	// Dilation 2: windows {x0, x2}, {x1, x3}, {x2, x4}.
	n = reduceWindowNode(schema.ReduceWindowFunctionMUL, f(1, 2, 3, 4, 5), f(1), ops.Float32, []int64{2}, []int64{1}, []int64{2})
	run(t, NewReduceWindow(), n)
	equalFloat32s(t, "MUL dilated", n.Outputs[0].Float32s(), []float32{3, 8, 15})
	// A NaN initial value gives way to the first element under MIN.
	n = reduceWindowNode(schema.ReduceWindowFunctionMINIMUM, f(1, 2), f(float32(math.NaN())), ops.Float32, []int64{2}, []int64{1}, []int64{1})
	run(t, NewReduceWindow(), n)
	equalFloat32s(t, "MIN NaN init", n.Outputs[0].Float32s(), []float32{1})
	// 2-D max pooling, 2×2 windows at stride 1 on 1..9.
	in := tensorOf(ops.Int32, []int{3, 3}, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9})
	n = reduceWindowNode(schema.ReduceWindowFunctionMAXIMUM, in, tensorOf(ops.Int32, nil, []int32{math.MinInt32}), ops.Int32, []int64{2, 2}, []int64{1, 1}, []int64{1, 1})
	run(t, NewReduceWindow(), n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 2})
	equalInts(t, "MAX 2-D", n.Outputs[0].Int32s(), []int{5, 6, 8, 9})
	// int8 ADD wraps: 100 + 100 = -56.
	n = reduceWindowNode(schema.ReduceWindowFunctionADD, tensorOf(ops.Int8, []int{2}, []int8{100, 100}), tensorOf(ops.Int8, nil, []int8{0}), ops.Int8, []int64{2}, []int64{1}, []int64{1})
	run(t, NewReduceWindow(), n)
	equalInts(t, "int8 ADD", n.Outputs[0].Int8s(), []int{-56})
	// bool ALL.
	n = reduceWindowNode(schema.ReduceWindowFunctionALL, tensorOf(ops.Bool, []int{4}, []byte{1, 0, 1, 1}), tensorOf(ops.Bool, nil, []byte{1}), ops.Bool, []int64{2}, []int64{2}, []int64{1})
	run(t, NewReduceWindow(), n)
	equalInts(t, "bool ALL", n.Outputs[0].Data, []int{0, 1})
	// A window larger than the input gives an empty output.
	n = reduceWindowNode(schema.ReduceWindowFunctionADD, f(1, 2), f(0), ops.Float32, []int64{3}, []int64{1}, []int64{1})
	run(t, NewReduceWindow(), n)
	wantShape(t, n.Outputs[0].Shape, []int{0})

	for _, c := range []struct {
		name string
		n    *ops.Node
		frag string
	}{
		{"zero stride", reduceWindowNode(schema.ReduceWindowFunctionADD, f(1, 2), f(0), ops.Float32, []int64{1}, []int64{0}, []int64{1}), "window_strides"},
		{"vector length", reduceWindowNode(schema.ReduceWindowFunctionADD, f(1, 2), f(0), ops.Float32, []int64{1, 1}, []int64{1}, []int64{1}), "int64 [1]"},
		{"bad function", reduceWindowNode(0, f(1, 2), f(0), ops.Float32, []int64{1}, []int64{1}, []int64{1}), "reduce_function"},
		{"init type", reduceWindowNode(schema.ReduceWindowFunctionADD, f(1, 2), tensorOf(ops.Int32, nil, []int32{0}), ops.Float32, []int64{1}, []int64{1}, []int64{1}), "init_value"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewReduceWindow(), c.n, c.frag) })
	}
	nc := reduceWindowNode(schema.ReduceWindowFunctionADD, f(1, 2), f(0), ops.Float32, []int64{1}, []int64{1}, []int64{1})
	nc.Inputs[2].Kind = ops.ArenaTensor
	wantPrepareError(t, NewReduceWindow(), nc, "window_dimensions")
}
