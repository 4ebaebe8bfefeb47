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
// scale is rescaled to 1/(3·4096) per step and read, with linear
// interpolation, from TFLite's 256-entry sigmoid_table_uint16
// (reference_integer_ops::Logistic/Tanh); that table is hand-tuned data,
// not a formula (44 of its entries are one above round(2^16·sigmoid(i/24))),
// so tflrun cannot derive it and refuses those scales with an error.

// sigmoidTanh16 holds the prepared int16 LOGISTIC or TANH: gemmlowp's
// function tabulated, the input doubled first (saturating) when double is
// set.
type sigmoidTanh16 struct {
	double bool
	fp     *[1 << 16]int16
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
		m := float64(inScale) * 4096 * 3
		shift = 0
		for m <= 32767.0/2 && shift <= 30 {
			shift++
			m *= 2
		}
		if m >= 1 {
			return fmt.Errorf("input 0: scale %g: int16 %s supports input scales 2^-12%s (TFLite's fixed-point path); other scales use TFLite's tuned sigmoid table, not supported yet",
				inScale, name, map[bool]string{false: "", true: " and 2^-11"}[tanh])
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
	for i, v := range src {
		if k.double {
			v = int16(max(math.MinInt16, min(math.MaxInt16, 2*int32(v))))
		}
		dst[i] = k.fp[uint16(v)]
	}
}
