//go:build !purego

package arch

// The amd64 MaxBlocksF32 kernels (vecmax_avx2_amd64.s,
// vecmax_avx512_amd64.s), with the signature and contract of
// maxBlocksF32Generic (n or width 0 does nothing).

//go:noescape
func maxBlocksF32AVX2(dst, src []float32, n, width, dstStride, srcStride int)

//go:noescape
func maxBlocksF32AVX512(dst, src []float32, n, width, dstStride, srcStride int)

var (
	_ = maxBlocksF32Impls.add("avx2", AVX2, nil, maxBlocksF32AVX2)
	_ = maxBlocksF32Impls.add("avx512", AVX512, nil, maxBlocksF32AVX512)
)
