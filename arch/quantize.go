package arch

import "unsafe"

// Affine quantisation of float32 data: the per-tensor loop of TFLite's
// QUANTIZE from float32 (optimized_ops::AffineQuantize for int8, uint8
// and int16 as x86 builds run it, where its NEON loops are compiled out:
// a division in double). Portable code in quantize_generic.go, the AVX2
// twin in quantize_avx2_amd64.s; other CPUs run the portable code.

var (
	quantizeF32      func(dst unsafe.Pointer, x []float32, p *QuantizeF32Params, kind int)
	quantizeF32Impls = newImpls("QuantizeF32", &quantizeF32, quantizeF32Generic)
)

// The element kinds of quantizeF32's dst.
const (
	qkInt8 = iota
	qkUint8
	qkInt16
)

// QuantizeF32Params are the parameters of QuantizeF32Int8, Uint8 and
// Int16: each element becomes
//
//	clamp(int32(round(float64(x) / Scale)) + ZeroPoint, Lo, Hi)
//
// with the division in float64 (Scale is the tensor's float32 scale
// widened), round halving away from zero (TfLiteRound), and the int32
// conversion as x86's CVTTSD2SI: NaN and values outside the int32 range
// give MinInt32. The addition of ZeroPoint wraps as int32.
type QuantizeF32Params struct {
	Scale     float64
	ZeroPoint int32
	Lo, Hi    int32
}

// QuantizeF32Int8 sets dst[i] to x[i] quantised with p (see
// QuantizeF32Params) for i < len(x). dst must be at least as long as x
// and p.Lo ≤ p.Hi lie within [-128, 127] (it panics otherwise). Every
// implementation gives the same bits for every input.
func QuantizeF32Int8(dst []int8, x []float32, p *QuantizeF32Params) {
	_ = dst[:len(x)]
	if p.Lo < -128 || p.Hi > 127 || p.Lo > p.Hi {
		panic("arch.QuantizeF32Int8: clamp range outside [-128, 127]")
	}
	quantizeF32(unsafe.Pointer(unsafe.SliceData(dst)), x, p, qkInt8)
}

// QuantizeF32Uint8 is QuantizeF32Int8 for uint8 outputs; p.Lo ≤ p.Hi
// must lie within [0, 255].
func QuantizeF32Uint8(dst []uint8, x []float32, p *QuantizeF32Params) {
	_ = dst[:len(x)]
	if p.Lo < 0 || p.Hi > 255 || p.Lo > p.Hi {
		panic("arch.QuantizeF32Uint8: clamp range outside [0, 255]")
	}
	quantizeF32(unsafe.Pointer(unsafe.SliceData(dst)), x, p, qkUint8)
}

// QuantizeF32Int16 is QuantizeF32Int8 for int16 outputs; p.Lo ≤ p.Hi
// must lie within [-32768, 32767].
func QuantizeF32Int16(dst []int16, x []float32, p *QuantizeF32Params) {
	_ = dst[:len(x)]
	if p.Lo < -32768 || p.Hi > 32767 || p.Lo > p.Hi {
		panic("arch.QuantizeF32Int16: clamp range outside [-32768, 32767]")
	}
	quantizeF32(unsafe.Pointer(unsafe.SliceData(dst)), x, p, qkInt16)
}
