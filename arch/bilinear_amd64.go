//go:build !purego

package arch

// The amd64 BilinearF32 kernel (bilinear_avx2_amd64.s), with the
// signature and contract of bilinearF32Generic (any length, including 0).

//go:noescape
func bilinearF32AVX2(dst, p00, p01, p10, p11 []float32, w *[4]float32)

var _ = bilinearF32Impls.add("avx2", AVX2, nil, bilinearF32AVX2)

// The amd64 BilinearU8 kernels (bilinear_u8_avx2_amd64.s,
// bilinear_u8_avx512_amd64.s), with the signature and contract of
// bilinearU8Generic (any length, including 0; AVX-512 from 16, AVX2
// below).

//go:noescape
func bilinearU8AVX2(dst, p00, p01, p10, p11 []byte, w *[4]float32)

// bilinearU8AVX512Asm needs len(dst) >= 16.
//
//go:noescape
func bilinearU8AVX512Asm(dst, p00, p01, p10, p11 []byte, w *[4]float32)

func bilinearU8AVX512(dst, p00, p01, p10, p11 []byte, w *[4]float32) {
	if len(dst) < 16 {
		bilinearU8AVX2(dst, p00, p01, p10, p11, w)
		return
	}
	bilinearU8AVX512Asm(dst, p00, p01, p10, p11, w)
}

var (
	_ = bilinearU8Impls.add("avx2", AVX2, nil, bilinearU8AVX2)
	_ = bilinearU8Impls.add("avx512", AVX512, nil, bilinearU8AVX512)
)

// bilinearRowU8AVX2Asm and bilinearRowU8AVX512Asm are BilinearRowU8 for
// n >= 1 columns of d >= 8 (AVX2) or d >= 16 (AVX-512) channels; the
// wrappers leave smaller depths to the portable code (AVX2 from 8 at the
// AVX-512 level).
//
//go:noescape
func bilinearRowU8AVX2Asm(dst, row0, row1 *byte, off *int32, fx *float32, n, d int, fy float32)

//go:noescape
func bilinearRowU8AVX512Asm(dst, row0, row1 *byte, off *int32, fx *float32, n, d int, fy float32)

func bilinearRowU8AVX2(dst, row0, row1 []byte, t *BilinearTaps, fy float32) {
	if t.depth < 8 || len(t.fx) == 0 {
		bilinearRowU8Generic(dst, row0, row1, t, fy)
		return
	}
	bilinearRowU8AVX2Asm(&dst[0], &row0[0], &row1[0], &t.off[0], &t.fx[0], len(t.fx), t.depth, fy)
}

func bilinearRowU8AVX512(dst, row0, row1 []byte, t *BilinearTaps, fy float32) {
	if t.depth < 16 {
		bilinearRowU8AVX2(dst, row0, row1, t, fy)
		return
	}
	bilinearRowU8AVX512Asm(&dst[0], &row0[0], &row1[0], &t.off[0], &t.fx[0], len(t.fx), t.depth, fy)
}

var (
	_ = bilinearRowU8Impls.add("avx2", AVX2, nil, bilinearRowU8AVX2)
	_ = bilinearRowU8Impls.add("avx512", AVX512, nil, bilinearRowU8AVX512)
)

// bilinearRowF32AVX512Asm is BilinearRowF32 for n >= 1 columns of any
// depth d >= 1 (bilinear_f32_avx512_amd64.s).
//
//go:noescape
func bilinearRowF32AVX512Asm(dst, row0, row1 *float32, off *int32, fx *float32, n, d int, fy float32)

// bilinearRowF32AVX2 has no row kernel: bilinearF32AVX2 per column from
// eight channels (below, the call costs more than its vectors save).
func bilinearRowF32AVX2(dst, row0, row1 []float32, t *BilinearTaps, fy float32) {
	d := t.depth
	if d < 8 {
		bilinearRowF32Generic(dst, row0, row1, t, fy)
		return
	}
	for x, fx := range t.fx {
		w := bilinearWeights(fx, fy)
		lo, hi := int(t.off[2*x]), int(t.off[2*x+1])
		bilinearF32AVX2(dst[x*d:x*d+d], row0[lo:], row0[hi:], row1[lo:], row1[hi:], &w)
	}
}

func bilinearRowF32AVX512(dst, row0, row1 []float32, t *BilinearTaps, fy float32) {
	bilinearRowF32AVX512Asm(&dst[0], &row0[0], &row1[0], &t.off[0], &t.fx[0], len(t.fx), t.depth, fy)
}

var (
	_ = bilinearRowF32Impls.add("avx2", AVX2, nil, bilinearRowF32AVX2)
	_ = bilinearRowF32Impls.add("avx512", AVX512, nil, bilinearRowF32AVX512)
)
