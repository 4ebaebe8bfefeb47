package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Quantize is the kernel of TFLite's QUANTIZE operator; the output has the
// input's shape and must carry affine quantisation.
//
// float32 → int4 or uint4 (versions 4 and 5; per-tensor only, as TFLite's
// AffineQuantizeToInt4/UInt4): q = int32(round(x / float32(scale))) +
// zero_point with the division in float32, clamped to [-8, 7] or [0, 15],
// packed two to a byte, low nibble first.
//
// float32 → int8, uint8 or int16: q = round(x / scale) + zero_point,
// rounded half away from zero and clamped to the output type, with the
// division in double as TFLite's optimised AffineQuantize computes it on
// x86 (its float32 reference division differs by a step near halves); a
// NaN or out-of-int32 quotient becomes the x86 integer-indefinite value,
// as there. Per-channel output quantisation (more than one scale)
// quantises along QuantizedDimension with TFLite's PerChannelQuantize, in
// float32.
//
// Requantisation (TFLite's Requantize): int8/uint8 → int8/uint8/int16,
// int16 → int8/int16/int32, int32 → int8/int16:
// q' = MultiplyByQuantizedMultiplier(q − zp_in, s_in/s_out) + zp_out,
// clamped. int16 → int16 needs zero points 0.
type Quantize struct {
	mult  int32
	shift int
	inZP  int32
	outZP int32
	scale float32
	// Per-channel float → integer.
	chScales []float32
	chZPs    []int32
	chDim    int
	inner    int
	// accID is the int32 scratch (quantizeChunk values) of the
	// requantisation to int8, which runs through arch.RequantizeInt8; -1
	// for the other paths.
	accID int
	// qf is the per-tensor float → int8/uint8/int16 parameters of
	// arch.QuantizeF32Int8 and its twins (held here: a local would
	// escape through the primitive's function value).
	qf arch.QuantizeF32Params
	// lut8 is the requantisation of each input byte for 8-bit input
	// and output (lut8ok when it is filled), run by arch.LookupBytes.
	lut8   [256]byte
	lut8ok bool
	// split runs the per-tensor float and the table paths over threads
	// (part).
	split unarySplit
}

// quantizeChunk is the number of values requantised to int8 per
// arch.RequantizeInt8 call.
const quantizeChunk = 1024

// NewQuantize returns a QUANTIZE kernel for one node.
func NewQuantize() ops.Kernel { return &Quantize{} }

func init() {
	// TFLite registers 1-6 with one kernel that never reads the version;
	// 4 and 5 are int4 and uint4 outputs. 6 is an int2 version of the
	// converter's, but TFLite's kernel has no int2 path, so a version-6
	// node runs there exactly as 1-5 do (and int2 is refused).
	register(ops.OpQuantize, NewQuantize, [2]int{1, 6})
}

// Prepare checks the type pair and the quantisation.
func (k *Quantize) Prepare(n *ops.Node) error {
	*k = Quantize{accID: -1}
	k.split.init(k.part)
	in, out, err := elementwiseUnary(n)
	if err != nil {
		return err
	}
	out.Shape = copyShape(in.Shape)
	if !isQuantized(out) {
		return fmt.Errorf("output 0: %s output of QUANTIZE needs quantization parameters", out.Type)
	}
	if in.Type == ops.Float32 {
		if out.Type != ops.Int8 && out.Type != ops.Uint8 && out.Type != ops.Int16 && out.Type != ops.Int4 && out.Type != ops.Uint4 {
			return fmt.Errorf("output 0: type %s not supported for float32 input (int8, uint8, int16, int4, uint4)", out.Type)
		}
		if out.Type.PackedBits() != 0 && isPerChannel(out) {
			return fmt.Errorf("output 0: per-channel quantisation to %s is not supported (TFLite quantises int4 and uint4 per tensor only)", out.Type)
		}
		if isPerChannel(out) {
			return k.preparePerChannel(n, in, out)
		}
		k.scale, k.outZP, err = perTensorQuant(out, "output 0")
		return err
	}
	ok := false
	switch in.Type {
	case ops.Int16:
		ok = out.Type == ops.Int8 || out.Type == ops.Int16 || out.Type == ops.Int32
	case ops.Int32:
		ok = out.Type == ops.Int8 || out.Type == ops.Int16
	case ops.Int8, ops.Uint8:
		ok = out.Type == ops.Int8 || out.Type == ops.Uint8 || out.Type == ops.Int16
	default:
		return fmt.Errorf("input 0: type %s not supported (float32, int8, uint8, int16, int32)", in.Type)
	}
	if !ok {
		return fmt.Errorf("output 0: type %s not supported for %s input", out.Type, in.Type)
	}
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	if in.Type == ops.Int16 && out.Type == ops.Int16 && (inZP != 0 || outZP != 0) {
		return fmt.Errorf("input 0: int16 → int16 needs zero points 0, have %d and %d", inZP, outZP)
	}
	k.inZP, k.outZP = inZP, outZP
	k.mult, k.shift = ops.QuantizeMultiplier(float64(inScale) / float64(outScale))
	if (in.Type == ops.Int8 || in.Type == ops.Uint8) && (out.Type == ops.Int8 || out.Type == ops.Uint8) {
		// Every output byte is a function of one input byte: tabulate
		// the scalar formula.
		lo, hi, _ := ops.TypeRange(out.Type)
		for b := range k.lut8 {
			v := int32(b)
			if in.Type == ops.Int8 {
				v = int32(int8(b))
			}
			k.lut8[b] = byte(ops.ClampInt32(ops.MultiplyByQuantizedMultiplier(v-k.inZP, k.mult, k.shift)+k.outZP, lo, hi))
		}
		k.lut8ok = true
		return nil
	}
	if out.Type == ops.Int8 {
		k.accID = n.RequestScratch(4 * min(in.NumElements(), quantizeChunk))
	}
	return nil
}

func (k *Quantize) preparePerChannel(n *ops.Node, in, out *ops.Tensor) error {
	qd := out.Quant.QuantizedDimension
	if qd < 0 || qd >= in.Rank() {
		return fmt.Errorf("output 0: quantized dimension %d outside rank %d", qd, in.Rank())
	}
	nch := in.Shape[qd]
	if len(out.Quant.Scale) != nch {
		return fmt.Errorf("output 0: %d scales for %d channels along dimension %d", len(out.Quant.Scale), nch, qd)
	}
	zps := out.Quant.ZeroPoint
	if len(zps) != nch && len(zps) > 1 {
		return fmt.Errorf("output 0: %d zero points for %d channels", len(zps), nch)
	}
	lo, hi, _ := ops.TypeRange(out.Type)
	k.chScales = out.Quant.Scale
	var err error
	if k.chZPs, err = ops.Alloc[int32](n, nch, "per-channel zero points"); err != nil {
		return err
	}
	for c := range k.chZPs {
		s := k.chScales[c]
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return fmt.Errorf("output 0: channel %d scale %g must be finite and > 0", c, s)
		}
		var z int64
		if len(zps) == nch {
			z = zps[c]
		} else if len(zps) == 1 {
			z = zps[0]
		}
		if z < int64(lo) || z > int64(hi) {
			return fmt.Errorf("output 0: channel %d zero point %d outside the %s range", c, z, out.Type)
		}
		k.chZPs[c] = int32(z)
	}
	k.chDim = nch
	k.inner = 1
	for _, d := range in.Shape[qd+1:] {
		k.inner *= d
	}
	return nil
}

// Eval quantises or requantises.
func (k *Quantize) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("QUANTIZE: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	lo, hi, _ := ops.TypeRange(out.Type)
	if in.Type == ops.Float32 && out.Type.PackedBits() != 0 {
		// AffineQuantizeToInt4 / AffineQuantizeToUInt4, in float32.
		lo, hi = packedRange(out.Type)
		scale, zp := k.scale, k.outZP
		for i, v := range in.Float32s()[:cnt] {
			storePacked(out.Type, out.Data, i, ops.ClampInt32(f32ToInt32(roundf(v/scale))+zp, lo, hi))
		}
		clearPackedTail(out.Type, out.Data, cnt)
		return nil
	}
	if in.Type == ops.Float32 {
		x := in.Float32s()[:cnt]
		if k.chScales == nil {
			// TFLite's optimised AffineQuantize (int8, uint8, int16 on
			// x86, where its NEON loop is compiled out) divides in double.
			scale, zp := float64(k.scale), k.outZP
			k.qf = arch.QuantizeF32Params{Scale: scale, ZeroPoint: zp, Lo: lo, Hi: hi}
			k.split.run(n, in, out, cnt, 4)
			return nil
		}
		// Per channel: reference_ops::PerChannelQuantize, in float32.
		for i, v := range x {
			c := (i / k.inner) % k.chDim
			scale, zp := k.chScales[c], k.chZPs[c]
			qv := ops.ClampInt32(f32ToInt32(roundf(v/scale))+zp, lo, hi)
			storeInt(out, i, qv)
		}
		return nil
	}
	if k.lut8ok {
		k.split.run(n, in, out, cnt, 1)
		return nil
	}
	if k.accID >= 0 {
		return k.requantizeInt8(n, in, out, cnt)
	}
	for i := 0; i < cnt; i++ {
		qv := ops.MultiplyByQuantizedMultiplier(loadInt(in, i)-k.inZP, k.mult, k.shift) + k.outZP
		storeInt(out, i, ops.ClampInt32(qv, lo, hi))
	}
	return nil
}

// requantizeInt8 is the requantisation to int8 in chunks: q − zp_in
// widened to int32 (wrapping, as the scalar path), then
// arch.RequantizeInt8 (MultiplyByQuantizedMultiplier + zp_out, clamped):
// the same values as the scalar path, several times faster.
func (k *Quantize) requantizeInt8(n *ops.Node, in, out *ops.Tensor, cnt int) error {
	acc, err := scratchInt32(n, k.accID, min(cnt, quantizeChunk))
	if err != nil {
		return err
	}
	dst := out.Int8s()[:cnt]
	for i0 := 0; i0 < cnt; i0 += len(acc) {
		a := acc[:min(len(acc), cnt-i0)]
		switch in.Type {
		case ops.Int8:
			for i, v := range in.Int8s()[i0 : i0+len(a)] {
				a[i] = int32(v) - k.inZP
			}
		case ops.Uint8:
			for i, v := range in.Data[i0 : i0+len(a)] {
				a[i] = int32(v) - k.inZP
			}
		case ops.Int16:
			for i, v := range in.Int16s()[i0 : i0+len(a)] {
				a[i] = int32(v) - k.inZP
			}
		case ops.Int32:
			for i, v := range in.Int32s()[i0 : i0+len(a)] {
				a[i] = v - k.inZP
			}
		}
		arch.RequantizeInt8(dst[i0:i0+len(a)], a, k.mult, k.shift, k.outZP, -128, 127)
	}
	return nil
}

// part computes the output elements [lo, hi) of the two threaded paths:
// per-tensor float32 → int8/uint8/int16 (TFLite's optimised
// AffineQuantize, which divides in double on x86 where its NEON loop is
// compiled out) with k.qf, and the 8-bit table.
func (k *Quantize) part(lo, hi int) {
	in, out := k.split.in, k.split.out
	if k.lut8ok && in.Type != ops.Float32 {
		arch.LookupBytes(out.Data[lo:hi], in.Data[lo:hi], &k.lut8)
		return
	}
	x := in.Float32s()[lo:hi]
	switch out.Type {
	case ops.Int8:
		arch.QuantizeF32Int8(out.Int8s()[lo:hi], x, &k.qf)
	case ops.Uint8:
		arch.QuantizeF32Uint8(out.Data[lo:hi], x, &k.qf)
	case ops.Int16:
		arch.QuantizeF32Int16(out.Int16s()[lo:hi], x, &k.qf)
	default:
		q := &k.qf
		for i, v := range x {
			qv := ops.ClampInt32(f64ToInt32(math.Round(float64(v)/q.Scale))+q.ZeroPoint, q.Lo, q.Hi)
			storeInt(out, lo+i, qv)
		}
	}
}
