package arch

// Portable quantised PRELU (PReluQuantInt8, PReluQuantUint8): the
// reference the assembly twins are tested against, and the
// implementation of -tags purego builds and of CPUs without them.

// value returns the clamped quantised PRELU of x with slope a (see
// QuantPRelu).
func (p *QuantPRelu) value(x, a int32) int32 {
	v := x + p.InOffset
	var y int32
	if v >= 0 {
		y = MultiplyByQuantizedMultiplier(v, p.PosMult, p.PosShift)
	} else {
		y = MultiplyByQuantizedMultiplier(v*(a+p.AlphaOffset), p.NegMult, p.NegShift)
	}
	return min(max(y+p.OutOffset, p.Lo), p.Hi)
}

func preluQuantInt8Generic(dst, x, alpha []int8, p *QuantPRelu) {
	x, alpha = x[:len(dst)], alpha[:len(dst)]
	for i := range dst {
		dst[i] = int8(p.value(int32(x[i]), int32(alpha[i])))
	}
}

func preluQuantUint8Generic(dst, x, alpha []uint8, p *QuantPRelu) {
	x, alpha = x[:len(dst)], alpha[:len(dst)]
	for i := range dst {
		dst[i] = uint8(p.value(int32(x[i]), int32(alpha[i])))
	}
}
