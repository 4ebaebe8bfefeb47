package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Relu is the kernel of TFLite's clamping activations RELU (y = max(x, 0)),
// RELU6 (min(max(x, 0), 6)), RELU_N1_TO_1 (clamp to [-1, 1]) and
// RELU_0_TO_1 (clamp to [0, 1]); the output has the input's shape and
// type.
//
// float32 clamps directly. int8 and uint8 (and int16 for RELU and RELU6,
// with zero points 0 as TFLite requires) requantise as TFLite's
// QuantizedReluX: out = out_zp + MultiplyByQuantizedMultiplier(q − in_zp,
// in_scale/out_scale), clamped to the activation bounds quantised with the
// output parameters (zp + roundf(bound/scale) in float32, RELU's upper
// bound being the type maximum).
//
// Each operator's file (relu.go, relu6.go, …) gives its bounds in a
// reluActivation.
type Relu struct {
	op       *reluActivation
	lo, hi   float32 // real bounds
	qMin     int32
	qMax     int32
	inZP     int32
	outZP    int32
	mult     int32
	shift    int
	quantize bool
	// lut maps every int8/uint8 input byte to its requantised output,
	// filled at Prepare from requant itself.
	lut   [256]uint8
	split unarySplit
}

// reluActivation is what one clamping activation adds to the shared kernel.
type reluActivation struct {
	// lo and hi are the real bounds of the clamp (hi +Inf for RELU).
	lo, hi float32
	// int16 marks the activations TFLite also runs on int16 (RELU, RELU6).
	int16 bool
}

// Prepare checks the types and derives the requantisation.
func (k *Relu) Prepare(n *ops.Node) error {
	op := k.op
	*k = Relu{op: op}
	k.split.init(k.part)
	k.lo, k.hi = op.lo, op.hi
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	switch in.Type {
	case ops.Float32:
		return nil
	case ops.Int8, ops.Uint8:
	case ops.Int16:
		if !op.int16 {
			return fmt.Errorf("input 0: type int16 not supported by this activation (float32, int8, uint8)")
		}
	default:
		return fmt.Errorf("input 0: type %s not supported (float32, int8, uint8, int16)", in.Type)
	}
	k.quantize = true
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	if in.Type == ops.Int16 && (inZP != 0 || outZP != 0) {
		return fmt.Errorf("input 0: int16 needs zero points 0, have input %d, output %d", inZP, outZP)
	}
	k.inZP, k.outZP = inZP, outZP
	// TFLite's ReluPrepare divides the float32 scales in float32 and only
	// then widens the quotient to double.
	k.mult, k.shift = ops.QuantizeMultiplier(float64(inScale / outScale))
	tmin, tmax, _ := ops.TypeRange(in.Type)
	k.qMin = max(tmin, outZP+f32ToInt32(roundf(k.lo/outScale)))
	if math.IsInf(float64(k.hi), 1) {
		k.qMax = tmax
	} else {
		k.qMax = min(tmax, outZP+f32ToInt32(roundf(k.hi/outScale)))
	}
	if in.Type != ops.Int16 {
		for v := tmin; v <= tmax; v++ {
			k.lut[uint8(v)] = uint8(k.requant(v))
		}
	}
	return nil
}

// Eval applies the clamp.
func (k *Relu) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("RELU: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	cost := 1
	if in.Type == ops.Int16 {
		cost = 4
	}
	k.split.run(n, in, out, cnt, cost)
	return nil
}

func (k *Relu) requant(x int32) int32 {
	v := k.outZP + ops.MultiplyByQuantizedMultiplier(x-k.inZP, k.mult, k.shift)
	return ops.ClampInt32(v, k.qMin, k.qMax)
}

// part computes the output elements [lo, hi).
func (k *Relu) part(lo, hi int) {
	in, out := k.split.in, k.split.out
	switch in.Type {
	case ops.Float32:
		// A copy then the vector clamp: VecClamp is clampF32 bit for bit
		// (NaN kept, -0 kept), and a per-element branch on the sign of
		// random activations mispredicts half the time.
		o := out.Float32s()[lo:hi]
		copy(o, in.Float32s()[lo:hi])
		arch.VecClamp(o, k.lo, k.hi)
	case ops.Int16:
		o := out.Int16s()[lo:hi]
		for i, x := range in.Int16s()[lo:hi] {
			o[i] = int16(k.requant(int32(x)))
		}
	default:
		// int8 and uint8: the table of requant over every byte.
		lookup8(in.Data[lo:hi], out.Data[lo:hi], &k.lut)
	}
}
