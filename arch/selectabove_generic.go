package arch

// Portable threshold selection (SelectAboveF32): the reference
// the assembly twins are tested against, and the implementation of
// -tags purego builds and of CPUs without them.

// selectAboveF32Generic is the portable SelectAboveF32.
func selectAboveF32Generic(dst []int32, x []float32, th float32, orEqual bool) (n, next int) {
	if orEqual {
		for i, v := range x {
			if v >= th {
				dst[n] = int32(i)
				if n++; n == len(dst) {
					return n, i + 1
				}
			}
		}
		return n, len(x)
	}
	for i, v := range x {
		if v > th {
			dst[n] = int32(i)
			if n++; n == len(dst) {
				return n, i + 1
			}
		}
	}
	return n, len(x)
}
