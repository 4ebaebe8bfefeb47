package arch

// Portable float elementwise maximum (VecMaxF32, MaxBlocksF32): the reference
// the assembly twins are tested against, and the implementation of
// -tags purego builds and of CPUs without them.

// maxBlocksF32Generic is the portable MaxBlocksF32 (any n, width ≥ 0).
func maxBlocksF32Generic(dst, src []float32, n, width, dstStride, srcStride int) {
	for k := 0; k < n; k++ {
		d := dst[k*dstStride : k*dstStride+width]
		s := src[k*srcStride : k*srcStride+width]
		for c, v := range s {
			if d[c] < v {
				d[c] = v
			}
		}
	}
}
