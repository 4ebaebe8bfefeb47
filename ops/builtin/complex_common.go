package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// complexPart is the kernel of TFLite's REAL, IMAG and COMPLEX_ABS
// operators (complex_support.cc): input 0 is a COMPLEX64 tensor (pairs of
// float32, real part first) or a COMPLEX128 one (pairs of float64); output
// 0 has the input's shape and type float32 or float64 respectively, each
// element computed from one complex element by part.
type complexPart struct {
	name   string
	part   func(re, im float64) float64
	part32 func(re, im float64) float64 // for COMPLEX64 when it differs from part
	cnt    int
	wide   bool // COMPLEX128 → float64
	// abs32 marks COMPLEX_ABS, whose COMPLEX64 loop is complexAbs32
	// written inline (a call through part32 per element costs more
	// than the square root).
	abs32 bool
	// split runs the elements over threads (each output element depends
	// on its input element alone).
	split unarySplit
}

// Prepare is the Prepare of the three operators, with TFLite's
// checks: one input, one output, a complex input and the matching float
// output type.
func (k *complexPart) Prepare(n *ops.Node) error {
	k.cnt, k.wide = 0, false
	if k.split.fn == nil {
		k.split.init(k.elems)
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	switch in.Type {
	case ops.Complex64:
		if out.Type != ops.Float32 {
			return fmt.Errorf("output 0: type %s, %s needs float32 for a complex64 input", out.Type, k.name)
		}
	case ops.Complex128:
		if out.Type != ops.Float64 {
			return fmt.Errorf("output 0: type %s, %s needs float64 for a complex128 input", out.Type, k.name)
		}
		k.wide = true
	default:
		return fmt.Errorf("input 0: type %s, %s needs complex64 or complex128", in.Type, k.name)
	}
	if k.cnt, err = numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	setShape(out, in.Shape)
	return nil
}

// Eval computes every element's part.
func (k *complexPart) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return fmt.Errorf("%s: input or output missing at Eval", k.name)
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	// A square root or hypot per element: a few element operations.
	k.split.run(n, in, out, k.cnt, 4)
	return nil
}

// elems computes the elements [lo, hi), on the tensors k.split holds
// during Eval.
func (k *complexPart) elems(lo, hi int) {
	in, out := k.split.in, k.split.out
	if k.wide {
		src, dst := ops.View[float64](in.Data)[2*lo:2*hi], out.Float64s()[lo:hi] // complex128 as (re, im) pairs
		for i := range dst {
			dst[i] = k.part(src[2*i], src[2*i+1])
		}
		return
	}
	if k.abs32 {
		src, dst := ops.View[float32](in.Data)[2*lo:2*hi], out.Float32s()[lo:hi]
		for i := range dst {
			re, im := float64(src[2*i]), float64(src[2*i+1])
			dst[i] = float32(math.Sqrt(float64(re*re) + float64(im*im)))
		}
		return
	}
	part := k.part
	if k.part32 != nil {
		part = k.part32
	}
	src, dst := ops.View[float32](in.Data)[2*lo:2*hi], out.Float32s()[lo:hi] // complex64 as (re, im) pairs
	for i := range dst {
		dst[i] = float32(part(float64(src[2*i]), float64(src[2*i+1])))
	}
}

// complexAbs is |re + i·im| for COMPLEX128, as C's cabs (std::abs of a
// std::complex<double> calls it): hypot, without intermediate overflow.
// Go's math.Hypot and glibc's may differ in the last bit of a float64.
func complexAbs(re, im float64) float64 { return math.Hypot(re, im) }

// complexAbs32 is |re + i·im| for COMPLEX64 exactly as glibc's hypotf
// (which cabsf calls): the float32 parts widened to float64, where their
// squares are exact and cannot overflow, the square root of the once
// rounded sum, rounded to float32. The conversions keep the sum from being
// fused into a multiply-add, which would round differently.
func complexAbs32(re, im float64) float64 {
	return float64(float32(math.Sqrt(float64(re*re) + float64(im*im))))
}
