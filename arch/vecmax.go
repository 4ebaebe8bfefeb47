package arch

// Float elementwise maximum: the window maximum of float MAX_POOL_2D.

var (
	maxBlocksF32      func(dst, src []float32, n, width, dstStride, srcStride int)
	maxBlocksF32Impls = newImpls("MaxBlocksF32", &maxBlocksF32, maxBlocksF32Generic)
)

// VecMaxF32 sets dst[i] = src[i] where dst[i] < src[i], for i < len(src);
// dst must be at least as long as src and must not overlap it. This is
// std::max(dst[i], src[i]) as TFLite's pooling.cc MaxEval (reference_ops
// MaxPool) takes it: a NaN in src never replaces dst[i], a NaN in dst[i]
// is never replaced, and of two zeros dst[i] keeps its own sign; every
// value not replaced keeps its bits. Every implementation gives identical
// bits (x86 MAXPS with src as the first and dst as the second operand
// returns its second operand for NaN or two zeros; NEON compares with
// FCMGT and selects bits with BIT). It panics if dst is shorter than src.
func VecMaxF32(dst, src []float32) {
	if len(src) == 0 {
		return
	}
	_ = dst[len(src)-1]
	maxBlocksF32(dst, src, 1, len(src), 0, 0)
}

// MaxBlocksF32 applies VecMaxF32 to n blocks of width values:
// dst[k*dstStride+c] = src[k*srcStride+c] where the former is less, for
// k < n and c < width, blocks in order of k. It is one window tap of a
// whole output row of float MAX_POOL_2D (width = channels, dstStride =
// channels, srcStride = stride·channels), which turns a call per pixel
// and tap into a call per row and tap. The semantics and exactness are
// those of VecMaxF32. Blocks of dst must not overlap one another
// (dstStride ≥ width unless n = 1) nor any block of src. It panics if n,
// width or a stride is negative, if dst blocks overlap, or if a slice is
// shorter than the last block.
func MaxBlocksF32(dst, src []float32, n, width, dstStride, srcStride int) {
	if n < 0 || width < 0 || dstStride < 0 || srcStride < 0 {
		panic("arch.MaxBlocksF32: negative size or stride")
	}
	if n == 0 || width == 0 {
		return
	}
	if n > 1 && dstStride < width {
		panic("arch.MaxBlocksF32: destination blocks overlap")
	}
	_ = dst[(n-1)*dstStride+width-1]
	_ = src[(n-1)*srcStride+width-1]
	maxBlocksF32(dst, src, n, width, dstStride, srcStride)
}
