package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// OneHot is the kernel of TFLite's ONE_HOT operator: input 0 (indices) gets
// a new dimension of size depth (input 1) at OneHotOptions.axis (−1: last),
// holding on_value (input 2) where its position equals the index and
// off_value (input 3) elsewhere:
//
//	out[p..., j, s...] = indices[p..., s...] == j ? on : off.
//
// As TFLite's one_hot.cc, int64 indices compare through a C++ cast to int
// (their low 32 bits), and indices outside [0, depth) give a row of
// off_value. on_value and off_value are one-element tensors of the output
// type.
//
// Types: output float32, int32, int64, int8, uint8 or bool (TFLite's
// Prepare also lets int16 through, then fails at Eval; tflrun refuses it at
// Prepare); indices int32 or int64; depth int32. TFLite sizes the output
// from depth's value: tflrun needs it constant (dynamic tensors are not
// supported yet). Version 1, as TFLite's register.cc.
type OneHot struct {
	prefix, depth, suffix int
	count                 int
	elem                  int // bytes per output element
	idx64                 bool
}

// OneHotOptions is TFLite's OneHotOptions.
type OneHotOptions struct {
	Axis int
}

// NewOneHot returns a ONE_HOT kernel for one node.
func NewOneHot() ops.Kernel { return &OneHot{} }

func init() {
	register(ops.OpOneHot, NewOneHot, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsOneHotOptions, decodeOneHotOptions)
}

// decodeOneHotOptions decodes TFLite's OneHotOptions table.
func decodeOneHotOptions(t ops.OptionsTable) (any, error) {
	var o schema.OneHotOptions
	initTable(&o, t)
	return &OneHotOptions{Axis: int(o.Axis())}, nil
}

// Prepare validates the node and sets the output shape.
func (k *OneHot) Prepare(n *ops.Node) error {
	*k = OneHot{}
	axis := -1 // the schema default
	if o, ok := n.Options.(*OneHotOptions); ok && o != nil {
		axis = o.Axis
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *OneHotOptions", n.Options)
	}
	if err := n.CheckIO(4, 4, 1); err != nil {
		return err
	}
	var ts [4]*ops.Tensor
	for i := range ts {
		t, err := n.RequireInput(i)
		if err != nil {
			return err
		}
		ts[i] = t
	}
	idx, dt, on, off := ts[0], ts[1], ts[2], ts[3]
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if on.Type == ops.Int16 {
		return errors.New("input 2 (on_value): type int16 is not supported (TFLite's ONE_HOT fails on it at Eval)")
	}
	if err := requireType(on, "input 2 (on_value)", ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Bool); err != nil {
		return err
	}
	if out.Type != on.Type {
		return fmt.Errorf("output 0: type %s differs from on_value type %s", out.Type, on.Type)
	}
	if err := requireType(idx, "input 0 (indices)", ops.Int32, ops.Int64); err != nil {
		return err
	}
	rank := idx.Rank()
	if axis == -1 {
		axis = rank
	}
	if axis < 0 || axis > rank {
		return fmt.Errorf("options: axis %d is outside [-1, %d]", axis, rank)
	}
	if dt.NumElements() != 1 || on.NumElements() != 1 || off.NumElements() != 1 {
		return fmt.Errorf("depth %v, on_value %v and off_value %v must each have one element", dt.Shape, on.Shape, off.Shape)
	}
	if off.Type != on.Type {
		return fmt.Errorf("input 3 (off_value): type %s differs from on_value type %s", off.Type, on.Type)
	}
	cnt, err := numElementsChecked(idx, "input 0 (indices)")
	if err != nil {
		return err
	}
	dv, err := constInts(dt, 1, "depth", false)
	if err != nil {
		return err
	}
	if dv[0] < 0 {
		return fmt.Errorf("input 1 (depth): %d is negative", dv[0])
	}
	shape := make([]int, 0, rank+1)
	shape = append(shape, idx.Shape[:axis]...)
	shape = append(shape, int(dv[0]))
	shape = append(shape, idx.Shape[axis:]...)
	if k.count, err = ops.ShapeElements(shape, on.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.elem, k.idx64 = on.Type.Size(), idx.Type == ops.Int64
	k.prefix = 1
	for _, d := range idx.Shape[:axis] {
		k.prefix *= d
	}
	k.depth = int(dv[0])
	k.suffix = 0
	if k.prefix > 0 {
		k.suffix = cnt / k.prefix
	}
	return nil
}

// Eval writes the rows.
func (k *OneHot) Eval(n *ops.Node) error {
	idx, on, off, out := n.Input(0), n.Input(2), n.Input(3), n.Output(0)
	if idx == nil || on == nil || off == nil || out == nil {
		return errors.New("ONE_HOT: input or output missing at Eval")
	}
	if err := checkData(idx, on, off, out); err != nil {
		return err
	}
	if k.count == 0 {
		return nil
	}
	e := k.elem
	onB, offB := on.Data[:e], off.Data[:e]
	dst := out.Data
	o := 0
	var i32 []int32
	var i64 []int64
	if k.idx64 {
		i64 = idx.Int64s()
	} else {
		i32 = idx.Int32s()
	}
	for p := 0; p < k.prefix; p++ {
		for j := 0; j < k.depth; j++ {
			for s := 0; s < k.suffix; s++ {
				var v int32
				if k.idx64 {
					v = int32(i64[p*k.suffix+s]) // C++ static_cast<int>
				} else {
					v = i32[p*k.suffix+s]
				}
				if int(v) == j {
					copy(dst[o:o+e], onB)
				} else {
					copy(dst[o:o+e], offB)
				}
				o += e
			}
		}
	}
	return nil
}
