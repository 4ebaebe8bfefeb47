package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Range is the kernel of TFLite's RANGE operator: the vector
// start, start+delta, start+2·delta, … of the values before limit, from
// three scalars (rank 0) start, limit and delta of one type, float32,
// int32 or int64, which the output has too. As TFLite's range.cc: delta
// must not be 0 and must point from start towards limit (start = limit
// gives an empty vector); the length is ceil(|limit−start| / |delta|) for
// integers and ceil(|(limit−start)/delta|) in float32 arithmetic for
// floats; each element is the previous one plus delta (for floats the
// float32 sum, as TFLite accumulates, not start + i·delta). The output is
// sized at Prepare when the three inputs are constants, and at Eval
// otherwise (a dynamic tensor). Versions 1 (int32, float32) and 2 (int64),
// as TFLite's register.cc.
type Range struct {
	typ   ops.DataType
	count int
	shape [1]int // Eval's shape buffer (a literal would escape)
}

// NewRange returns a RANGE kernel for one node.
func NewRange() ops.Kernel { return &Range{} }

func init() {
	register(ops.OpRange, NewRange, [2]int{1, 2})
}

// Prepare checks the scalars' types and sizes the output when they are
// constants.
func (k *Range) Prepare(n *ops.Node) error {
	*k = Range{}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	var in [3]*ops.Tensor
	for i, role := range []string{"start", "limit", "delta"} {
		t, err := n.RequireInput(i)
		if err != nil {
			return err
		}
		if t.Rank() != 0 {
			return fmt.Errorf("%s: shape %v, need a scalar", ioLabel("input", i, role), t.Shape)
		}
		in[i] = t
	}
	k.typ = in[0].Type
	if err := requireType(in[0], "input 0 (start)", ops.Float32, ops.Int32, ops.Int64); err != nil {
		return err
	}
	for i, role := range []string{"limit", "delta"} {
		if in[i+1].Type != k.typ {
			return fmt.Errorf("%s: type %s differs from start's %s", ioLabel("input", i+1, role), in[i+1].Type, k.typ)
		}
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if out.Type != k.typ {
		return fmt.Errorf("output 0: type %s differs from start's %s", out.Type, k.typ)
	}
	if !in[0].IsConstant() || !in[1].IsConstant() || !in[2].IsConstant() {
		return n.SetOutputDynamic(0)
	}
	c, err := rangeCount(in[0], in[1], in[2])
	if err != nil {
		return err
	}
	k.count = c
	out.Shape = []int{c}
	return nil
}

// rangeCount is the length of the range, or an error for a zero delta, a
// delta pointing away from limit or a length beyond 2^31−1.
func rangeCount(start, limit, delta *ops.Tensor) (int, error) {
	if len(start.Data) < start.Type.Size() || len(limit.Data) < limit.Type.Size() || len(delta.Data) < delta.Type.Size() {
		return 0, errors.New("inputs: data missing")
	}
	var size uint64
	switch start.Type {
	case ops.Float32:
		s, l, d := start.Float32s()[0], limit.Float32s()[0], delta.Float32s()[0]
		if d == 0 {
			return 0, errors.New("input 2 (delta): 0")
		}
		if !(s >= l && d < 0 || s <= l && d > 0) {
			return 0, fmt.Errorf("inputs: start %g, limit %g, delta %g: delta does not lead from start to limit", s, l, d)
		}
		f := math.Ceil(math.Abs(float64((l - s) / d)))
		if !(f <= math.MaxInt32) {
			return 0, fmt.Errorf("inputs: start %g, limit %g, delta %g: %g elements, more than 2^31-1", s, l, d, f)
		}
		size = uint64(f)
	default:
		var s, l, d int64
		if start.Type == ops.Int32 {
			s, l, d = int64(start.Int32s()[0]), int64(limit.Int32s()[0]), int64(delta.Int32s()[0])
		} else {
			s, l, d = start.Int64s()[0], limit.Int64s()[0], delta.Int64s()[0]
		}
		if d == 0 {
			return 0, errors.New("input 2 (delta): 0")
		}
		if !(s >= l && d < 0 || s <= l && d > 0) {
			return 0, fmt.Errorf("inputs: start %d, limit %d, delta %d: delta does not lead from start to limit", s, l, d)
		}
		// |limit−start| and |delta| as unsigned values, which cannot
		// overflow, then a rounded-up division.
		diff := uint64(l) - uint64(s)
		ad := uint64(d)
		if d < 0 {
			diff, ad = uint64(s)-uint64(l), -uint64(d)
		}
		size = diff / ad
		if diff%ad != 0 {
			size++
		}
	}
	if size > math.MaxInt32 {
		return 0, fmt.Errorf("inputs: %d elements, more than 2^31-1", size)
	}
	return int(size), nil
}

// Eval sizes a dynamic output and writes the range.
func (k *Range) Eval(n *ops.Node) error {
	start, limit, delta, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if start == nil || limit == nil || delta == nil || out == nil {
		return errors.New("RANGE: input or output missing at Eval")
	}
	if out.Kind == ops.DynamicTensor {
		c, err := rangeCount(start, limit, delta)
		if err != nil {
			return err
		}
		k.shape[0] = c
		if err := n.ResizeOutput(0, k.shape[:]); err != nil {
			return err
		}
		k.count = c
	}
	if err := checkData(start, delta, out); err != nil {
		return err
	}
	if out.NumElements() < k.count {
		return errShortData
	}
	switch k.typ {
	case ops.Float32:
		v, d, o := start.Float32s()[0], delta.Float32s()[0], out.Float32s()[:k.count]
		for i := range o {
			o[i] = v
			v += d
		}
	case ops.Int32:
		v, d, o := start.Int32s()[0], delta.Int32s()[0], out.Int32s()[:k.count]
		for i := range o {
			o[i] = v
			v += d
		}
	default:
		v, d, o := start.Int64s()[0], delta.Int64s()[0], out.Int64s()[:k.count]
		for i := range o {
			o[i] = v
			v += d
		}
	}
	return nil
}
