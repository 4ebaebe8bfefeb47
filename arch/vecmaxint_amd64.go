//go:build !purego

package arch

// The AVX2 MaxBlocksInt8/Uint8/Int16 and MinBlocksInt8/Uint8/Int16 kernels (vecmaxint_avx2_amd64.s),
// with the signature and contract of maxBlocksIntGeneric (n or width 0
// does nothing). The compare-and-select of a byte or a word is one
// instruction at any vector width, so there is no AVX-512 variant: the
// pools they serve are bound by loads.

//go:noescape
func maxBlocksInt8AVX2(dst, src []int8, n, width, dstStride, srcStride int)

//go:noescape
func maxBlocksUint8AVX2(dst, src []uint8, n, width, dstStride, srcStride int)

//go:noescape
func maxBlocksInt16AVX2(dst, src []int16, n, width, dstStride, srcStride int)

//go:noescape
func minBlocksInt8AVX2(dst, src []int8, n, width, dstStride, srcStride int)

//go:noescape
func minBlocksUint8AVX2(dst, src []uint8, n, width, dstStride, srcStride int)

//go:noescape
func minBlocksInt16AVX2(dst, src []int16, n, width, dstStride, srcStride int)

var (
	_ = minBlocksInt8Impls.add("avx2", AVX2, nil, minBlocksInt8AVX2)
	_ = minBlocksUint8Impls.add("avx2", AVX2, nil, minBlocksUint8AVX2)
	_ = minBlocksInt16Impls.add("avx2", AVX2, nil, minBlocksInt16AVX2)
	_ = maxBlocksInt8Impls.add("avx2", AVX2, nil, maxBlocksInt8AVX2)
	_ = maxBlocksUint8Impls.add("avx2", AVX2, nil, maxBlocksUint8AVX2)
	_ = maxBlocksInt16Impls.add("avx2", AVX2, nil, maxBlocksInt16AVX2)
)
