package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Logistic is the kernel of TFLite's LOGISTIC operator, y = 1/(1+e^−x)
// elementwise; the output has the input's shape and type.
//
// float32 goes through arch.LogisticEigenF32: TFLite's own float kernel
// on x86 (Eigen's packet logistic, the scalar form for the last size%4
// elements), bit for bit. int8 and uint8 use a 256-entry table built at Prepare
// exactly as TFLite's builtin (generic optimised) kernel does
// (LUTPopulate with a float32 sigmoid); the output scale must be exactly
// 1/256, as TFLite checks (the zero point is free; TFLite models use -128
// for int8 and 0 for uint8). int16 (op version 3) needs zero points 0,
// an output scale of exactly 2^-15 and an input scale of 2^-12: gemmlowp's
// fixed-point logistic on Q3.12, as TFLite computes it; any other
// positive input scale runs TFLite's interpolated sigmoid-table path
// (reference_integer_ops::Logistic; activation_int16_common.go).
type Logistic struct {
	lut   [256]uint8
	q16   sigmoidTanh16
	split unarySplit
}

// NewLogistic returns a LOGISTIC kernel for one node.
func NewLogistic() ops.Kernel { return &Logistic{} }

func init() {
	// TFLite 1-3; 3 is int16.
	register(ops.OpLogistic, NewLogistic, [2]int{1, 3})
}

// Prepare checks types and quantisation and builds the table.
func (k *Logistic) Prepare(n *ops.Node) error {
	k.split.init(k.part)
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	switch in.Type {
	case ops.Float32:
		return nil
	case ops.Int8, ops.Uint8:
		inScale, inZP, err := perTensorQuant(in, "input 0")
		if err != nil {
			return err
		}
		outScale, outZP, err := perTensorQuant(out, "output 0")
		if err != nil {
			return err
		}
		if float64(outScale) != 1.0/256 {
			return fmt.Errorf("output 0: scale %g, LOGISTIC needs exactly 1/256", outScale)
		}
		lutPopulate8(in.Type, inScale, inZP, outScale, outZP, sigmoidf, &k.lut)
		return nil
	case ops.Int16:
		return k.q16.prepare16(in, out, false)
	}
	return fmt.Errorf("input 0: type %s not supported (float32, int8, uint8, int16)", in.Type)
}

// Eval applies the function.
func (k *Logistic) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("LOGISTIC: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	cost := 1
	if in.Type == ops.Float32 || in.Type == ops.Int16 {
		cost = 8
	}
	k.split.run(n, in, out, cnt, cost)
	return nil
}

// part computes the output elements [lo, hi).
func (k *Logistic) part(lo, hi int) {
	in, out := k.split.in, k.split.out
	switch in.Type {
	case ops.Float32:
		// TFLite's own float logistic (Eigen's approximation), bit for
		// bit.
		arch.LogisticEigenF32(out.Float32s()[lo:hi], in.Float32s()[lo:hi])
	case ops.Int16:
		k.q16.eval16(out.Int16s()[lo:hi], in.Int16s()[lo:hi])
	default:
		lookup8(in.Data[lo:hi], out.Data[lo:hi], &k.lut)
	}
}
