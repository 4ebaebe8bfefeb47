package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Atan2 is the kernel of TFLite's ATAN2 operator: out[i] = atan2(y[i],
// x[i]), the angle of the point (x, y) in radians in [−π, π], with input 0
// y and input 1 x of one shape (no broadcasting) and type.
//
// Types, as TFLite's atan2.cc: float32 and float64 (computed in float64
// and, for float32, rounded once: a correctly rounded atan2f; TFLite calls
// the C library's atan2f, which need not be, so results may differ from
// TFLite's by an ulp — glibc 2.36's did on one of the corpus's inputs),
// and float16 and bfloat16, which TFLite widens to float32, computes with
// atan2f and rounds back to nearest even. TFLite's Prepare
// checks only that the ranks agree and then reads x at y's indices; tflrun
// needs the shapes to agree, so it never reads past x. Version 1, as
// TFLite's register.cc.
type Atan2 struct {
	typ   ops.DataType
	count int
}

// NewAtan2 returns an ATAN2 kernel for one node.
func NewAtan2() ops.Kernel { return &Atan2{} }

func init() {
	register(ops.OpAtan2, NewAtan2, [2]int{1, 1})
}

// Prepare validates the node and gives the output y's shape.
func (k *Atan2) Prepare(n *ops.Node) error {
	*k = Atan2{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	y, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	x, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if !ops.SameShape(y.Shape, x.Shape) {
		return fmt.Errorf("input 1 (x): shape %v differs from input 0 (y) shape %v", x.Shape, y.Shape)
	}
	if x.Type != y.Type {
		return fmt.Errorf("input 1 (x): type %s differs from input 0 (y) type %s", x.Type, y.Type)
	}
	if out.Type != y.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, y.Type)
	}
	if err := requireType(y, "input 0 (y)", ops.Float32, ops.Float64, ops.Float16, ops.BFloat16); err != nil {
		return err
	}
	if k.count, err = numElementsChecked(y, "input 0 (y)"); err != nil {
		return err
	}
	k.typ = y.Type
	out.Shape = copyShape(y.Shape)
	return nil
}

// Eval computes the angles.
func (k *Atan2) Eval(n *ops.Node) error {
	y, x, out := n.Input(0), n.Input(1), n.Output(0)
	if y == nil || x == nil || out == nil {
		return errors.New("ATAN2: input or output missing at Eval")
	}
	if err := checkData(y, x, out); err != nil {
		return err
	}
	c := k.count
	switch k.typ {
	case ops.Float32:
		ys, xs, os := y.Float32s()[:c], x.Float32s()[:c], out.Float32s()[:c]
		for i := range os {
			os[i] = float32(math.Atan2(float64(ys[i]), float64(xs[i])))
		}
	case ops.Float64:
		ys, xs, os := y.Float64s()[:c], x.Float64s()[:c], out.Float64s()[:c]
		for i := range os {
			os[i] = math.Atan2(ys[i], xs[i])
		}
	case ops.Float16:
		ys, xs, os := y.Uint16s()[:c], x.Uint16s()[:c], out.Uint16s()[:c]
		for i := range os {
			a := float32(math.Atan2(float64(halfToFloat32(ys[i])), float64(halfToFloat32(xs[i]))))
			os[i] = float32ToHalf(a)
		}
	default: // BFloat16
		ys, xs, os := y.Uint16s()[:c], x.Uint16s()[:c], out.Uint16s()[:c]
		for i := range os {
			yf, xf := math.Float32frombits(uint32(ys[i])<<16), math.Float32frombits(uint32(xs[i])<<16)
			a := float32(math.Atan2(float64(yf), float64(xf)))
			os[i] = float32ToBFloat16(a)
		}
	}
	return nil
}
