package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Dilate is the kernel of TFLite's DILATE operator (StableHLO's interior
// padding): input 0 of rank r ≥ 1, input 1 the dilations (int32 [r], each
// ≥ 1), input 2 a padding value of input 0's type (its first element is
// used). Output dimension i is (d_i − 1)·k_i + 1; output element
// (j_0·k_0, …) is input element (j_0, …) and every other element is the
// padding value, as TFLite's dilate.cc. Any fixed-size element type,
// copied bit for bit. With constant dilations the output is sized at
// Prepare; otherwise it is dynamic and sized at Eval. A zero input
// dimension with a dilation above 1 (a negative output size in TFLite) is
// an error; with dilation 1 it gives an empty output.
type Dilate struct {
	rank     int
	elem     int
	dynamic  bool
	in, outS []int // input shape, output element strides
	dil      []int
	shape    []int // output shape
	pos      []int // Eval odometer
	count    int   // input elements
}

// NewDilate returns a DILATE kernel for one node.
func NewDilate() ops.Kernel { return &Dilate{} }

func init() {
	register(ops.OpDilate, NewDilate, [2]int{1, 1})
}

// Prepare checks the inputs and sizes the output when the dilations are
// constant.
func (k *Dilate) Prepare(n *ops.Node) error {
	*k = Dilate{}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	dl, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	pv, err := n.RequireInput(2)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if in.Rank() == 0 {
		return errors.New("input 0: a scalar cannot be dilated (rank ≥ 1 needed)")
	}
	if in.Type.Size() == 0 {
		return fmt.Errorf("input 0: type %s is not supported", in.Type)
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input 0's %s", out.Type, in.Type)
	}
	if pv.Type != in.Type {
		return fmt.Errorf("input 2 (padding_value): type %s differs from input 0's %s", pv.Type, in.Type)
	}
	if pv.NumElements() < 1 {
		return fmt.Errorf("input 2 (padding_value): shape %v has no element", pv.Shape)
	}
	if dl.Type != ops.Int32 || dl.Rank() != 1 || dl.Shape[0] != in.Rank() {
		return fmt.Errorf("input 1 (dilations): %s %v, need int32 [%d]", dl.Type, dl.Shape, in.Rank())
	}
	if k.count, err = numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	k.rank, k.elem = in.Rank(), in.Type.Size()
	k.in = copyShape(in.Shape)
	k.outS = make([]int, k.rank)
	k.dil = make([]int, k.rank)
	k.shape = make([]int, k.rank)
	k.pos = make([]int, k.rank)
	if dl.Kind != ops.ConstTensor {
		k.dynamic = true
		return n.SetOutputDynamic(0)
	}
	if len(dl.Data) < 4*k.rank {
		return ops.NotConstant("input 1 (dilations)")
	}
	if err := k.setup(dl); err != nil {
		return err
	}
	out.Shape = copyShape(k.shape)
	return nil
}

// setup reads the dilations and computes the output shape and strides.
func (k *Dilate) setup(dl *ops.Tensor) error {
	for i, d := range dl.Int32s()[:k.rank] {
		if d < 1 {
			return fmt.Errorf("input 1 (dilations): entry %d is %d, need ≥ 1", i, d)
		}
		if k.in[i] == 0 {
			if d != 1 {
				return fmt.Errorf("input 0: dimension %d is 0, which dilation %d would make negative", i, d)
			}
			k.shape[i] = 0
		} else {
			s := int64(k.in[i]-1)*int64(d) + 1
			if s > math.MaxInt32 {
				return fmt.Errorf("output 0: dimension %d (%d dilated by %d) overflows", i, k.in[i], d)
			}
			k.shape[i] = int(s)
		}
		k.dil[i] = int(d)
	}
	if _, err := ops.ShapeElements(k.shape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	st := 1
	for i := k.rank - 1; i >= 0; i-- {
		k.outS[i] = st
		st *= k.shape[i]
	}
	return nil
}

// Eval fills the output with the padding value and scatters the input.
func (k *Dilate) Eval(n *ops.Node) error {
	in, dl, pv, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if in == nil || dl == nil || pv == nil || out == nil {
		return errors.New("DILATE: input or output missing at Eval")
	}
	if k.dynamic {
		if err := checkData(dl); err != nil {
			return err
		}
		if err := k.setup(dl); err != nil {
			return err
		}
		if err := n.ResizeOutput(0, k.shape); err != nil {
			return err
		}
	}
	if err := checkData(in, pv, out); err != nil {
		return err
	}
	e := k.elem
	o := out.Data[:out.Bytes()]
	if len(o) == 0 {
		return nil
	}
	copy(o, pv.Data[:e])
	for filled := e; filled < len(o); filled *= 2 {
		copy(o[filled:], o[:filled])
	}
	clear(k.pos)
	for i := 0; i < k.count; i++ {
		off := 0
		for d, p := range k.pos {
			off += p * k.dil[d] * k.outS[d]
		}
		copy(o[off*e:(off+1)*e], in.Data[i*e:(i+1)*e])
		for d := k.rank - 1; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.in[d] {
				break
			}
			k.pos[d] = 0
		}
	}
	return nil
}
