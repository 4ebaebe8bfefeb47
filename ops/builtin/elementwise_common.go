package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Unary is the kernel of TFLite's one-input element-wise math operators
// ABS, NEG, SQUARE, SQRT, RSQRT, EXP, LOG, SIN, COS, FLOOR, CEIL, ROUND,
// SIGN and LOGICAL_NOT: out[i] = f(in[i]), the output having the input's
// shape and type. They share one kernel as they share TFLite's
// elementwise.cc machinery; each operator's file (abs.go, neg.go, …) gives
// the types it takes and its per-element functions in a unaryOp, and its
// constructor's doc comment the type paths it implements.
//
// float32 paths compute in float32 arithmetic (sinf, cosf, logf, sqrtf,
// 1/sqrtf, expf: computed in float64 and rounded, which agrees with a
// correctly rounded float32 libm).
type Unary struct {
	op      *unaryOp
	typ     ops.DataType
	quant   bool // ABS on int8 / quantised int16
	rescale bool
	inZP    int32
	outZP   int32
	mult    int32
	shift   int
	lut     [256]uint8 // EXP and LOG on int8
	useLUT  bool
	// split runs the float32 and table paths over threads (each output
	// element depends on its input element alone).
	split unarySplit
}

// unaryOp is what one operator of the Unary family adds to the shared
// kernel.
type unaryOp struct {
	// name is the operator's TFLite name, for messages.
	name string
	// types lists the input types the operator takes.
	types []ops.DataType
	// float32 computes the float32 path (nil: the operator has none).
	float32 func(in, out []float32)
	// prepare, when set, runs after the type check and derives what the
	// integer paths need (a requantisation, a lookup table in k.lut with
	// k.useLUT set).
	prepare func(k *Unary, in, out *ops.Tensor) error
	// eval computes every path but float32 and the lookup table, on the
	// first cnt elements; it returns errUnaryType for a type it lacks.
	eval func(k *Unary, in, out *ops.Tensor, cnt int) error
}

// errUnaryType is the error of an Eval whose tensors no longer have the
// type Prepare saw.
var errUnaryType = errors.New("unary: type changed since Prepare")

// Prepare checks the types and builds the quantised tables.
func (k *Unary) Prepare(n *ops.Node) error {
	op := k.op
	*k = Unary{op: op}
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", op.types...); err != nil {
		return fmt.Errorf("%v for %s", err, op.name)
	}
	k.typ = in.Type
	k.split.init(k.part)
	if op.prepare != nil {
		return op.prepare(k, in, out)
	}
	return nil
}

// part computes the elements [lo, hi) of the table or float32 path, on
// the tensors k.split holds during Eval.
func (k *Unary) part(lo, hi int) {
	in, out := k.split.in, k.split.out
	if k.useLUT {
		lookup8(in.Data[lo:hi], out.Data[lo:hi], &k.lut)
		return
	}
	k.op.float32(in.Float32s()[lo:hi], out.Float32s()[lo:hi])
}

// unaryQuant returns the per-tensor quantisation of input 0 and output 0.
func unaryQuant(in, out *ops.Tensor) (inScale float32, inZP int32, outScale float32, outZP int32, err error) {
	if inScale, inZP, err = perTensorQuant(in, "input 0"); err != nil {
		return 0, 0, 0, 0, err
	}
	if outScale, outZP, err = perTensorQuant(out, "output 0"); err != nil {
		return 0, 0, 0, 0, err
	}
	return inScale, inZP, outScale, outZP, nil
}

// Eval applies the function.
func (k *Unary) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return fmt.Errorf("%s: input or output missing at Eval", k.op.name)
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	if k.useLUT {
		k.split.run(n, in, out, cnt, 1)
		return nil
	}
	if k.typ == ops.Float32 && k.op.float32 != nil {
		// A scalar libm call per element (LOG, EXP, SIN...): a few
		// element operations each.
		k.split.run(n, in, out, cnt, 4)
		return nil
	}
	if k.op.eval != nil {
		return k.op.eval(k, in, out, cnt)
	}
	return errUnaryType
}

// halfUnary is the eval of a unaryOp whose float16 path widens each
// element to float32, applies f and rounds the result to the nearest
// float16 (TFLite's EvalImpl<half>).
func halfUnary(f func(float32) float32) func(k *Unary, in, out *ops.Tensor, cnt int) error {
	return func(k *Unary, in, out *ops.Tensor, cnt int) error {
		if k.typ != ops.Float16 || in.Type != ops.Float16 || out.Type != ops.Float16 {
			return errUnaryType
		}
		src, dst := ops.View[uint16](in.Data)[:cnt], ops.View[uint16](out.Data)[:cnt]
		for i, h := range src {
			dst[i] = float32ToHalf(f(halfToFloat32(h)))
		}
		return nil
	}
}
