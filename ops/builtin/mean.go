package builtin

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/tflrun/tflrun/ops"
)

// Mean is the kernel of TFLite's MEAN operator: the average of input 0
// over the dimensions listed in input 1 (int32 axes, negative counting
// from the end, repeats ignored), which must be a constant tensor. With
// ReducerOptions.KeepDims the reduced dimensions stay with size 1,
// otherwise they are removed.
//
// Arithmetic, as TFLite's reduce.cc (generic optimised kernel):
//   - float32: a float32 sum per output, in input order, divided by the
//     element count;
//   - int32, int64: an int64 sum divided by the count, truncating;
//   - int8 and uint8 over the two spatial axes of a 4-D input with
//     keep_dims (global average pooling): TFLite's optimised Mean4D, i.e.
//     the raw sum rescaled by input_scale/(count·output_scale) plus a
//     rounded zero-point correction;
//   - other int8/uint8/int16 reductions: TFLite's QuantizedMeanOrSum, the
//     sum minus zero_point·count rescaled by input_scale/output_scale with
//     1/count folded into the multiplier (int16 needs zero points 0).
//
// An empty input gives zeros (NaN for float32), as TFLite.
type Mean struct {
	typ     ops.DataType
	r       reduction
	accID   int
	spatial bool // int8/uint8 Mean4D path
	mult    int32
	shift   int
	bias    int32 // Mean4D zero-point correction
	inZP    int32
	outZP   int32
	lo, hi  int32
}

// NewMean returns a MEAN kernel for one node.
func NewMean() ops.Kernel { return &Mean{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpMean, NewMean, [2]int{1, 3})
}

// Prepare validates the node, resolves the axes and sets the output shape.
func (k *Mean) Prepare(n *ops.Node) error {
	*k = Mean{}
	var opts ReducerOptions
	if o, ok := n.Options.(*ReducerOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *ReducerOptions", n.Options)
	}
	in, out, err := k.r.prepare(n, opts.KeepDims)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Int16); err != nil {
		return err
	}
	k.typ = in.Type
	resolved := k.r.resolved
	switch in.Type {
	case ops.Float32:
		k.accID = n.RequestScratch(4 * k.r.outCount)
	case ops.Int32, ops.Int64:
		k.accID = n.RequestScratch(8 * k.r.outCount)
	default:
		return k.prepareQuant(n, in, out, opts, resolved)
	}
	return nil
}

func (k *Mean) prepareQuant(n *ops.Node, in, out *ops.Tensor, opts ReducerOptions, resolved []int) error {
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	if in.Type == ops.Int16 && (inZP != 0 || outZP != 0) {
		return fmt.Errorf("input 0: int16 MEAN needs zero points 0, have %d (input) and %d (output)", inZP, outZP)
	}
	k.inZP, k.outZP = inZP, outZP
	k.lo, k.hi, _ = ops.TypeRange(in.Type)
	k.accID = n.RequestScratch(4 * k.r.outCount)
	k.spatial = (in.Type == ops.Int8 || in.Type == ops.Uint8) && opts.KeepDims && in.Rank() == 4 &&
		len(resolved) == 2 && (resolved[0] == 1 && resolved[1] == 2 || resolved[0] == 2 && resolved[1] == 1)
	if k.spatial {
		// Mean4D computes its correction and scale in float32.
		num := float32(in.Shape[1] * in.Shape[2])
		temp := float32(float32(inZP)*inScale) / outScale
		if temp > 0 {
			temp += 0.5
		} else {
			temp -= 0.5
		}
		k.bias = outZP - f32ToInt32(temp)
		k.mult, k.shift = ops.QuantizeMultiplier(float64(inScale / (num * outScale)))
		return nil
	}
	k.mult, k.shift = ops.QuantizeMultiplier(float64(inScale) / float64(outScale))
	if k.r.count > 0 {
		// Fold 1/count into the multiplier as TFLite's QuantizedMeanOrSum.
		s := 63 - bits.LeadingZeros64(uint64(k.r.count))
		s = min(s, 32, 31+k.shift)
		k.mult = int32((int64(k.mult) << uint(max(s, 0))) / int64(k.r.count))
		if s < 0 {
			k.mult = int32(int64(k.mult) / int64(k.r.count))
		}
		k.shift -= s
	}
	return nil
}

// Eval computes the means.
func (k *Mean) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("MEAN: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.r.outCount == 0 {
		return nil
	}
	switch k.typ {
	case ops.Float32:
		acc, err := scratchFloat32(n, k.accID, k.r.outCount)
		if err != nil {
			return err
		}
		clear(acc)
		o := out.Float32s()[:k.r.outCount]
		if k.r.count == 0 {
			fillValue(o, float32(math.NaN()))
			return nil
		}
		reduceSum(&k.r, in.Float32s(), acc)
		c := float32(k.r.count)
		for i, s := range acc {
			o[i] = s / c
		}
	case ops.Int32, ops.Int64:
		b, err := scratchBytes(n, k.accID, 8*k.r.outCount)
		if err != nil {
			return err
		}
		acc := ops.View[int64](b)[:k.r.outCount]
		clear(acc)
		if k.typ == ops.Int32 {
			reduceSum(&k.r, in.Int32s(), acc)
		} else {
			reduceSum(&k.r, in.Int64s(), acc)
		}
		for i, s := range acc {
			var v int64
			if k.r.count > 0 {
				v = s / int64(k.r.count)
			}
			if k.typ == ops.Int32 {
				out.Int32s()[i] = int32(v)
			} else {
				out.Int64s()[i] = v
			}
		}
	default:
		acc, err := scratchInt32(n, k.accID, k.r.outCount)
		if err != nil {
			return err
		}
		clear(acc)
		switch k.typ {
		case ops.Int8:
			reduceSum(&k.r, in.Int8s(), acc)
			k.finishQuant(acc, out)
		case ops.Uint8:
			reduceSum(&k.r, in.Data, acc)
			k.finishQuant(acc, out)
		default:
			reduceSum(&k.r, in.Int16s(), acc)
			k.finishQuant(acc, out)
		}
	}
	return nil
}

// finishQuant rescales the integer sums into the output.
func (k *Mean) finishQuant(acc []int32, out *ops.Tensor) {
	for i, s := range acc {
		var v int32
		switch {
		case k.r.count == 0:
			v = 0
		case k.spatial:
			v = ops.MultiplyByQuantizedMultiplier(s, k.mult, k.shift) + k.bias
		default:
			shifted := int32(int64(s) - int64(k.inZP)*int64(k.r.count))
			v = ops.MultiplyByQuantizedMultiplier(shifted, k.mult, k.shift) + k.outZP
		}
		v = ops.ClampInt32(v, k.lo, k.hi)
		switch k.typ {
		case ops.Int8:
			out.Int8s()[i] = int8(v)
		case ops.Uint8:
			out.Data[i] = uint8(v)
		default:
			out.Int16s()[i] = int16(v)
		}
	}
}
