package builtin

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// L2Normalization is the kernel of TFLite's L2_NORMALIZATION operator:
// every vector along the last dimension is divided by its Euclidean norm,
//
//	out[..., c] = in[..., c] / max(sqrt(Σ_c in[..., c]²), 1e-6).
//
// Input 0 has rank ≥ 1; output 0 has its shape and type. Types, as
// TFLite's l2norm.cc (generic optimised variant):
//   - float32: the squares summed in order in float32, then sqrt, the
//     1e-6 floor and one division per element — TFLite's result bit for
//     bit;
//   - uint8 (output scale 1/128, zero point 128) and int8 (scale 1/128,
//     zero point 0): the integer sum of squared (in − zp) gives a
//     fixed-point 1/sqrt (GetInvSqrtQuantizedMultiplierExp, five
//     Newton–Raphson steps), which rescales every in − zp; uint8 as
//     TFLite's optimised kernel (128·(in − zp) through
//     MultiplyByQuantizedMultiplierSmallerThanOneExp, plus 128), int8 as
//     its reference integer kernel (MultiplyByQuantizedMultiplier with 7
//     more bits of shift).
//
// The fused activation must be NONE, as TFLite requires. Versions 1-2
// (2: int8), TFLite's register.cc range.
type L2Normalization struct {
	typ          ops.DataType
	outer, depth int
	inZP         int32
}

// L2NormOptions is TFLite's L2NormOptions.
type L2NormOptions struct {
	Activation ops.Activation
}

// NewL2Normalization returns an L2_NORMALIZATION kernel for one node.
func NewL2Normalization() ops.Kernel { return &L2Normalization{} }

func init() {
	register(ops.OpL2Normalization, NewL2Normalization, [2]int{1, 2})
	registerOptions(schema.BuiltinOptionsL2NormOptions, decodeL2NormOptions)
}

// decodeL2NormOptions decodes TFLite's L2NormOptions table.
func decodeL2NormOptions(t ops.OptionsTable) (any, error) {
	var o schema.L2NormOptions
	initTable(&o, t)
	return &L2NormOptions{Activation: ops.Activation(o.FusedActivationFunction())}, nil
}

// Prepare validates the node and sets the output shape.
func (k *L2Normalization) Prepare(n *ops.Node) error {
	*k = L2Normalization{}
	if o, ok := n.Options.(*L2NormOptions); ok {
		if o != nil && o.Activation != ops.ActNone {
			return fmt.Errorf("options: fused activation %s, L2_NORMALIZATION supports only NONE", o.Activation)
		}
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *L2NormOptions", n.Options)
	}
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if in.Rank() < 1 {
		return errors.New("input 0: a scalar, need rank ≥ 1")
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Uint8, ops.Int8); err != nil {
		return err
	}
	k.typ = in.Type
	k.depth = in.Shape[in.Rank()-1]
	if k.depth > 0 {
		k.outer = in.NumElements() / k.depth
	}
	if in.Type == ops.Float32 {
		return nil
	}
	scale, zp, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	wantZP := int32(0)
	if in.Type == ops.Uint8 {
		wantZP = 128
	}
	if scale != 1.0/128 || zp != wantZP {
		return fmt.Errorf("output 0: scale %g and zero point %d, need 1/128 and %d", scale, zp, wantZP)
	}
	if _, k.inZP, err = perTensorQuant(in, "input 0"); err != nil {
		return err
	}
	if k.depth > 1<<15 {
		// The int32 sum of squares (up to 255² each) must not wrap.
		return fmt.Errorf("input 0: last dimension %d, the quantised kernel supports at most %d", k.depth, 1<<15)
	}
	return nil
}

// Eval normalises every vector.
func (k *L2Normalization) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("L2_NORMALIZATION: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	d := k.depth
	switch k.typ {
	case ops.Float32:
		x, o := in.Float32s(), out.Float32s()
		for r := 0; r < k.outer; r++ {
			row, dst := x[r*d:(r+1)*d], o[r*d:(r+1)*d]
			var sq float32
			for _, v := range row {
				sq += float32(v * v)
			}
			norm := float32(math.Sqrt(float64(sq)))
			norm = max(norm, 1e-6) // std::max(norm, epsilon): NaN stays NaN
			for i, v := range row {
				dst[i] = v / norm
			}
		}
	case ops.Uint8:
		x, o := in.Data, out.Data
		for r := 0; r < k.outer; r++ {
			row, dst := x[r*d:(r+1)*d], o[r*d:(r+1)*d]
			var sq int32
			for _, v := range row {
				diff := int32(v) - k.inZP
				sq += diff * diff
			}
			mult, shift := invSqrtQuantizedMultiplierExp(sq, -1)
			for i, v := range row {
				diff := int32(v) - k.inZP
				rescaled := ops.MultiplyByQuantizedMultiplierSmallerThanOneExp(128*diff, mult, shift)
				dst[i] = uint8(min(255, max(0, 128+rescaled)))
			}
		}
	case ops.Int8:
		x, o := in.Int8s(), out.Int8s()
		for r := 0; r < k.outer; r++ {
			row, dst := x[r*d:(r+1)*d], o[r*d:(r+1)*d]
			var sq int32
			for _, v := range row {
				diff := int32(v) - k.inZP
				sq += diff * diff
			}
			mult, shift := invSqrtQuantizedMultiplierExp(sq, -1)
			for i, v := range row {
				q := ops.MultiplyByQuantizedMultiplier(int32(v)-k.inZP, mult, shift+7)
				dst[i] = int8(min(127, max(-128, q)))
			}
		}
	}
	return nil
}

// invSqrtQuantizedMultiplierExp is TFLite's GetInvSqrtQuantizedMultiplierExp
// (kernels/internal/common.h): 1/sqrt(input) as a Q0.31 multiplier and a
// right shift, multiplied by reverseShift (−1 gives the left-shift
// convention of MultiplyByQuantizedMultiplier). The input is first scaled
// by powers of 4 into [2^27, 2^29), then five Newton–Raphson steps
// x ← 1.5·x − (input/2)·x³ run in gemmlowp's Q3.28 fixed point (products
// with SaturatingRoundingDoublingHighMul, rescales with saturating
// rounding shifts), and the result is multiplied by √2/2. Inputs ≤ 1 give
// (MaxInt32, 0).
func invSqrtQuantizedMultiplierExp(input int32, reverseShift int) (int32, int) {
	if input <= 1 {
		return math.MaxInt32, 0
	}
	shift := 11
	for input >= 1<<29 {
		input /= 4
		shift++
	}
	pairs := (bits.LeadingZeros32(uint32(input))-1)/2 - 1
	shift -= pairs
	input <<= 2 * pairs
	mul := ops.SaturatingRoundingDoublingHighMul
	halfInput := ops.RoundingDivideByPOT(input>>1, 1) // Q3.28 input/2
	const halfThree = 1<<28 + 1<<27                   // 1.5 in Q3.28
	x := int32(1 << 28)                               // 1 in Q3.28
	for i := 0; i < 5; i++ {
		// x³ is Q9.22; rescaled to Q3.28 by a saturating shift of 6.
		x3 := saturatingShiftLeft(mul(mul(x, x), x), 6)
		// The difference of two Q6.25 products, back to Q3.28.
		x = saturatingShiftLeft(mul(halfThree, x)-mul(halfInput, x3), 3)
	}
	const halfSqrt2 = 1518500250 // √2/2 in Q0.31
	x = mul(x, halfSqrt2)
	if shift < 0 {
		x <<= -shift
		shift = 0
	}
	return x, shift * reverseShift
}

// saturatingShiftLeft is gemmlowp's SaturatingRoundingMultiplyByPOT for a
// positive exponent: x·2^e, saturated to the int32 range.
func saturatingShiftLeft(x int32, e uint) int32 {
	threshold := int32(1)<<(31-e) - 1
	switch {
	case x > threshold:
		return math.MaxInt32
	case x < -threshold:
		return math.MinInt32
	}
	return x << e
}
