//go:build !purego

package arch

// transposeBytes8AVXAsm is TransposeBytes8 (transposebytes_amd64.s) on
// checked arguments.
//
//go:noescape
func transposeBytes8AVXAsm(dst *byte, ldd int, src *byte, lds int, h, w int)

func transposeBytes8AVX2(dst []byte, ldd int, src []byte, lds int, h, w int) {
	transposeBytes8AVXAsm(&dst[0], ldd, &src[0], lds, h, w)
}

var _ = transposeBytes8Impls.add("avx2", AVX2, nil, transposeBytes8AVX2)
