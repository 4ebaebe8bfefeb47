package arch

// Quantised elementwise multiplication: the inner loop of TFLite's int8
// and uint8 MUL (optimized_integer_ops::MulElementwise and
// optimized_ops::MulElementwise compute the same fixed-point steps as
// reference_ops::MulElementwise). Portable code in mulquant_generic.go,
// assembly twins in mulquant_avx2_amd64.s, mulquant_avx512_amd64.s and
// addquant_neon_arm64.s
// (which holds both arm64 kernels).

var (
	mulQuantInt8       func(dst, a, b []int8, p *QuantMul)
	mulQuantUint8      func(dst, a, b []uint8, p *QuantMul)
	mulQuantInt8Impls  = newImpls("MulQuantInt8", &mulQuantInt8, mulQuantInt8Generic)
	mulQuantUint8Impls = newImpls("MulQuantUint8", &mulQuantUint8, mulQuantUint8Generic)
)

// QuantMul holds the fixed-point parameters of TFLite's quantised MUL:
//
//	out = clamp(MBQM((x + In1Offset)·(y + In2Offset), Mult, Shift) + OutOffset, Lo, Hi)
//
// with MBQM TFLite's MultiplyByQuantizedMultiplier (see QuantAdd) and the
// product wrapping as int32. Lo and Hi are the fused activation's
// quantised range.
type QuantMul struct {
	In1Offset, In2Offset int32 // minus the inputs' zero points
	Mult                 int32
	Shift                int
	OutOffset            int32 // the output zero point
	Lo, Hi               int32
}

// MulQuantInt8 sets dst[i] to the quantised product of a[i] and b[i] with
// the parameters p (see QuantMul), for i < len(dst). a and b must be at
// least as long as dst and p.Lo ≤ p.Hi must lie in [-128, 127] (it panics
// otherwise). Results are bit-identical at every level for every input.
func MulQuantInt8(dst, a, b []int8, p *QuantMul) {
	_, _ = a[:len(dst)], b[:len(dst)]
	if p.Lo < -128 || p.Hi > 127 || p.Lo > p.Hi {
		panic("arch.MulQuantInt8: clamp range outside [-128, 127]")
	}
	mulQuantInt8(dst, a, b, p)
}

// MulQuantUint8 is MulQuantInt8 for uint8 tensors; p.Lo ≤ p.Hi must lie
// in [0, 255].
func MulQuantUint8(dst, a, b []uint8, p *QuantMul) {
	_, _ = a[:len(dst)], b[:len(dst)]
	if p.Lo < 0 || p.Hi > 255 || p.Lo > p.Hi {
		panic("arch.MulQuantUint8: clamp range outside [0, 255]")
	}
	mulQuantUint8(dst, a, b, p)
}
