//go:build !purego

package arch

// The amd64 LookupBytes kernels: lookup_avx2_amd64.s, and
// lookup_avx512_amd64.s for CPUs with AVX-512 VBMI (Ice Lake, Zen 4 and
// newer), which takes any length.

// lookupBytesAVX2Asm handles len(src) a multiple of 64.
//
//go:noescape
func lookupBytesAVX2Asm(dst, src []byte, table *[256]byte)

// lookupBytesAVX2 runs the kernel on the multiple-of-64 prefix and the
// portable loop on the rest.
func lookupBytesAVX2(dst, src []byte, table *[256]byte) {
	n := len(src) &^ 63
	if n > 0 {
		lookupBytesAVX2Asm(dst[:n], src[:n], table)
	}
	if n < len(src) {
		lookupBytesGeneric(dst[n:len(src)], src[n:], table)
	}
}

//go:noescape
func lookupBytesVBMI(dst, src []byte, table *[256]byte)

var (
	_ = lookupBytesImpls.add("avx2", AVX2, nil, lookupBytesAVX2)
	_ = lookupBytesImpls.add("avx512vbmi", AVX512, []Feature{FeatAVX512VBMI}, lookupBytesVBMI)
)
