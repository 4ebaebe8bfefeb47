package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Cumsum is the kernel of TFLite's CUMSUM operator: the running sums of
// input 0 along the axis held by input 1 (an int32 tensor of one element,
// negative counting from the rank, read at every Eval as TFLite does). The
// output has the input's shape and type. With exclusive each sum leaves
// out its own element (the first is 0); with reverse the sums run from the
// end of the axis.
//
// As TFLite's optimized CumSum (Eigen's scan), every sum starts from 0
// and adds the elements in order, in the input type: integers wrap,
// float32 sums round at every step. An empty input is returned as is
// without looking at the axis (TFLite returns before it reads it); an axis
// outside [-rank, rank) fails Eval. Types: float32, int32, int64. Version
// 1, as TFLite's register.cc.
type Cumsum struct {
	typ                ops.DataType
	shape              []int
	exclusive, reverse bool
	empty              bool
}

// CumsumOptions is TFLite's CumsumOptions.
type CumsumOptions struct {
	Exclusive, Reverse bool
}

// NewCumsum returns a CUMSUM kernel for one node.
func NewCumsum() ops.Kernel { return &Cumsum{} }

func init() {
	register(ops.OpCumsum, NewCumsum, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsCumsumOptions, decodeCumsumOptions)
}

// decodeCumsumOptions decodes TFLite's CumsumOptions table.
func decodeCumsumOptions(t ops.OptionsTable) (any, error) {
	var o schema.CumsumOptions
	initTable(&o, t)
	return &CumsumOptions{Exclusive: o.Exclusive(), Reverse: o.Reverse()}, nil
}

// Prepare validates the node and gives the output the input's shape.
func (k *Cumsum) Prepare(n *ops.Node) error {
	*k = Cumsum{}
	if o, ok := n.Options.(*CumsumOptions); ok && o != nil {
		k.exclusive, k.reverse = o.Exclusive, o.Reverse
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *CumsumOptions", n.Options)
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	axis, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(in, "input 0", ops.Int32, ops.Float32, ops.Int64); err != nil {
		return err
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if err := requireType(axis, "input 1 (axis)", ops.Int32); err != nil {
		return err
	}
	if axis.NumElements() != 1 {
		return fmt.Errorf("input 1 (axis): shape %v, need one element", axis.Shape)
	}
	if in.Rank() < 1 {
		return errors.New("input 0: a scalar has no axis to sum along")
	}
	count, err := numElementsChecked(in, "input 0")
	if err != nil {
		return err
	}
	k.typ = in.Type
	k.shape = copyShape(in.Shape)
	k.empty = count == 0
	out.Shape = copyShape(in.Shape)
	return nil
}

// cumsumAxisError reports an axis outside the rank; a value type, so that
// returning it does not allocate.
type cumsumAxisError struct{ axis, rank int32 }

func (e cumsumAxisError) Error() string {
	return fmt.Sprintf("input 1 (axis): %d is outside [-%d, %d)", e.axis, e.rank, e.rank)
}

// Eval reads the axis and computes the sums.
func (k *Cumsum) Eval(n *ops.Node) error {
	in, at, out := n.Input(0), n.Input(1), n.Output(0)
	if in == nil || at == nil || out == nil {
		return errors.New("CUMSUM: input or output missing at Eval")
	}
	if err := checkData(in, at, out); err != nil {
		return err
	}
	if k.empty {
		return nil
	}
	rank := int32(len(k.shape))
	a := at.Int32s()[0]
	axis := a
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return cumsumAxisError{a, rank}
	}
	outer, inner := 1, 1
	for i, d := range k.shape {
		if int32(i) < axis {
			outer *= d
		} else if int32(i) > axis {
			inner *= d
		}
	}
	size := k.shape[axis]
	switch k.typ {
	case ops.Float32:
		cumsum(in.Float32s(), out.Float32s(), outer, size, inner, k.exclusive, k.reverse)
	case ops.Int32:
		cumsum(in.Int32s(), out.Int32s(), outer, size, inner, k.exclusive, k.reverse)
	default:
		cumsum(in.Int64s(), out.Int64s(), outer, size, inner, k.exclusive, k.reverse)
	}
	return nil
}

// cumsum scans [outer, size, inner] along the middle dimension, all inner
// lanes at once: each output row is the previous row's running sums plus
// one input row, so every lane's sum is accumulated in axis order from 0
// exactly as a scalar scan would.
func cumsum[T float32 | int32 | int64](in, out []T, outer, size, inner int, exclusive, reverse bool) {
	for o := 0; o < outer; o++ {
		base := o * size * inner
		for s := 0; s < size; s++ {
			a := s
			if reverse {
				a = size - 1 - s
			}
			dst := out[base+a*inner : base+(a+1)*inner]
			if s == 0 {
				if exclusive {
					clear(dst)
				} else {
					src := in[base+a*inner : base+(a+1)*inner]
					for i := range dst {
						var zero T
						dst[i] = zero + src[i] // 0 + -0 is +0, as the scan gives
					}
				}
				continue
			}
			prev := a - 1
			if reverse {
				prev = a + 1
			}
			p := out[base+prev*inner : base+(prev+1)*inner]
			src := in[base+a*inner : base+(a+1)*inner]
			if exclusive {
				src = in[base+prev*inner : base+(prev+1)*inner]
			}
			for i := range dst {
				dst[i] = p[i] + src[i]
			}
		}
	}
}
