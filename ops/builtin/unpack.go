package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Unpack is the kernel of TFLite's UNPACK operator: it splits input 0
// along UnpackOptions.Axis (in [-rank, rank)) into one output per index of
// that dimension, each with the dimension removed. The node must have as
// many outputs as the dimension's size (UnpackOptions.Num, when given, must
// agree). Any fixed-size element type; quantised outputs must share the
// input's scale and zero point. Matches TFLite's unpack.cc.
type Unpack struct {
	outer int // product of dimensions before the axis
	chunk int // bytes per output slice
	num   int
}

// NewUnpack returns an UNPACK kernel for one node.
func NewUnpack() ops.Kernel { return &Unpack{} }

// UnpackOptions is TFLite's UnpackOptions.
type UnpackOptions struct {
	Num  int
	Axis int
}

func init() {
	// The versions TFLite registers; 5 is float16 and bfloat16, 6 the
	// float8 types. Prepare refuses the types this kernel lacks.
	register(ops.OpUnpack, NewUnpack, [2]int{1, 6})
	registerOptions(schema.BuiltinOptionsUnpackOptions, decodeUnpackOptions)
}

// decodeUnpackOptions decodes TFLite's UnpackOptions table.
func decodeUnpackOptions(t ops.OptionsTable) (any, error) {
	var o schema.UnpackOptions
	initTable(&o, t)
	return &UnpackOptions{Num: int(o.Num()), Axis: int(o.Axis())}, nil
}

// Prepare validates the node and sets the output shapes.
func (k *Unpack) Prepare(n *ops.Node) error {
	*k = Unpack{}
	var opts UnpackOptions
	if o, ok := n.Options.(*UnpackOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *UnpackOptions", n.Options)
	}
	if len(n.Inputs) != 1 {
		return fmt.Errorf("has %d inputs, needs 1", len(n.Inputs))
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if in.Type.Size() == 0 {
		return fmt.Errorf("input 0: type %s is not supported", in.Type)
	}
	rank := in.Rank()
	axis := opts.Axis
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return fmt.Errorf("options: axis %d is outside an input of rank %d", opts.Axis, rank)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	k.num = in.Shape[axis]
	if opts.Num != 0 && opts.Num != k.num {
		return fmt.Errorf("options: num %d, but dimension %d has size %d", opts.Num, axis, k.num)
	}
	if len(n.Outputs) != k.num {
		return fmt.Errorf("has %d outputs, dimension %d of the input has size %d", len(n.Outputs), axis, k.num)
	}
	outShape := append(copyShape(in.Shape[:axis]), in.Shape[axis+1:]...)
	for i, o := range n.Outputs {
		if o == nil {
			return fmt.Errorf("output %d is missing", i)
		}
		if o.Type != in.Type {
			return fmt.Errorf("output %d: type %s differs from input type %s", i, o.Type, in.Type)
		}
		if err := sameQuant(in, o, fmt.Sprintf("output %d", i)); err != nil {
			return err
		}
		o.Shape = copyShape(outShape)
	}
	k.outer, k.chunk = 1, in.Type.Size()
	for d, v := range in.Shape {
		if d < axis {
			k.outer *= v
		} else if d > axis {
			k.chunk *= v
		}
	}
	return nil
}

// Eval distributes the slices.
func (k *Unpack) Eval(n *ops.Node) error {
	in := n.Input(0)
	if in == nil || len(in.Data) < k.outer*k.num*k.chunk {
		return errors.New("UNPACK: input missing or short at Eval")
	}
	for _, o := range n.Outputs {
		if o == nil || len(o.Data) < k.outer*k.chunk {
			return errShortData
		}
	}
	i := 0
	for outer := 0; outer < k.outer; outer++ {
		for _, o := range n.Outputs {
			copy(o.Data[outer*k.chunk:(outer+1)*k.chunk], in.Data[i:i+k.chunk])
			i += k.chunk
		}
	}
	return nil
}
