package arch

import (
	"math"
	"unsafe"
)

// Portable float32 quantisation (QuantizeF32Int8, Uint8, Int16): the
// reference the assembly twin is tested against, and the implementation
// of -tags purego builds and of CPUs without it.

// quantizeOne is one element of QuantizeF32Params' formula.
func (p *QuantizeF32Params) quantizeOne(x float32) int32 {
	r := math.Round(float64(x) / p.Scale)
	c := int32(math.MinInt32)
	if r > -2147483649 && r < 2147483648 { // false for NaN
		c = int32(r)
	}
	return min(max(c+p.ZeroPoint, p.Lo), p.Hi)
}

func quantizeF32Generic(dst unsafe.Pointer, x []float32, p *QuantizeF32Params, kind int) {
	switch kind {
	case qkInt8:
		d := unsafe.Slice((*int8)(dst), len(x))
		for i, v := range x {
			d[i] = int8(p.quantizeOne(v))
		}
	case qkUint8:
		d := unsafe.Slice((*uint8)(dst), len(x))
		for i, v := range x {
			d[i] = uint8(p.quantizeOne(v))
		}
	default:
		d := unsafe.Slice((*int16)(dst), len(x))
		for i, v := range x {
			d[i] = int16(p.quantizeOne(v))
		}
	}
}
