package arch

// Quantised elementwise addition: the inner loop of TFLite's general int8
// and uint8 ADD (optimized_integer_ops::AddElementwise and
// optimized_ops::AddElementwise, whose NEON paths compute the same
// fixed-point steps as reference_ops::AddFunc). Portable code in
// addquant_generic.go, assembly twins in addquant_avx2_amd64.s and
// addquant_neon_arm64.s.

var (
	addQuantInt8       func(dst, a, b []int8, p *QuantAdd)
	addQuantUint8      func(dst, a, b []uint8, p *QuantAdd)
	addQuantInt8Impls  = newImpls("AddQuantInt8", &addQuantInt8, addQuantInt8Generic)
	addQuantUint8Impls = newImpls("AddQuantUint8", &addQuantUint8, addQuantUint8Generic)
)

// QuantAdd holds the fixed-point parameters of TFLite's general quantised
// ADD (its OpData after PrepareGeneralSubOp): each input x is brought to
// a common scale as
//
//	s = MBQM((x + InOffset)·2^LeftShift, InMult, InShift)
//
// and the sum to the output as
//
//	out = clamp(MBQM(s1 + s2, OutMult, OutShift) + OutOffset, Lo, Hi)
//
// where MBQM is MultiplyByQuantizedMultiplier (saturating rounding
// doubling high multiply of x·2^max(shift,0), then a rounding right shift
// by max(-shift,0), ties away from zero; TFLite's
// MultiplyByQuantizedMultiplierSmallerThanOneExp for the non-positive
// shifts it derives). The left shifts and the sums wrap as int32. Lo and
// Hi are the fused activation's quantised range.
//
// With Subtract set the second scaled input is subtracted instead,
//
//	out = clamp(MBQM(s1 − s2, OutMult, OutShift) + OutOffset, Lo, Hi)
//
// which is TFLite's general quantised SUB (reference_ops::SubElementwise,
// the path its builtin SUB kernel takes for int8 and uint8 at every
// kernel type): both inputs are rescaled with their own positive
// multipliers and the difference wraps as int32. (Negating In2Mult is
// not the same: the rounding high multiply rounds halves upwards, so it
// is not odd.)
type QuantAdd struct {
	In1Offset, In2Offset int32 // minus the inputs' zero points
	LeftShift            int   // 20 for 8-bit inputs
	In1Mult, In2Mult     int32
	In1Shift, In2Shift   int
	OutMult              int32
	OutShift             int
	OutOffset            int32 // the output zero point
	Lo, Hi               int32
	Subtract             bool // s1 − s2 instead of s1 + s2 (SUB)
}

// AddQuantInt8 sets dst[i] to the quantised sum of a[i] and b[i] (the
// difference a[i] − b[i] when p.Subtract is set) with the parameters p
// (see QuantAdd), for i < len(dst). a and b must be at least
// as long as dst, p.Lo ≤ p.Hi must lie in [-128, 127] and p.LeftShift
// in [0, 31] (it panics otherwise). Results are bit-identical at every level for every input.
func AddQuantInt8(dst, a, b []int8, p *QuantAdd) {
	_, _ = a[:len(dst)], b[:len(dst)]
	if p.Lo < -128 || p.Hi > 127 || p.Lo > p.Hi {
		panic("arch.AddQuantInt8: clamp range outside [-128, 127]")
	}
	if p.LeftShift < 0 || p.LeftShift > 31 {
		panic("arch.AddQuantInt8: LeftShift outside [0, 31]")
	}
	addQuantInt8(dst, a, b, p)
}

// AddQuantUint8 is AddQuantInt8 for uint8 tensors; p.Lo ≤ p.Hi must lie
// in [0, 255].
func AddQuantUint8(dst, a, b []uint8, p *QuantAdd) {
	_, _ = a[:len(dst)], b[:len(dst)]
	if p.Lo < 0 || p.Hi > 255 || p.Lo > p.Hi {
		panic("arch.AddQuantUint8: clamp range outside [0, 255]")
	}
	if p.LeftShift < 0 || p.LeftShift > 31 {
		panic("arch.AddQuantUint8: LeftShift outside [0, 31]")
	}
	addQuantUint8(dst, a, b, p)
}
