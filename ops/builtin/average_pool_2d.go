package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// AveragePool2D is the kernel of TFLite's AVERAGE_POOL_2D operator: each
// output value is the mean of the input values under its window, counting
// only positions inside the image (padding is not averaged in), then
// clamped to the fused activation's range.
//
// Input 0 and output 0 are NHWC [batch, H, W, C] of one type. Averages,
// as TFLite's builtin kernels compute them:
//   - float32: the float32 sum in window order divided by the count;
//   - int8 and int16: the int32 sum divided by the count rounding half away
//     from zero ((sum ± count/2)/count with truncating division);
//   - uint8: (sum + count/2)/count.
//
// Quantised input and output are expected to share scale and zero point
// (raw values are averaged). A window with no position inside the image
// (possible with SAME padding and a filter larger than the input) is an
// Eval error, where TFLite's kernel also fails.
//
// A window wider than poolTapsPerValue taps per value allows (a
// declared filter far larger than the image) is summed with sliding
// sums, in time linear in the input and output: the same integer sums
// and results, float sums in float64 (pool_sliding_common.go).
type AveragePool2D struct {
	p     pool2D
	accID int
	sums  poolSums
}

// NewAveragePool2D returns an AVERAGE_POOL_2D kernel for one node.
func NewAveragePool2D() ops.Kernel { return &AveragePool2D{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpAveragePool2D, NewAveragePool2D, [2]int{1, 3})
}

// Prepare validates the node, sets the output shape and requests the
// integer accumulators.
func (k *AveragePool2D) Prepare(n *ops.Node) error {
	if err := k.p.prepare(n, ops.Float32, ops.Int8, ops.Uint8, ops.Int16); err != nil {
		return err
	}
	if k.p.sliding {
		size := 4
		if k.p.typ == ops.Float32 {
			size = 8
		}
		return k.sums.request(n, &k.p, size)
	}
	if k.p.typ != ops.Float32 {
		k.accID = n.RequestScratch(4 * k.p.depth)
	}
	return nil
}

var errEmptyWindow = errors.New("a pooling window lies entirely in the padding (no input positions to average)")

// Eval computes the pooled output.
func (k *AveragePool2D) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("AVERAGE_POOL_2D: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	p := &k.p
	if p.sliding {
		return k.evalSliding(n, in, out)
	}
	if p.typ == ops.Float32 {
		return avgPoolFloat(p, in.Float32s(), out.Float32s())
	}
	acc, err := scratchInt32(n, k.accID, p.depth)
	if err != nil {
		return err
	}
	switch p.typ {
	case ops.Int8:
		return avgPoolInt(p, acc, in.Int8s(), out.Int8s(), true)
	case ops.Uint8:
		return avgPoolInt(p, acc, in.Data, out.Data, false)
	case ops.Int16:
		return avgPoolInt(p, acc, in.Int16s(), out.Int16s(), true)
	}
	return fmt.Errorf("AVERAGE_POOL_2D: type %s", p.typ)
}

func avgPoolFloat(p *pool2D, x, o []float32) error {
	depth, rowStride := p.depth, p.w.in*p.depth
	return p.each(func(oi, img, yLo, yHi, xLo, xHi int) error {
		count := (yHi - yLo) * (xHi - xLo)
		if count == 0 {
			return errEmptyWindow
		}
		dst := o[oi : oi+depth]
		clear(dst)
		// The pixels of a window row are contiguous: their sums, in
		// order, are column sums (arch.SumRowsF32, the order of the
		// scalar loop: pixels by row, then column).
		for iy := yLo; iy < yHi; iy++ {
			off := img + iy*rowStride + xLo*depth
			arch.SumRowsF32(dst, x[off:off+(xHi-xLo)*depth], xHi-xLo, depth)
		}
		fc := float32(count)
		for c, v := range dst {
			dst[c] = clampF32(v/fc, p.fMin, p.fMax)
		}
		return nil
	})
}

func avgPoolInt[T int8 | uint8 | int16](p *pool2D, acc []int32, x, o []T, signed bool) error {
	depth, rowStride := p.depth, p.w.in*p.depth
	return p.each(func(oi, img, yLo, yHi, xLo, xHi int) error {
		count := int32((yHi - yLo) * (xHi - xLo))
		if count == 0 {
			return errEmptyWindow
		}
		clear(acc)
		if x8, ok := any(x).([]int8); ok {
			// Column sums of each window row's contiguous pixels.
			for iy := yLo; iy < yHi; iy++ {
				off := img + iy*rowStride + xLo*depth
				arch.SumRowsInt8(acc, x8[off:off+(xHi-xLo)*depth], xHi-xLo, depth)
			}
			avgRound(acc, o[oi:oi+depth], count, signed, p.qMin, p.qMax)
			return nil
		}
		for iy := yLo; iy < yHi; iy++ {
			for ix := xLo; ix < xHi; ix++ {
				off := img + iy*rowStride + ix*depth
				src := x[off : off+depth]
				for c, v := range src {
					acc[c] += int32(v)
				}
			}
		}
		avgRound(acc, o[oi:oi+depth], count, signed, p.qMin, p.qMax)
		return nil
	})
}

// evalSliding is Eval with sliding sums (Prepare chose them).
func (k *AveragePool2D) evalSliding(n *ops.Node, in, out *ops.Tensor) error {
	p := &k.p
	preN, accN := (p.w.in+1)*p.depth, p.w.out*p.depth
	if p.typ == ops.Float32 {
		pre, err := scratchOf[float64](n, k.sums.preID, preN)
		if err != nil {
			return err
		}
		acc, err := scratchOf[float64](n, k.sums.accID, accN)
		if err != nil {
			return err
		}
		o := out.Float32s()
		return slidingSums(p, in.Float32s(), func(v float32) float64 { return float64(v) }, pre, acc,
			func(oi, rows int, acc []float64) error {
				for ox := 0; ox < p.w.out; ox++ {
					_, lo, hi := p.w.span(ox)
					count := rows * (hi - lo)
					if count == 0 {
						return errEmptyWindow
					}
					fc := float32(count)
					dst := o[oi+ox*p.depth : oi+(ox+1)*p.depth]
					for c, v := range acc[ox*p.depth : (ox+1)*p.depth] {
						dst[c] = clampF32(float32(v)/fc, p.fMin, p.fMax)
					}
				}
				return nil
			})
	}
	pre, err := scratchOf[int32](n, k.sums.preID, preN)
	if err != nil {
		return err
	}
	acc, err := scratchOf[int32](n, k.sums.accID, accN)
	if err != nil {
		return err
	}
	switch p.typ {
	case ops.Int8:
		return avgPoolIntSliding(p, pre, acc, in.Int8s(), out.Int8s(), true)
	case ops.Uint8:
		return avgPoolIntSliding(p, pre, acc, in.Data, out.Data, false)
	case ops.Int16:
		return avgPoolIntSliding(p, pre, acc, in.Int16s(), out.Int16s(), true)
	}
	return fmt.Errorf("AVERAGE_POOL_2D: type %s", p.typ)
}

// avgPoolIntSliding is avgPoolInt with sliding int32 sums: the same
// wrapping sums, so the same rounded averages.
func avgPoolIntSliding[T int8 | uint8 | int16](p *pool2D, pre, acc []int32, x, o []T, signed bool) error {
	return slidingSums(p, x, func(v T) int32 { return int32(v) }, pre, acc, func(oi, rows int, acc []int32) error {
		for ox := 0; ox < p.w.out; ox++ {
			_, lo, hi := p.w.span(ox)
			count := int32(rows * (hi - lo))
			if count == 0 {
				return errEmptyWindow
			}
			avgRound(acc[ox*p.depth:(ox+1)*p.depth], o[oi+ox*p.depth:oi+(ox+1)*p.depth], count, signed, p.qMin, p.qMax)
		}
		return nil
	})
}

// avgRound sets dst to the averages of the window sums acc over count
// values, rounded as TFLite does (see AveragePool2D) and clamped to
// [qMin, qMax].
func avgRound[T int8 | uint8 | int16](acc []int32, dst []T, count int32, signed bool, qMin, qMax int32) {
	half := count / 2
	for c, a := range acc {
		if a > 0 || !signed {
			a = (a + half) / count
		} else {
			a = (a - half) / count
		}
		dst[c] = T(ops.ClampInt32(a, qMin, qMax))
	}
}
