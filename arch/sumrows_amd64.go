//go:build !purego

package arch

// The amd64 SumRowsF32 kernels (sumrows_avx2_amd64.s,
// sumrows_avx512_amd64.s), with the signature and contract of
// sumRowsF32Generic (rows and cols > 0).

//go:noescape
func sumRowsF32AVX2(acc, in []float32, rows, cols int)

//go:noescape
func sumRowsF32AVX512(acc, in []float32, rows, cols int)

var (
	_ = sumRowsF32Impls.add("avx2", AVX2, nil, sumRowsF32AVX2)
	_ = sumRowsF32Impls.add("avx512", AVX512, nil, sumRowsF32AVX512)
)

// sumRowsInt8AVX512 sums the first cols&^15 columns (sumrows_avx512_amd64.s)
// and returns that count; SumRowsInt8 does the rest in Go.
//
//go:noescape
func sumRowsInt8AVX512(acc []int32, in []int8, rows, cols int) int

var _ = sumRowsInt8Impls.add("avx512", AVX512, nil, sumRowsInt8AVX512)
