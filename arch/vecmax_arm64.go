//go:build !purego

package arch

// The arm64 MaxBlocksF32 kernel (vecmax_neon_arm64.s), with the signature
// and contract of maxBlocksF32Generic (n or width 0 does nothing),
// registered at the neon level (ASIMD is part of every arm64 CPU).

//go:noescape
func maxBlocksF32NEON(dst, src []float32, n, width, dstStride, srcStride int)

var _ = maxBlocksF32Impls.add("neon", NEON, nil, maxBlocksF32NEON)
