package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// float8Format describes one of the two float8 types TFLite's schema has,
// as ml_dtypes defines them (TFLite's float8_internal aliases
// ml_dtypes::float8_e4m3fn and float8_e5m2).
type float8Format struct {
	manBits uint // mantissa bits
	bias    int  // exponent bias
	// ieee: the all-ones exponent holds infinities (mantissa 0) and NaNs
	// (e5m2). Otherwise (e4m3fn) there are no infinities and only
	// S.1111.111 is NaN.
	ieee bool
	// highest is the bit pattern of the largest finite value; nan and
	// inf are the positive NaN and infinity ml_dtypes' numeric_limits
	// return (e4m3fn has no infinity: its infinity() is the NaN 0x7f).
	highest, nan, inf byte
}

var (
	float8E4M3FN = float8Format{manBits: 3, bias: 7, highest: 0x7e, nan: 0x7f, inf: 0x7f}
	float8E5M2   = float8Format{manBits: 2, bias: 15, ieee: true, highest: 0x7b, nan: 0x7e, inf: 0x7c}
)

// float8FormatOf returns the format of a float8 type; ok is false for any
// other type.
func float8FormatOf(t ops.DataType) (f float8Format, ok bool) {
	switch t {
	case ops.Float8E4M3FN:
		return float8E4M3FN, true
	case ops.Float8E5M2:
		return float8E5M2, true
	}
	return float8Format{}, false
}

// roundBitsNearestEven adds to bits the bias that makes dropping its low
// n bits round to nearest, ties to even (ml_dtypes'
// RoundBitsToNearestEven).
func roundBitsNearestEven(bits uint32, n uint) uint32 {
	if n == 0 {
		return bits
	}
	return bits + (bits>>n)&1 + (1<<(n-1) - 1)
}

// fromFloat32 converts x to the format's bits as ml_dtypes' ConvertFrom
// does with its defaults (no saturation, no truncation): round to nearest
// even; a value whose rounding exceeds the largest finite one becomes
// infinity (e5m2) or NaN (e4m3fn, which has no infinity); ±∞ likewise;
// NaN becomes the format's NaN with x's sign; float32 values too small
// for the format's subnormals become ±0.
func (f float8Format) fromFloat32(x float32) byte {
	xb := math.Float32bits(x)
	sign := byte(xb>>31) << 7
	abs := xb &^ (1 << 31)
	switch {
	case abs > 0x7f800000: // NaN
		return sign | f.nan
	case abs == 0x7f800000:
		return sign | f.inf
	case abs == 0:
		return sign
	}
	const fromMan = 23
	shift := fromMan - f.manBits // mantissa bits dropped
	biasedExp := int(abs >> fromMan)
	toExp := biasedExp - 127 + f.bias
	if toExp <= 0 {
		// Subnormal (or zero) in the target: shift the significand,
		// with its implicit one when the input is normal.
		lead := uint32(0)
		if biasedExp > 0 {
			lead = 1
		}
		es := int(shift) - toExp + int(lead)
		sig := abs&(1<<fromMan-1) | lead<<fromMan
		var bits uint32
		if es <= fromMan+1 {
			bits = roundBitsNearestEven(sig, uint(es)) >> uint(es)
		}
		return sign | byte(bits)
	}
	r := roundBitsNearestEven(abs, shift) &^ (1<<shift - 1)
	// Re-bias the exponent (wrapping as unsigned arithmetic does), then
	// compare with the largest finite value aligned the same way.
	r += uint32(int32(f.bias-127)) << fromMan
	if r > uint32(f.highest)<<shift {
		return sign | f.inf
	}
	return sign | byte(r>>shift)
}

// toFloat32 converts the format's bits b to float32, exactly; a NaN
// becomes float32's quiet NaN with b's sign.
func (f float8Format) toFloat32(b byte) float32 {
	neg := b&0x80 != 0
	exp := int(b&0x7f) >> f.manBits
	man := int(b) & (1<<f.manBits - 1)
	maxExp := 1<<(7-f.manBits) - 1
	var v float32
	switch {
	case f.ieee && exp == maxExp && man == 0:
		v = float32(math.Inf(1))
	case f.ieee && exp == maxExp, !f.ieee && exp == maxExp && man == 1<<f.manBits-1:
		if neg {
			return math.Float32frombits(0xffc00000)
		}
		return math.Float32frombits(0x7fc00000)
	case exp == 0:
		v = float32(math.Ldexp(float64(man), 1-f.bias-int(f.manBits)))
	default:
		v = float32(math.Ldexp(float64(man|1<<f.manBits), exp-f.bias-int(f.manBits)))
	}
	if neg {
		v = -v
	}
	return v
}
