package builtin

import (
	"errors"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Elu is the kernel of TFLite's ELU operator: y = x for x ≥ 0, e^x − 1
// otherwise. float32 computes expm1 (TFLite's TfLiteExpm1); int8 goes
// through a 256-entry table built as TFLite's elu.cc does, with
// f(x) = expf(x) − 1 in float32 for x < 0.
type Elu struct {
	typ ops.DataType
	lut [256]uint8
}

// NewElu returns an ELU kernel for one node.
func NewElu() ops.Kernel { return &Elu{} }

func init() {
	register(ops.OpElu, NewElu, [2]int{1, 1})
}

// Prepare checks the types and builds the int8 table.
func (k *Elu) Prepare(n *ops.Node) error {
	*k = Elu{}
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Int8); err != nil {
		return err
	}
	k.typ = in.Type
	if in.Type == ops.Int8 {
		inScale, inZP, err := perTensorQuant(in, "input 0")
		if err != nil {
			return err
		}
		outScale, outZP, err := perTensorQuant(out, "output 0")
		if err != nil {
			return err
		}
		lutPopulate8(ops.Int8, inScale, inZP, outScale, outZP, func(x float32) float32 {
			if x < 0 {
				return expf(x) - 1
			}
			return x
		}, &k.lut)
	}
	return nil
}

// Eval applies the activation.
func (k *Elu) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("ELU: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	if k.typ == ops.Int8 {
		lookup8(in.Data[:cnt], out.Data[:cnt], &k.lut)
		return nil
	}
	o := out.Float32s()[:cnt]
	for i, x := range in.Float32s()[:cnt] {
		if x < 0 {
			o[i] = float32(math.Expm1(float64(x)))
		} else {
			o[i] = x
		}
	}
	return nil
}
