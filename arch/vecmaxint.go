package arch

// Integer elementwise maximum and minimum: the window maximum of
// quantised MAX_POOL_2D (int8, uint8 and int16 tensors pool their raw
// values), and quantised MAXIMUM and MINIMUM, which compare raw values.

var (
	maxBlocksInt8       func(dst, src []int8, n, width, dstStride, srcStride int)
	maxBlocksInt8Impls  = newImpls("MaxBlocksInt8", &maxBlocksInt8, maxBlocksIntGeneric[int8])
	maxBlocksUint8      func(dst, src []uint8, n, width, dstStride, srcStride int)
	maxBlocksUint8Impls = newImpls("MaxBlocksUint8", &maxBlocksUint8, maxBlocksIntGeneric[uint8])
	maxBlocksInt16      func(dst, src []int16, n, width, dstStride, srcStride int)
	maxBlocksInt16Impls = newImpls("MaxBlocksInt16", &maxBlocksInt16, maxBlocksIntGeneric[int16])
	minBlocksInt8       func(dst, src []int8, n, width, dstStride, srcStride int)
	minBlocksInt8Impls  = newImpls("MinBlocksInt8", &minBlocksInt8, minBlocksIntGeneric[int8])
	minBlocksUint8      func(dst, src []uint8, n, width, dstStride, srcStride int)
	minBlocksUint8Impls = newImpls("MinBlocksUint8", &minBlocksUint8, minBlocksIntGeneric[uint8])
	minBlocksInt16      func(dst, src []int16, n, width, dstStride, srcStride int)
	minBlocksInt16Impls = newImpls("MinBlocksInt16", &minBlocksInt16, minBlocksIntGeneric[int16])
)

// checkMaxBlocks panics, naming fn, unless the MaxBlocks geometry fits
// slices of dLen and sLen values; it reports whether there is work.
func checkMaxBlocks(fn string, dLen, sLen, n, width, dstStride, srcStride int) bool {
	if n < 0 || width < 0 || dstStride < 0 || srcStride < 0 {
		panic("arch." + fn + ": negative size or stride")
	}
	if n == 0 || width == 0 {
		return false
	}
	if n > 1 && dstStride < width {
		panic("arch." + fn + ": destination blocks overlap")
	}
	if (n-1)*dstStride+width > dLen || (n-1)*srcStride+width > sLen {
		panic("arch." + fn + ": slice shorter than its last block")
	}
	return true
}

// MaxBlocksInt8 sets dst[k*dstStride+c] = src[k*srcStride+c] where the
// former is less (signed comparison), for k < n and c < width: one
// window tap of a whole output row of int8 MAX_POOL_2D (width =
// channels, dstStride = channels, srcStride = stride·channels), the
// integer twin of MaxBlocksF32. The result is max(dst, src) exactly, so
// every implementation gives the same bytes. Blocks of dst must not
// overlap one another (dstStride ≥ width unless n = 1) nor any block of
// src; src blocks may overlap. It panics if n, width or a stride is
// negative, if dst blocks overlap, or if a slice is shorter than the
// last block.
func MaxBlocksInt8(dst, src []int8, n, width, dstStride, srcStride int) {
	if checkMaxBlocks("MaxBlocksInt8", len(dst), len(src), n, width, dstStride, srcStride) {
		maxBlocksInt8(dst, src, n, width, dstStride, srcStride)
	}
}

// MaxBlocksUint8 is MaxBlocksInt8 for uint8 values (unsigned comparison):
// uint8 MAX_POOL_2D.
func MaxBlocksUint8(dst, src []uint8, n, width, dstStride, srcStride int) {
	if checkMaxBlocks("MaxBlocksUint8", len(dst), len(src), n, width, dstStride, srcStride) {
		maxBlocksUint8(dst, src, n, width, dstStride, srcStride)
	}
}

// MaxBlocksInt16 is MaxBlocksInt8 for int16 values: int16 MAX_POOL_2D.
func MaxBlocksInt16(dst, src []int16, n, width, dstStride, srcStride int) {
	if checkMaxBlocks("MaxBlocksInt16", len(dst), len(src), n, width, dstStride, srcStride) {
		maxBlocksInt16(dst, src, n, width, dstStride, srcStride)
	}
}

// MinBlocksInt8 is MaxBlocksInt8 with the minimum: it sets
// dst[k*dstStride+c] = src[k*srcStride+c] where the former is greater
// (signed comparison), for k < n and c < width, with MaxBlocksInt8's
// geometry, contract and panics. The result is min(dst, src) exactly, so
// every implementation gives the same bytes: int8 MINIMUM (TFLite's
// maximum_minimum.cc compares raw values) over a run is one call with
// n = 1.
func MinBlocksInt8(dst, src []int8, n, width, dstStride, srcStride int) {
	if checkMaxBlocks("MinBlocksInt8", len(dst), len(src), n, width, dstStride, srcStride) {
		minBlocksInt8(dst, src, n, width, dstStride, srcStride)
	}
}

// MinBlocksUint8 is MinBlocksInt8 for uint8 values (unsigned comparison):
// uint8 MINIMUM.
func MinBlocksUint8(dst, src []uint8, n, width, dstStride, srcStride int) {
	if checkMaxBlocks("MinBlocksUint8", len(dst), len(src), n, width, dstStride, srcStride) {
		minBlocksUint8(dst, src, n, width, dstStride, srcStride)
	}
}

// MinBlocksInt16 is MinBlocksInt8 for int16 values: int16 MINIMUM.
func MinBlocksInt16(dst, src []int16, n, width, dstStride, srcStride int) {
	if checkMaxBlocks("MinBlocksInt16", len(dst), len(src), n, width, dstStride, srcStride) {
		minBlocksInt16(dst, src, n, width, dstStride, srcStride)
	}
}
