package builtin

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/fused"
	"github.com/tflrun/tflrun/ops"
)

// The int16 LOGISTIC and TANH of TFLite's activations.cc (op version 3):
// symmetric int16 in and out, output scale 2^-15. TFLite has two paths.
// An input scale of exactly 2^-12 (TANH: 2^-12 or 2^-11) runs gemmlowp's
// fixed-point logistic/tanh on Q3.12 (optimized_ops, scalar on x86):
// tflrun does the same, from fused's tables of those functions. Any other
// scale is rescaled to 1/(3·4096) per step (an integer multiplier and a
// rounding right shift chosen at Prepare) and read, with linear
// interpolation, from TFLite's 256-entry table of sigmoid(i/24) in 0.16
// fixed point (reference_integer_ops::Logistic/Tanh, tanh through
// tanh(x) = 2·sigmoid(2x) − 1); tflrun does the same, bit for bit.

// sigmoidTable16 is TFLite's sigmoid_table_uint16: entry i is
// sigmoid(i/24) in 0.16 fixed point. It is round(2^16·sigmoid(i/24))
// except at the indices of sigmoidTable16Up, where TFLite's tuned entry is
// one above that (checked bit for bit against TFLite's builtin kernels by
// the integer sweep and testdata/int16_act). float64 decides every
// rounding safely: no value lies within 1e-3 of a tie.
var sigmoidTable16 = func() (t [256]uint16) {
	for i := range t {
		t[i] = uint16(math.Floor(65536/(1+math.Exp(-float64(i)/24)) + 0.5))
	}
	for _, i := range sigmoidTable16Up {
		t[i]++
	}
	return t
}()

// sigmoidTable16Up lists the entries of TFLite's sigmoid table that are
// one above the rounded sigmoid.
var sigmoidTable16Up = [...]uint8{
	4, 8, 12, 14, 15, 16, 17, 19, 20, 21, 22, 25, 27, 28, 29, 30, 31, 33,
	34, 35, 37, 39, 40, 41, 43, 44, 45, 46, 49, 50, 54, 62, 63, 64, 66, 82,
	86, 93, 100, 103, 112, 116, 135, 255,
}

// sigmoidTanh16 holds the prepared int16 LOGISTIC or TANH: either
// gemmlowp's function tabulated (fp set), the input doubled first
// (saturating) when double is set, or TFLite's interpolated table path
// with the input multiplier mul and right shift shift.
type sigmoidTanh16 struct {
	double bool
	fp     *[1 << 16]int16
	tanh   bool
	mul    int32
	shift  uint
}

// prepare16 checks the quantisation and chooses the path as TFLite's
// SigmoidPrepare / TanhPrepare do.
func (k *sigmoidTanh16) prepare16(in, out *ops.Tensor, tanh bool) error {
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	if inZP != 0 || outZP != 0 {
		return fmt.Errorf("input 0: int16 needs zero points 0, have %d (input) and %d (output)", inZP, outZP)
	}
	if !tanh && float64(outScale) != 1.0/32768 {
		return fmt.Errorf("output 0: scale %g, int16 LOGISTIC needs exactly 2^-15", outScale)
	}
	if l, ok := checkedLog2(outScale); !ok || l != -15 {
		return fmt.Errorf("output 0: scale %g, int16 %s needs 2^-15", outScale, map[bool]string{false: "LOGISTIC", true: "TANH"}[tanh])
	}
	name := map[bool]string{false: "LOGISTIC", true: "TANH"}[tanh]
	l, pot := checkedLog2(inScale)
	shift := 12 + l
	pot = pot && (shift == 0 || (tanh && shift == 1))
	if !pot {
		// TFLite's integer multiplier for the table path; a scale so
		// small that it is 0 sends TFLite down the gemmlowp path too,
		// with TANH's input doubled (its shift is then 31, not 0).
		if !(inScale > 0) || math.IsInf(float64(inScale), 0) {
			return fmt.Errorf("input 0: scale %g, int16 %s needs a positive finite scale", inScale, name)
		}
		m := float64(inScale) * 4096 * 3
		shift = 0
		for m <= 32767.0/2 && shift <= 30 {
			shift++
			m *= 2
		}
		if m >= 1 {
			// TFLite truncates the multiplier to int32; one that does
			// not fit is undefined behaviour there, so refuse it.
			if m >= 1<<31 {
				return fmt.Errorf("input 0: scale %g too large for int16 %s (multiplier %g does not fit int32)", inScale, name, m)
			}
			*k = sigmoidTanh16{tanh: tanh, mul: int32(m), shift: uint(shift)}
			return nil
		}
	}
	*k = sigmoidTanh16{}
	if tanh {
		k.fp = fused.TanhTable(3)
		k.double = shift != 0
	} else {
		k.fp = fused.LogisticQ3Table()
	}
	return nil
}

// eval16 applies the prepared function.
func (k *sigmoidTanh16) eval16(dst, src []int16) {
	if k.fp == nil {
		k.evalTable(dst, src)
		return
	}
	for i, v := range src {
		if k.double {
			v = int16(max(math.MinInt16, min(math.MaxInt16, 2*int32(v))))
		}
		dst[i] = k.fp[uint16(v)]
	}
}

// evalTable is reference_integer_ops::Logistic / Tanh for int16: the
// input rescaled to steps of 1/(3·4096) (int32 arithmetic, wrapping as
// TFLite's does on the targets it runs on), its magnitude split into a
// table index and a fraction (9 bits for LOGISTIC, 8 for TANH, which
// reads sigmoid at twice the argument), linear interpolation, the sign
// folded back by symmetry, and the result rounded to Q0.15.
func (k *sigmoidTanh16) evalTable(dst, src []int16) {
	var round int32
	if k.shift > 0 {
		round = 1 << (k.shift - 1)
	}
	fb := uint(9) // fraction bits
	if k.tanh {
		fb = 8
	}
	for i, v := range src {
		x := (int32(v)*k.mul + round) >> k.shift
		ax := uint32(x)
		if x < 0 {
			ax = uint32(-x)
		}
		uh := ax >> fb
		var r uint32
		if uh >= 255 {
			if k.tanh {
				r = 0xFFFF << 8
			} else {
				r = 0x7FFF << 10
			}
		} else {
			ua := uint32(sigmoidTable16[uh])
			ub := uint32(sigmoidTable16[uh+1])
			r = ua<<fb + (ax&(1<<fb-1))*(ub-ua)
		}
		if k.tanh {
			s := int32(r)
			if x >= 0 {
				s = s - 1<<23 + 1<<7
			} else {
				s = -s + 1<<23 + 1<<7 - 1
			}
			dst[i] = int16(s >> 8)
		} else {
			if x >= 0 {
				r += 1 << 9
			} else {
				r = 1<<25 - r + 1<<9 - 1
			}
			dst[i] = int16(r >> 10)
		}
	}
}
