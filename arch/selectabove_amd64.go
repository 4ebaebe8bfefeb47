//go:build !purego

package arch

// The amd64 SelectAboveF32 kernels (selectabove_avx2_amd64.s,
// selectabove_avx512_amd64.s), one per comparison; SelectAboveF32 has
// checked that dst is not empty.

//go:noescape
func selectGTAVX2(dst []int32, x []float32, th float32) (n, next int)

//go:noescape
func selectGEAVX2(dst []int32, x []float32, th float32) (n, next int)

//go:noescape
func selectGTAVX512(dst []int32, x []float32, th float32) (n, next int)

//go:noescape
func selectGEAVX512(dst []int32, x []float32, th float32) (n, next int)

func selectAboveF32AVX2(dst []int32, x []float32, th float32, orEqual bool) (n, next int) {
	if orEqual {
		return selectGEAVX2(dst, x, th)
	}
	return selectGTAVX2(dst, x, th)
}

func selectAboveF32AVX512(dst []int32, x []float32, th float32, orEqual bool) (n, next int) {
	if orEqual {
		return selectGEAVX512(dst, x, th)
	}
	return selectGTAVX512(dst, x, th)
}

var (
	_ = selectAboveF32Impls.add("avx2", AVX2, nil, selectAboveF32AVX2)
	_ = selectAboveF32Impls.add("avx512", AVX512, nil, selectAboveF32AVX512)
)
