//go:build !purego

package arch

// The arm64 MaxBlocksInt8/Uint8/Int16 and MinBlocksInt8/Uint8/Int16 kernels (vecmaxint_neon_arm64.s),
// with the signature and contract of maxBlocksIntGeneric, registered at
// the neon level (ASIMD is part of every arm64 CPU).

//go:noescape
func maxBlocksInt8NEON(dst, src []int8, n, width, dstStride, srcStride int)

//go:noescape
func maxBlocksUint8NEON(dst, src []uint8, n, width, dstStride, srcStride int)

//go:noescape
func maxBlocksInt16NEON(dst, src []int16, n, width, dstStride, srcStride int)

//go:noescape
func minBlocksInt8NEON(dst, src []int8, n, width, dstStride, srcStride int)

//go:noescape
func minBlocksUint8NEON(dst, src []uint8, n, width, dstStride, srcStride int)

//go:noescape
func minBlocksInt16NEON(dst, src []int16, n, width, dstStride, srcStride int)

var (
	_ = minBlocksInt8Impls.add("neon", NEON, nil, minBlocksInt8NEON)
	_ = minBlocksUint8Impls.add("neon", NEON, nil, minBlocksUint8NEON)
	_ = minBlocksInt16Impls.add("neon", NEON, nil, minBlocksInt16NEON)
	_ = maxBlocksInt8Impls.add("neon", NEON, nil, maxBlocksInt8NEON)
	_ = maxBlocksUint8Impls.add("neon", NEON, nil, maxBlocksUint8NEON)
	_ = maxBlocksInt16Impls.add("neon", NEON, nil, maxBlocksInt16NEON)
)
