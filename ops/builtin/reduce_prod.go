package builtin

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewReduceProd returns a REDUCE_PROD kernel for one node (a Reduce), as
// TFLite's reduce.cc: float32 (multiplied in input order), int32 and int64
// (wrapping), and quantised int8 and int16 (int16 zero points 0) as the
// optimised QuantizedReduceProd TFLite's resolver runs.
//
// The quantised product of the n elements reduced into one output is
// rescaled at every step rather than once, so the int32 accumulator does
// not overflow: with s = in_scale / out_scale^(1/n) (in float64) split
// into a multiplier and shift as QuantizeMultiplier, the accumulator
// starts at the first element's x−in_zp, each later element (in input
// order) multiplies it by its x−in_zp in int64 and rescales by s
// (MultiplyByQuantizedMultiplier64: 16-bit multiplier, rounding half up,
// wrapping to int32), and a last rescale by s plus out_zp, saturated to
// the type, gives the output, n rescales in all: in_scale^n / out_scale.
//
// Two cases follow TFLite's optimised kernel rather than this formula:
// when every reduced dimension has size 1 (n = 1, a scalar input, no
// axes) TFLite copies the input unchanged, whatever the scales; and an
// input with a zero dimension leaves TFLite's output unwritten, where
// this kernel writes 1.0 quantised to the output (the empty product,
// saturated). Prepare refuses a scale ratio s of 2^14 or more, for which
// TFLite's shift is undefined. Unquantised int8 and int16 inputs are
// refused.
func NewReduceProd() ops.Kernel { return &Reduce{op: &reduceProdOp} }

var reduceProdOp = reduceOp{
	name:         "REDUCE_PROD",
	types:        []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Int16},
	f32:          prodInto[float32],
	i32:          prodInto[int32],
	i64:          prodInto[int64],
	prepareQuant: prepareQuantProd,
	evalQuant:    evalQuantProd,
}

func init() {
	register(ops.OpReduceProd, NewReduceProd, [2]int{1, 2})
}

func prodInto[T float32 | int32 | int64](r *reduction, in, out []T, _, _ T) {
	fillValue(out, 1)
	reduceInto(r, in, out, func(a, v T) T { return a * v })
}

// prodUnset marks an accumulator no element has reached yet; real
// accumulators are int32 values.
const prodUnset = math.MinInt64

func prepareQuantProd(k *Reduce, n *ops.Node, in *ops.Tensor, inScale float32, inZP int32, outScale float32, outZP int32) error {
	k.quant = true
	k.inZP = inZP
	k.outZP = outZP
	k.lo, k.hi, _ = ops.TypeRange(in.Type)
	// The empty product (no element reduced): 1.0 in the output's terms.
	one := math.Round(1 / float64(outScale))
	k.empty = int32(math.Max(float64(k.lo), math.Min(float64(k.hi), one+float64(outZP))))
	if k.r.count > 1 {
		s := float64(inScale) / math.Pow(float64(outScale), 1.0/float64(k.r.count))
		k.mult, k.shift = ops.QuantizeMultiplier(s)
		if k.shift > 14 {
			return fmt.Errorf("input 0: REDUCE_PROD step scale %g (input scale %g, output scale %g, %d elements) is 2^14 or more, beyond TFLite's rescaling",
				s, inScale, outScale, k.r.count)
		}
	}
	k.accID = n.RequestScratch(8 * k.r.outCount)
	return nil
}

func evalQuantProd(k *Reduce, n *ops.Node, in, out *ops.Tensor) error {
	oc := k.r.outCount
	switch {
	case k.r.count == 0:
		if k.typ == ops.Int8 {
			fillValue(out.Int8s()[:oc], int8(k.empty))
		} else {
			fillValue(out.Int16s()[:oc], int16(k.empty))
		}
		return nil
	case k.r.count == 1:
		// TFLite's ReduceIsCopy: nothing is multiplied or rescaled.
		size := oc * k.typ.Size()
		copy(out.Data[:size], in.Data[:size])
		return nil
	}
	b, err := scratchBytes(n, k.accID, 8*oc)
	if err != nil {
		return err
	}
	acc := ops.View[int64](b)[:oc:oc]
	fillValue(acc, prodUnset)
	if k.typ == ops.Int8 {
		reduceInto(&k.r, in.Int8s(), acc, k.prodStep8)
	} else {
		reduceInto(&k.r, in.Int16s(), acc, k.prodStep16)
	}
	for i, a := range acc {
		v := ops.ClampInt32(ops.MultiplyByQuantizedMultiplier64(a, k.mult, k.shift)+k.outZP, k.lo, k.hi)
		if k.typ == ops.Int8 {
			out.Int8s()[i] = int8(v)
		} else {
			out.Int16s()[i] = int16(v)
		}
	}
	return nil
}

func (k *Reduce) prodStep8(a int64, v int8) int64   { return k.prodStep(a, int32(v)) }
func (k *Reduce) prodStep16(a int64, v int16) int64 { return k.prodStep(a, int32(v)) }

// prodStep folds one element into an accumulator: the first element
// starts it at x−in_zp, later ones multiply and rescale (TFLite's
// ReducerFirst and ReducerNext).
func (k *Reduce) prodStep(a int64, v int32) int64 {
	d := v - k.inZP
	if a == prodUnset {
		return int64(d)
	}
	return int64(ops.MultiplyByQuantizedMultiplier64(a*int64(d), k.mult, k.shift))
}
