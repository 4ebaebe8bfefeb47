//go:build !purego

package arch

// The arm64 VecSub kernel (vecsub_neon_arm64.s) does the first n
// elements (a multiple of 8, n > 0); the wrapper leaves the rest to the
// portable code.

//go:noescape
func vecSubNEONAsm(dst, a, b *float32, n int)

func vecSubNEON(dst, a, b []float32) {
	n := len(dst) &^ 7
	if n > 0 {
		vecSubNEONAsm(&dst[0], &a[0], &b[0], n)
	}
	vecSubGeneric(dst[n:], a[n:len(dst)], b[n:len(dst)])
}

var _ = vecSubImpls.add("neon", NEON, nil, vecSubNEON)
