package builtin

import (
	"errors"
	"fmt"
	"github.com/tflrun/tflrun/arch"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// SquaredDifference is the kernel of TFLite's SQUARED_DIFFERENCE operator:
// out[i] = (a[i] − b[i])² with numpy-style broadcasting.
//
// Type paths, as TFLite's squared_difference.cc: float32; int32 (wrapping
// arithmetic); int8 quantised: each input, offset by its zero point and
// shifted left by 7, is rescaled to half the larger input scale
// (MultiplyByQuantizedMultiplierSmallerThanOneExp), the difference is
// squared in int32, rescaled to the output scale with the same rounding,
// offset by the output zero point and saturated to int8.
type SquaredDifference struct {
	bc  broadcast
	typ ops.DataType
	// int8 parameters.
	off1, off2, outOff int32
	mult1, mult2, mOut int32
	sh1, sh2, shOut    int
	// lut[b byte<<8 | a byte] is the int8 result of every pair, filled
	// at Prepare by quant itself; Eval looks the pairs up.
	lut []int8
	// rep is vectorRuns' scratch for the float32 path.
	rep [256]float32
}

// sqDiffF32Run is the float32 squared difference in vectorRuns' form:
// the difference rounded, then squared (arch.VecSub, arch.VecMul), as
// TFLite's (x−y)·(x−y).
func sqDiffF32Run(dst, a, b []float32, _ *struct{}) {
	arch.VecSub(dst, a, b)
	arch.VecMul(dst, dst, dst)
}

// NewSquaredDifference returns a SQUARED_DIFFERENCE kernel for one node.
func NewSquaredDifference() ops.Kernel { return &SquaredDifference{} }

func init() {
	register(ops.OpSquaredDifference, NewSquaredDifference, [2]int{1, 2})
}

// sqDiffLeftShift is TFLite's left shift applied to int8 inputs.
const sqDiffLeftShift = 7

// Prepare checks the types and derives the int8 rescaling.
func (k *SquaredDifference) Prepare(n *ops.Node) error {
	*k = SquaredDifference{}
	a, b, out, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Float32, ops.Int32, ops.Int8); err != nil {
		return err
	}
	k.typ = a.Type
	if a.Type != ops.Int8 {
		return nil
	}
	s1, z1, err := perTensorQuant(a, "input 0")
	if err != nil {
		return err
	}
	s2, z2, err := perTensorQuant(b, "input 1")
	if err != nil {
		return err
	}
	so, zo, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	k.off1, k.off2, k.outOff = -z1, -z2, zo
	twiceMax := 2 * math.Max(float64(s1), float64(s2))
	k.mult1, k.sh1 = ops.QuantizeMultiplier(float64(s1) / twiceMax)
	k.mult2, k.sh2 = ops.QuantizeMultiplier(float64(s2) / twiceMax)
	real := twiceMax * twiceMax / (float64(int(1)<<(2*sqDiffLeftShift)) * float64(so))
	if !(real > 0 && real < 1) {
		// TFLite's QuantizeMultiplierSmallerThanOneExp aborts here.
		return fmt.Errorf("output 0: scale %g gives an output multiplier %g outside (0, 1)", so, real)
	}
	k.mOut, k.shOut = ops.QuantizeMultiplier(real)
	// The int8 result depends on the two input bytes alone: tabulate
	// all 65536 pairs (64 KiB, a few hundred microseconds at Prepare)
	// instead of three requantisations per element at Eval.
	k.lut = make([]int8, 1<<16)
	for y := -128; y < 128; y++ {
		for x := -128; x < 128; x++ {
			k.lut[int(uint8(y))<<8|int(uint8(x))] = k.quant(int8(x), int8(y))
		}
	}
	return nil
}

// quant is TFLite's int8 squared difference of x and y (reference_ops
// with the inputs rescaled by a left shift of 7 to twice the larger
// scale, squared, and requantised to the output).
func (k *SquaredDifference) quant(x, y int8) int8 {
	sx := ops.MultiplyByQuantizedMultiplierSmallerThanOneExp((int32(x)+k.off1)<<sqDiffLeftShift, k.mult1, k.sh1)
	sy := ops.MultiplyByQuantizedMultiplierSmallerThanOneExp((int32(y)+k.off2)<<sqDiffLeftShift, k.mult2, k.sh2)
	d := sx - sy
	v := ops.MultiplyByQuantizedMultiplierSmallerThanOneExp(d*d, k.mOut, k.shOut) + k.outOff
	return ops.SaturateInt8(v)
}

// Eval computes the squared differences.
func (k *SquaredDifference) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("SQUARED_DIFFERENCE: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	switch k.typ {
	case ops.Float32:
		vectorRuns(&k.bc, a.Float32s(), b.Float32s(), out.Float32s(), &struct{}{}, sqDiffF32Run, k.rep[:])
	case ops.Int32:
		broadcastMap(&k.bc, a.Int32s(), b.Int32s(), out.Int32s(), func(x, y int32) int32 {
			d := x - y
			return d * d
		})
	case ops.Int8:
		sqDiffLookup(&k.bc, a.Data, b.Data, out.Data, k.lut)
	}
	return nil
}

// sqDiffLookup looks every pair of input bytes up in lut (index
// b<<8 | a) over the broadcast bc.
func sqDiffLookup(bc *broadcast, ab, bb, ob []byte, lut []int8) {
	if !bc.needed {
		for i := range ob[:bc.count] {
			ob[i] = byte(lut[int(bb[i])<<8|int(ab[i])])
		}
		return
	}
	cnt, sa, sb := bc.dims[5], bc.strideA[5], bc.strideB[5]
	bc.eachRun(func(oi, ia, ib int) {
		o := ob[oi : oi+cnt]
		if sb == 0 {
			// The second operand repeats along the run (a channel's
			// mean against its pixels): one row of the table.
			row := lut[int(bb[ib])<<8 : int(bb[ib])<<8+256]
			for i := range o {
				o[i] = byte(row[ab[ia+i*sa]])
			}
			return
		}
		for i := range o {
			o[i] = byte(lut[int(bb[ib+i*sb])<<8|int(ab[ia+i*sa])])
		}
	})
}
