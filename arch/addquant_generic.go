package arch

// Portable quantised addition (AddQuantInt8, AddQuantUint8): the
// reference the assembly twins are tested against, and the implementation
// of -tags purego builds and of CPUs without them.

// sum returns the clamped quantised sum of x and y, or their difference
// x − y when p.Subtract is set (see QuantAdd).
func (p *QuantAdd) sum(x, y int32) int32 {
	sx := MultiplyByQuantizedMultiplier((x+p.In1Offset)*(int32(1)<<p.LeftShift), p.In1Mult, p.In1Shift)
	sy := MultiplyByQuantizedMultiplier((y+p.In2Offset)*(int32(1)<<p.LeftShift), p.In2Mult, p.In2Shift)
	if p.Subtract {
		sy = -sy // wraps for MinInt32, as sx − sy does
	}
	v := MultiplyByQuantizedMultiplier(sx+sy, p.OutMult, p.OutShift) + p.OutOffset
	return min(max(v, p.Lo), p.Hi)
}

func addQuantInt8Generic(dst, a, b []int8, p *QuantAdd) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = int8(p.sum(int32(a[i]), int32(b[i])))
	}
}

func addQuantUint8Generic(dst, a, b []uint8, p *QuantAdd) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = uint8(p.sum(int32(a[i]), int32(b[i])))
	}
}
