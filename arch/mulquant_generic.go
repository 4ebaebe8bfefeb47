package arch

// Portable quantised multiplication (MulQuantInt8, MulQuantUint8): the
// reference the assembly twins are tested against, and the
// implementation of -tags purego builds and of CPUs without them.

// product returns the clamped quantised product of x and y (see
// QuantMul).
func (p *QuantMul) product(x, y int32) int32 {
	v := MultiplyByQuantizedMultiplier((x+p.In1Offset)*(y+p.In2Offset), p.Mult, p.Shift) + p.OutOffset
	return min(max(v, p.Lo), p.Hi)
}

func mulQuantInt8Generic(dst, a, b []int8, p *QuantMul) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = int8(p.product(int32(a[i]), int32(b[i])))
	}
}

func mulQuantUint8Generic(dst, a, b []uint8, p *QuantMul) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = uint8(p.product(int32(a[i]), int32(b[i])))
	}
}
