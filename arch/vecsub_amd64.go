//go:build !purego

package arch

// The amd64 VecSub kernel (vecsub_avx2_amd64.s) does the first n
// elements (a multiple of 16); the wrapper leaves the rest to the
// portable code.

//go:noescape
func vecSubAVX2Asm(dst, a, b *float32, n int)

func vecSubAVX2(dst, a, b []float32) {
	n := len(dst) &^ 15
	if n > 0 {
		vecSubAVX2Asm(&dst[0], &a[0], &b[0], n)
	}
	vecSubGeneric(dst[n:], a[n:len(dst)], b[n:len(dst)])
}

var _ = vecSubImpls.add("avx2", AVX2, nil, vecSubAVX2)
