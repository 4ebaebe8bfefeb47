package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// ReduceWindow is the kernel of TFLite's REDUCE_WINDOW operator (the
// StableHLO reduce_window with a builtin body, no padding and no base
// dilation): inputs 0 the operand (rank 1 to 6), 1 a one-element initial
// value of its type, 2-4 constant int64 [rank] window dimensions, window
// strides and window dilations. Output dimension i is 0 when the dilated
// window (w_i−1)·d_i+1 exceeds the input's, else (n_i − dilated)/s_i + 1;
// each output element starts at the initial value and folds in its
// window's elements in row-major order with ReduceFunction, as TFLite's
// stablehlo_reduce_window.cc: ADD and MUL wrap in the element type, MIN
// and MAX take a ≤ b ? a : b and a ≥ b ? a : b (so a NaN accumulator gives
// way to the next value), ALL and ANY give 1 or 0 (any non-zero value,
// NaN included, is true). Types: bool (as int8), int8, uint8, int16,
// int32, int64, float32, float64. Window dimensions, strides and dilations
// must be ≥ 1 (TFLite divides by the stride unchecked).
type ReduceWindow struct {
	fn         schema.ReduceWindowFunction
	rank       int
	in, win    []int
	inS        []int // input element strides
	step, dil  []int // per dimension: stride·inS, dilation·inS
	outShape   []int
	outN, winN int
	opos, wpos []int // Eval odometers
	typ        ops.DataType
	winOffs    []int // offset of each window element from its start
}

// ReduceWindowOptions is TFLite's ReduceWindowOptions.
type ReduceWindowOptions struct {
	ReduceFunction schema.ReduceWindowFunction
}

// NewReduceWindow returns a REDUCE_WINDOW kernel for one node.
func NewReduceWindow() ops.Kernel { return &ReduceWindow{} }

func init() {
	register(ops.OpReduceWindow, NewReduceWindow, [2]int{1, 1})
	registerOptions2(schema.BuiltinOptions2ReduceWindowOptions, decodeReduceWindowOptions)
}

// decodeReduceWindowOptions decodes TFLite's ReduceWindowOptions table.
func decodeReduceWindowOptions(t ops.OptionsTable) (any, error) {
	var o schema.ReduceWindowOptions
	initTable(&o, t)
	return &ReduceWindowOptions{ReduceFunction: o.ReduceFunction()}, nil
}

// reduceWindowMaxRank is TFLite's kMaxReduceWindowRank.
const reduceWindowMaxRank = 6

// Prepare checks the node and sizes the output.
func (k *ReduceWindow) Prepare(n *ops.Node) error {
	*k = ReduceWindow{}
	o, ok := n.Options.(*ReduceWindowOptions)
	if !ok || o == nil {
		return fmt.Errorf("options: have %T, need *ReduceWindowOptions", n.Options)
	}
	if o.ReduceFunction < schema.ReduceWindowFunctionADD || o.ReduceFunction > schema.ReduceWindowFunctionANY {
		return fmt.Errorf("options: reduce_function %d is not supported", o.ReduceFunction)
	}
	if err := n.CheckIO(5, 5, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	iv, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	r := in.Rank()
	if r < 1 || r > reduceWindowMaxRank {
		return fmt.Errorf("input 0: rank %d, need 1 to %d", r, reduceWindowMaxRank)
	}
	if err := requireType(in, "input 0", ops.Bool, ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Int64, ops.Float32, ops.Float64); err != nil {
		return err
	}
	if iv.Type != in.Type || out.Type != in.Type {
		return fmt.Errorf("input 1 (init_value) %s and output 0 %s must have input 0's type %s", iv.Type, out.Type, in.Type)
	}
	if iv.NumElements() < 1 {
		return fmt.Errorf("input 1 (init_value): shape %v has no element", iv.Shape)
	}
	var vecs [3][]int64
	for i, name := range []string{"window_dimensions", "window_strides", "window_dilations"} {
		t, err := n.RequireInput(2 + i)
		if err != nil {
			return err
		}
		label := fmt.Sprintf("input %d (%s)", 2+i, name)
		if t.Type != ops.Int64 || t.Rank() != 1 || t.Shape[0] != r {
			return fmt.Errorf("%s: %s %v, need int64 [%d]", label, t.Type, t.Shape, r)
		}
		if t.Kind != ops.ConstTensor || len(t.Data) < 8*r {
			return ops.NotConstant(label)
		}
		vecs[i] = t.Int64s()[:r]
		for j, v := range vecs[i] {
			if v < 1 || v > math.MaxInt32 {
				return fmt.Errorf("%s: entry %d is %d, need 1 to 2^31-1", label, j, v)
			}
		}
	}
	k.fn, k.rank, k.typ = o.ReduceFunction, r, in.Type
	k.in, k.win = copyShape(in.Shape), make([]int, r)
	k.inS, k.step, k.dil, k.outShape = make([]int, r), make([]int, r), make([]int, r), make([]int, r)
	k.opos, k.wpos = make([]int, r), make([]int, r)
	st := 1
	for i := r - 1; i >= 0; i-- {
		k.inS[i] = st
		st *= in.Shape[i]
	}
	for i := range r {
		w, s, d := vecs[0][i], vecs[1][i], vecs[2][i]
		dw := (w-1)*d + 1
		if int64(in.Shape[i]) >= dw {
			k.outShape[i] = int((int64(in.Shape[i])-dw)/s) + 1
		}
		k.win[i] = int(w)
		k.step[i], k.dil[i] = int(s)*k.inS[i], int(d)*k.inS[i]
	}
	if k.outN, err = ops.ShapeElements(k.outShape, in.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	if k.winN, err = ops.ShapeElements(k.win, 8); err != nil {
		return fmt.Errorf("window: %v", err)
	}
	if k.outN > 0 {
		// Precompute the window's offsets (row-major) once.
		if k.winOffs, err = ops.Alloc[int](n, k.winN, "window offsets"); err != nil {
			return err
		}
		for j := range k.winOffs {
			off := 0
			for d, p := range k.wpos {
				off += p * k.dil[d]
			}
			k.winOffs[j] = off
			for d := r - 1; d >= 0; d-- {
				k.wpos[d]++
				if k.wpos[d] < k.win[d] {
					break
				}
				k.wpos[d] = 0
			}
		}
	}
	out.Shape = copyShape(k.outShape)
	return nil
}

// Eval reduces every window.
func (k *ReduceWindow) Eval(n *ops.Node) error {
	in, iv, out := n.Input(0), n.Input(1), n.Output(0)
	if in == nil || iv == nil || out == nil {
		return errors.New("REDUCE_WINDOW: input or output missing at Eval")
	}
	if err := checkData(in, iv, out); err != nil {
		return err
	}
	if k.outN == 0 {
		return nil
	}
	switch k.typ {
	case ops.Bool, ops.Int8:
		reduceWindowRun(k, ops.View[int8](in.Data), ops.View[int8](iv.Data)[0], ops.View[int8](out.Data))
	case ops.Uint8:
		reduceWindowRun(k, in.Data, iv.Data[0], out.Data)
	case ops.Int16:
		reduceWindowRun(k, in.Int16s(), iv.Int16s()[0], out.Int16s())
	case ops.Int32:
		reduceWindowRun(k, in.Int32s(), iv.Int32s()[0], out.Int32s())
	case ops.Int64:
		reduceWindowRun(k, in.Int64s(), iv.Int64s()[0], out.Int64s())
	case ops.Float32:
		reduceWindowRun(k, in.Float32s(), iv.Float32s()[0], out.Float32s())
	case ops.Float64:
		reduceWindowRun(k, in.Float64s(), iv.Float64s()[0], out.Float64s())
	}
	return nil
}

// reduceWindowRun folds every output element's window into it.
func reduceWindowRun[T int8 | uint8 | int16 | int32 | int64 | float32 | float64](k *ReduceWindow, x []T, init T, y []T) {
	clear(k.opos)
	for o := 0; o < k.outN; o++ {
		base := 0
		for d, p := range k.opos {
			base += p * k.step[d]
		}
		acc := init
		for _, w := range k.winOffs {
			v := x[base+w]
			switch k.fn {
			case schema.ReduceWindowFunctionADD:
				acc += v
			case schema.ReduceWindowFunctionMUL:
				acc *= v
			case schema.ReduceWindowFunctionMINIMUM:
				if !(acc <= v) {
					acc = v
				}
			case schema.ReduceWindowFunctionMAXIMUM:
				if !(acc >= v) {
					acc = v
				}
			case schema.ReduceWindowFunctionALL:
				if acc != 0 && v != 0 {
					acc = 1
				} else {
					acc = 0
				}
			default: // ANY
				if acc != 0 || v != 0 {
					acc = 1
				} else {
					acc = 0
				}
			}
		}
		y[o] = acc
		for d := k.rank - 1; d >= 0; d-- {
			k.opos[d]++
			if k.opos[d] < k.outShape[d] {
				break
			}
			k.opos[d] = 0
		}
	}
}
