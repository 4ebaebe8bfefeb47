package arch

// Quantised PRELU: the per-element arithmetic of TFLite's int8 and uint8
// PRELU (reference_ops::BroadcastPrelu4DSlow, which the builtin kernel's
// PreluEval runs for both types). Portable code in preluquant_generic.go,
// assembly twins in preluquant_avx2_amd64.s and preluquant_neon_arm64.s.

var (
	preluQuantInt8       func(dst, x, alpha []int8, p *QuantPRelu)
	preluQuantUint8      func(dst, x, alpha []uint8, p *QuantPRelu)
	preluQuantInt8Impls  = newImpls("PReluQuantInt8", &preluQuantInt8, preluQuantInt8Generic)
	preluQuantUint8Impls = newImpls("PReluQuantUint8", &preluQuantUint8, preluQuantUint8Generic)
)

// QuantPRelu holds the fixed-point parameters of TFLite's quantised
// PRELU (its OpData after PreluPrepare). With v = x + InOffset and
// w = alpha + AlphaOffset,
//
//	y = MBQM(v, PosMult, PosShift)      for v ≥ 0
//	y = MBQM(v·w, NegMult, NegShift)    for v < 0
//	out = clamp(y + OutOffset, Lo, Hi)
//
// where MBQM is MultiplyByQuantizedMultiplier (the saturating rounding
// doubling high multiply of v·2^max(shift,0), then a rounding right shift
// by max(-shift,0), ties away from zero). PosMult/PosShift are TFLite's
// output_multiplier_1/output_shift_1 (input scale / output scale),
// NegMult/NegShift its output_multiplier_2/output_shift_2 (input scale ·
// alpha scale / output scale). Lo and Hi are the output type's range.
type QuantPRelu struct {
	InOffset, AlphaOffset int32 // minus the input's and alpha's zero points
	PosMult               int32
	PosShift              int
	NegMult               int32
	NegShift              int
	OutOffset             int32 // the output zero point
	Lo, Hi                int32
}

// PReluQuantInt8 sets dst[i] to the quantised PRELU of x[i] with slope
// alpha[i] and the parameters p (see QuantPRelu), for i < len(dst). x and
// alpha must be at least as long as dst and p.Lo ≤ p.Hi must lie in
// [-128, 127] (it panics otherwise). Results are bit-identical at every
// level for every input.
func PReluQuantInt8(dst, x, alpha []int8, p *QuantPRelu) {
	_, _ = x[:len(dst)], alpha[:len(dst)]
	if p.Lo < -128 || p.Hi > 127 || p.Lo > p.Hi {
		panic("arch.PReluQuantInt8: clamp range outside [-128, 127]")
	}
	preluQuantInt8(dst, x, alpha, p)
}

// PReluQuantUint8 is PReluQuantInt8 for uint8 tensors; p.Lo ≤ p.Hi must
// lie in [0, 255].
func PReluQuantUint8(dst, x, alpha []uint8, p *QuantPRelu) {
	_, _ = x[:len(dst)], alpha[:len(dst)]
	if p.Lo < 0 || p.Hi > 255 || p.Lo > p.Hi {
		panic("arch.PReluQuantUint8: clamp range outside [0, 255]")
	}
	preluQuantUint8(dst, x, alpha, p)
}

// PReluQuantVector reports whether PReluQuantInt8 and PReluQuantUint8
// run an assembly kernel at the level in use (callers with a faster
// portable scheme of their own, such as a lookup table, keep it
// otherwise).
func PReluQuantVector() bool {
	return preluQuantInt8Impls.cur != 0
}
