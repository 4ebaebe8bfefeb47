package builtin

import (
	"errors"
	"fmt"
	"github.com/tflrun/tflrun/arch"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// HardSwish is the kernel of TFLite's HARD_SWISH operator,
// y = x·min(6, max(0, x + 3))/6:
//   - float32: TFLite's x86 optimised loop bit for bit,
//     (x·min(6, max(0, x+3)))·(1/6) in float32 (arch.HardSwishF32, an
//     AVX2 kernel beside its portable twin);
//   - int8 and uint8 (per-tensor quantisation, any scales and zero
//     points): TFLite's quantised reference arithmetic
//     (reference_ops::HardSwish, which its optimised kernel runs on x86,
//     where the NEON path is compiled out). The input is moved to a 2^-7
//     finer scale in int16, the "reluish" factor min(6, max(0, x+3))/6
//     mapped to [0, 1) on a 2^-15 scale with 16-bit fixed-point
//     multipliers, and the product rescaled to the output. As the result
//     depends on the input byte alone, Prepare runs that arithmetic on all
//     256 values into a table and Eval looks them up.
//
// Prepare fails, as TFLite's, when the output multiplier
// (input_scale/128)/output_scale is 1 or more.
type HardSwish struct {
	lut   [256]uint8
	split unarySplit
}

// NewHardSwish returns a HARD_SWISH kernel for one node.
func NewHardSwish() ops.Kernel { return &HardSwish{} }

func init() {
	register(ops.OpHardSwish, NewHardSwish, [2]int{1, 1})
}

// hardSwishParams is TFLite's HardSwishParams.
type hardSwishParams struct {
	inZP, outZP       int16
	outMult, reluMult int16 // Q0.15 fixed-point multipliers
	outExp, reluExp   int
}

// Prepare checks the types and, for int8/uint8, derives the parameters
// as TFLite's HardSwishPrepare (float32 arithmetic) and fills the table.
func (k *HardSwish) Prepare(n *ops.Node) error {
	k.split.init(k.part)
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Int8, ops.Uint8); err != nil {
		return err
	}
	if in.Type == ops.Float32 {
		return nil
	}
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	hiresScale := float32(1.0/128.0) * inScale
	const reluishScale = float32(3.0 / 32768.0)
	p := hardSwishParams{inZP: int16(inZP), outZP: int16(outZP)}
	m, e := ops.QuantizeMultiplier(float64(hiresScale / outScale))
	p.outMult, p.outExp = downScaleInt32ToInt16Multiplier(m), e
	if p.outExp > 0 {
		return fmt.Errorf("output 0: scale %g is too small for HARD_SWISH with input scale %g (the output multiplier (input_scale/128)/output_scale must be below 1)", outScale, inScale)
	}
	m, e = ops.QuantizeMultiplier(float64(hiresScale / reluishScale))
	p.reluMult, p.reluExp = downScaleInt32ToInt16Multiplier(m), e
	lo, hi := int32(0), int32(255)
	if in.Type == ops.Int8 {
		lo, hi = -128, 127
	}
	for v := lo; v <= hi; v++ {
		k.lut[uint8(v)] = uint8(hardSwishQuantized(&p, int16(v), int16(lo), int16(hi)))
	}
	return nil
}

// downScaleInt32ToInt16Multiplier is TFLite's DownScaleInt32ToInt16Multiplier:
// a non-negative Q0.31 multiplier rounded to Q0.15, saturating at the top.
func downScaleInt32ToInt16Multiplier(m int32) int16 {
	if m >= math.MaxInt32-(1<<15) {
		return math.MaxInt16
	}
	return int16((m + 1<<15) >> 16)
}

// hardSwishQuantized is TFLite's reference quantised HardSwish of one
// input value q, in its int16 arithmetic (the sums wrap where TFLite's
// int16 stores do), clamped to [lo, hi].
func hardSwishQuantized(p *hardSwishParams, q, lo, hi int16) int16 {
	x := q - p.inZP
	hires := x * (1 << 7)
	preshiftOut := ops.SaturatingRoundingDoublingHighMul16(hires, p.outMult)
	reluish := hires
	if p.reluExp > 0 {
		reluish = saturatingLeftShift16(reluish, p.reluExp-1)
	}
	reluish = ops.SaturatingRoundingDoublingHighMul16(reluish, p.reluMult)
	if p.reluExp > 0 {
		reluish = saturatingLeftShift16(reluish, 1)
	}
	if p.reluExp < 0 {
		reluish = ops.RoundingDivideByPOT16(reluish, -p.reluExp)
	}
	// [-1, 1) on the 2^-15 scale to [0, 1): (r + 2^15) / 2 in int32.
	reluish = int16((int32(reluish) + 1<<15) >> 1)
	preshift := saturatingDoublingHighMul16(reluish, preshiftOut)
	v := ops.RoundingDivideByPOT16(preshift, -p.outExp)
	v += p.outZP
	return min(max(v, lo), hi)
}

// saturatingLeftShift16 is TFLite's SaturatingLeftShift (hard_swish.h):
// v·2^amount clamped to int16.
func saturatingLeftShift16(v int16, amount int) int16 {
	r := int64(v) << uint(amount)
	return int16(min(max(r, math.MinInt16), math.MaxInt16))
}

// saturatingDoublingHighMul16 is TFLite's SaturatingDoublingHighMul
// (hard_swish.h): the high half of 2·a·b truncated toward zero, the
// overflowing MinInt16² saturated.
func saturatingDoublingHighMul16(a, b int16) int16 {
	if a == b && a == math.MinInt16 {
		return math.MaxInt16
	}
	return int16(int32(a) * int32(b) / (1 << 15))
}

// Eval applies the activation.
func (k *HardSwish) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("HARD_SWISH: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	k.split.run(n, in, out, cnt, 2)
	return nil
}

// part computes the output elements [lo, hi).
func (k *HardSwish) part(lo, hi int) {
	in, out := k.split.in, k.split.out
	if in.Type != ops.Float32 {
		lookup8(in.Data[lo:hi], out.Data[lo:hi], &k.lut)
		return
	}
	// TFLite's x86 float loop: (x·relu6(x+3))·(1/6), arch.HardSwishF32.
	arch.HardSwishF32(out.Float32s()[lo:hi], in.Float32s()[lo:hi])
}
