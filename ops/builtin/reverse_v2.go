package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// ReverseV2 is the kernel of TFLite's REVERSE_V2 operator: input 0 with the
// order of elements reversed along each axis listed in input 1 (int32,
// negative counting from the end, no repeats), which must be a constant
// tensor. The output has the input's shape and type (any fixed-size
// type). Matches TFLite's reverse.cc.
type ReverseV2 struct {
	elem   int
	shape  []int
	rev    []bool
	stride []int
	pos    []int
	total  int
}

// NewReverseV2 returns a REVERSE_V2 kernel for one node.
func NewReverseV2() ops.Kernel { return &ReverseV2{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpReverseV2, NewReverseV2, [2]int{1, 4})
}

// Prepare validates the axes and sets the output shape.
func (k *ReverseV2) Prepare(n *ops.Node) error {
	*k = ReverseV2{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	axes, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	if axes.Type != ops.Int32 || axes.Rank() != 1 {
		return fmt.Errorf("input 1 (axis): %s%v, need a 1-D int32 tensor", axes.Type, axes.Shape)
	}
	na := axes.Shape[0]
	if axes.Kind != ops.ConstTensor || len(axes.Data) < 4*na {
		return ops.NotConstant("input 1 (axis)")
	}
	rank := in.Rank()
	k.elem = in.Type.Size()
	k.shape = copyShape(in.Shape)
	k.rev = make([]bool, rank)
	k.stride = make([]int, rank)
	k.pos = make([]int, rank)
	for _, a := range axes.Int32s()[:na] {
		d := int(a)
		if d < 0 {
			d += rank
		}
		if d < 0 || d >= rank {
			return fmt.Errorf("input 1 (axis): axis %d is outside an input of rank %d", a, rank)
		}
		if k.rev[d] {
			return fmt.Errorf("input 1 (axis): axis %d is listed twice", a)
		}
		k.rev[d] = true
	}
	s := 1
	for d := rank - 1; d >= 0; d-- {
		k.stride[d] = s
		s *= in.Shape[d]
	}
	k.total = in.NumElements()
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval writes the output in order, reading mirrored positions.
func (k *ReverseV2) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("REVERSE_V2: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.total == 0 {
		return nil
	}
	rank := len(k.shape)
	if rank == 0 {
		copy(out.Data[:k.elem], in.Data)
		return nil
	}
	clear(k.pos)
	last := rank - 1
	inner, eb := k.shape[last], k.elem
	o := 0
	for {
		base := 0
		for d := 0; d < last; d++ {
			p := k.pos[d]
			if k.rev[d] {
				p = k.shape[d] - 1 - p
			}
			base += p * k.stride[d]
		}
		if !k.rev[last] {
			copy(out.Data[o:o+inner*eb], in.Data[base*eb:(base+inner)*eb])
			o += inner * eb
		} else {
			for j := inner - 1; j >= 0; j-- {
				s := (base + j) * eb
				copy(out.Data[o:o+eb], in.Data[s:s+eb])
				o += eb
			}
		}
		d := last - 1
		for ; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.shape[d] {
				break
			}
			k.pos[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}
