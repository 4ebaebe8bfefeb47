package arch

// maxBlocksIntGeneric is the portable MaxBlocksInt8, MaxBlocksUint8 and
// MaxBlocksInt16 (any n, width ≥ 0): the reference the assembly twins are
// tested against, and the implementation of -tags purego builds.
func maxBlocksIntGeneric[T int8 | uint8 | int16](dst, src []T, n, width, dstStride, srcStride int) {
	for k := 0; k < n; k++ {
		d := dst[k*dstStride : k*dstStride+width]
		s := src[k*srcStride : k*srcStride+width]
		for c, v := range s {
			d[c] = max(d[c], v)
		}
	}
}

// minBlocksIntGeneric is maxBlocksIntGeneric with the minimum: the
// portable MinBlocksInt8, MinBlocksUint8 and MinBlocksInt16.
func minBlocksIntGeneric[T int8 | uint8 | int16](dst, src []T, n, width, dstStride, srcStride int) {
	for k := 0; k < n; k++ {
		d := dst[k*dstStride : k*dstStride+width]
		s := src[k*srcStride : k*srcStride+width]
		for c, v := range s {
			d[c] = min(d[c], v)
		}
	}
}
