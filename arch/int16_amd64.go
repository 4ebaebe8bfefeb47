//go:build !purego

package arch

// The amd64 int16 row dot products (int16_avx2_amd64.s,
// int16_avx512_amd64.s), with the signature and contract of
// dotRowsInt16Generic; DotRowsInt16 has checked the sizes (rows, cols ≥
// 1, slices long enough).

//go:noescape
func dotRowsInt16AVX2(dst []int32, a, b []int16, rows, cols int)

//go:noescape
func dotRowsInt16AVX512(dst []int32, a, b []int16, rows, cols int)

// rowSumIdx gathers dwords 0, 4, 8 and 12 (one per 128-bit lane) to the
// bottom of a ZMM register (VPERMD indices; the rest are unused).
var rowSumIdx = [16]int32{0, 4, 8, 12}

var (
	_ = dotRowsInt16Impls.add("avx2", AVX2, nil, dotRowsInt16AVX2)
	_ = dotRowsInt16Impls.add("avx512", AVX512, nil, dotRowsInt16AVX512)
)
