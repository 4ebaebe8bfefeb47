package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// StablehloPad is the kernel of TFLite's STABLEHLO_PAD operator
// (StableHLO's pad): input 0 of rank 1 to 8, input 1 a one-element
// padding value of the same type. Along dimension i the output holds
// EdgePaddingLow[i] padding elements (or, when negative, that many
// elements cropped), the input's elements with InteriorPadding[i] padding
// elements between each two, then EdgePaddingHigh[i] (likewise):
// output dimension d + (d−1)·interior + low + high. As TFLite's
// stablehlo_pad.cc, when any output dimension comes out ≤ 0 every output
// dimension is 0 (an empty output). Any fixed-size element type, copied
// bit for bit. A negative interior padding, a padding vector of the wrong
// length and output sizes beyond 2^31 are errors.
type StablehloPad struct {
	elem     int
	in       []int
	lo, step []int // per dimension: edge_padding_low, interior+1
	outS     []int // output element strides
	pos      []int // Eval odometer
	count    int   // input elements
	empty    bool
}

// StablehloPadOptions is TFLite's StablehloPadOptions, one entry per
// input dimension.
type StablehloPadOptions struct {
	EdgePaddingLow, EdgePaddingHigh, InteriorPadding []int64
}

// NewStablehloPad returns a STABLEHLO_PAD kernel for one node.
func NewStablehloPad() ops.Kernel { return &StablehloPad{} }

func init() {
	register(ops.OpStablehloPad, NewStablehloPad, [2]int{1, 1})
	registerOptions2(schema.BuiltinOptions2StablehloPadOptions, decodeStablehloPadOptions)
}

// decodeStablehloPadOptions decodes TFLite's StablehloPadOptions table.
func decodeStablehloPadOptions(t ops.OptionsTable) (any, error) {
	var o schema.StablehloPadOptions
	initTable(&o, t)
	list := func(n int, get func(int) int64) []int64 {
		l := make([]int64, n)
		for i := range l {
			l[i] = get(i)
		}
		return l
	}
	if o.EdgePaddingLowLength() > stablehloPadMaxRank || o.EdgePaddingHighLength() > stablehloPadMaxRank || o.InteriorPaddingLength() > stablehloPadMaxRank {
		return nil, fmt.Errorf("more than %d padding entries", stablehloPadMaxRank)
	}
	return &StablehloPadOptions{
		EdgePaddingLow:  list(o.EdgePaddingLowLength(), o.EdgePaddingLow),
		EdgePaddingHigh: list(o.EdgePaddingHighLength(), o.EdgePaddingHigh),
		InteriorPadding: list(o.InteriorPaddingLength(), o.InteriorPadding),
	}, nil
}

// stablehloPadMaxRank is TFLite's TFLITE_STABLEHLO_PAD_PARAMS_MAX_DIMENSION_COUNT.
const stablehloPadMaxRank = 8

// Prepare checks the node and sizes the output.
func (k *StablehloPad) Prepare(n *ops.Node) error {
	*k = StablehloPad{}
	o, ok := n.Options.(*StablehloPadOptions)
	if !ok || o == nil {
		return fmt.Errorf("options: have %T, need *StablehloPadOptions", n.Options)
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	pv, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	r := in.Rank()
	if r < 1 || r > stablehloPadMaxRank {
		return fmt.Errorf("input 0: rank %d, need 1 to %d", r, stablehloPadMaxRank)
	}
	if in.Type.Size() == 0 {
		return fmt.Errorf("input 0: type %s is not supported", in.Type)
	}
	if pv.Type != in.Type || out.Type != in.Type {
		return fmt.Errorf("input 1 (padding_value) %s and output 0 %s must have input 0's type %s", pv.Type, out.Type, in.Type)
	}
	if pv.NumElements() != 1 {
		return fmt.Errorf("input 1 (padding_value): shape %v, need one element", pv.Shape)
	}
	for _, l := range []struct {
		name string
		v    []int64
	}{{"edge_padding_low", o.EdgePaddingLow}, {"edge_padding_high", o.EdgePaddingHigh}, {"interior_padding", o.InteriorPadding}} {
		if len(l.v) != r {
			return fmt.Errorf("options: %s has %d entries for an input of rank %d", l.name, len(l.v), r)
		}
	}
	if k.count, err = numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	k.elem, k.in = in.Type.Size(), copyShape(in.Shape)
	k.lo, k.step, k.outS, k.pos = make([]int, r), make([]int, r), make([]int, r), make([]int, r)
	shape := make([]int, r)
	for i, d := range in.Shape {
		lo, hi, ip := o.EdgePaddingLow[i], o.EdgePaddingHigh[i], o.InteriorPadding[i]
		if ip < 0 {
			return fmt.Errorf("options: interior_padding[%d] is %d, need ≥ 0", i, ip)
		}
		const lim = math.MaxInt32
		if ip > lim || lo > lim || lo < -lim || hi > lim || hi < -lim {
			return fmt.Errorf("options: padding of dimension %d (%d, %d, interior %d) is out of range", i, lo, hi, ip)
		}
		gaps := int64(max(d-1, 0))
		s := int64(d) + gaps*ip + lo + hi
		if s > lim {
			return fmt.Errorf("output 0: dimension %d (%d padded by %d, %d, interior %d) overflows", i, d, lo, hi, ip)
		}
		if s <= 0 {
			k.empty = true
		}
		shape[i] = int(max(s, 0))
		k.lo[i], k.step[i] = int(lo), int(ip)+1
	}
	if k.empty {
		clear(shape)
	}
	if _, err := ops.ShapeElements(shape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	st := 1
	for i := r - 1; i >= 0; i-- {
		k.outS[i] = st
		st *= shape[i]
	}
	out.Shape = shape
	return nil
}

// Eval fills the output with the padding value and places every input
// element that falls inside it.
func (k *StablehloPad) Eval(n *ops.Node) error {
	in, pv, out := n.Input(0), n.Input(1), n.Output(0)
	if in == nil || pv == nil || out == nil {
		return errors.New("STABLEHLO_PAD: input or output missing at Eval")
	}
	if err := checkData(in, pv, out); err != nil {
		return err
	}
	e := k.elem
	o := out.Data[:out.Bytes()]
	if k.empty || len(o) == 0 {
		return nil
	}
	copy(o, pv.Data[:e])
	for filled := e; filled < len(o); filled *= 2 {
		copy(o[filled:], o[:filled])
	}
	clear(k.pos)
	shape := out.Shape
	for i := 0; i < k.count; i++ {
		off, inside := 0, true
		for d, p := range k.pos {
			q := int64(k.lo[d]) + int64(p)*int64(k.step[d])
			if q < 0 || q >= int64(shape[d]) {
				inside = false
				break
			}
			off += int(q) * k.outS[d]
		}
		if inside {
			copy(o[off*e:(off+1)*e], in.Data[i*e:(i+1)*e])
		}
		for d := len(k.pos) - 1; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.in[d] {
				break
			}
			k.pos[d] = 0
		}
	}
	return nil
}
