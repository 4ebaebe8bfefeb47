package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Tanh is the kernel of TFLite's TANH operator, y = tanh(x) elementwise;
// the output has the input's shape and type.
//
// float32 goes through arch.Tanh, the vector tanh of the LSTM kernels
// (absolute error below 8e-8 over every float32; TFLite's kernel, Eigen's
// rational approximation, agrees to a few ulp). int8 and uint8 use a 256-entry table built at Prepare
// exactly as TFLite's builtin (generic optimised) kernel does
// (LUTPopulate with a float32 tanh); like TFLite, any output scale and
// zero point are accepted (models use 1/128 and 0 for int8, 128 for
// uint8). int16 (op version 3) needs zero points 0, an output scale of
// 2^-15 and an input scale of 2^-12 or 2^-11 (doubled first): gemmlowp's
// fixed-point tanh on Q3.12, as TFLite computes it; any other positive
// input scale runs TFLite's interpolated sigmoid-table path
// (reference_integer_ops::Tanh; activation_int16_common.go).
type Tanh struct {
	lut   [256]uint8
	q16   sigmoidTanh16
	split unarySplit
}

// NewTanh returns a TANH kernel for one node.
func NewTanh() ops.Kernel { return &Tanh{} }

func init() {
	// TFLite 1-3; 3 is int16.
	register(ops.OpTanh, NewTanh, [2]int{1, 3})
}

// Prepare checks types and quantisation and builds the table.
func (k *Tanh) Prepare(n *ops.Node) error {
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
		lutPopulate8(in.Type, inScale, inZP, outScale, outZP, tanhf, &k.lut)
		return nil
	case ops.Int16:
		return k.q16.prepare16(in, out, true)
	}
	return fmt.Errorf("input 0: type %s not supported (float32, int8, uint8, int16)", in.Type)
}

// Eval applies the function.
func (k *Tanh) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("TANH: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	cost := 1
	if in.Type == ops.Float32 || in.Type == ops.Int16 {
		cost = 16
	}
	k.split.run(n, in, out, cnt, cost)
	return nil
}

// part computes the output elements [lo, hi).
func (k *Tanh) part(lo, hi int) {
	in, out := k.split.in, k.split.out
	switch in.Type {
	case ops.Float32:
		arch.Tanh(out.Float32s()[lo:hi], in.Float32s()[lo:hi])
	case ops.Int16:
		k.q16.eval16(out.Int16s()[lo:hi], in.Int16s()[lo:hi])
	default:
		lookup8(in.Data[lo:hi], out.Data[lo:hi], &k.lut)
	}
}
