//go:build !purego

package arch

// The amd64 widening conversions (convert_avx2_amd64.s,
// convert_avx512_amd64.s).

//go:noescape
func int8ToF32AVX512(dst *float32, src *byte, n int, offset int32, unsigned bool)

//go:noescape
func int8ToF32AVX2Asm(dst *float32, src *byte, n int, offset int32, unsigned bool)

func int8ToF32AVX512Go(dst []float32, src []byte, offset int32, unsigned bool) {
	if len(src) > 0 {
		int8ToF32AVX512(&dst[0], &src[0], len(src), offset, unsigned)
	}
}

func int8ToF32AVX2(dst []float32, src []byte, offset int32, unsigned bool) {
	n := len(src) &^ 7
	if n > 0 {
		int8ToF32AVX2Asm(&dst[0], &src[0], n, offset, unsigned)
	}
	int8ToF32Generic(dst[n:len(src)], src[n:], offset, unsigned)
}

var (
	_ = int8ToF32Impls.add("avx2", AVX2, nil, int8ToF32AVX2)
	_ = int8ToF32Impls.add("avx512", AVX512, nil, int8ToF32AVX512Go)
)
