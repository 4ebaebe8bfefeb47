//go:build !purego

package arch

// The arm64 LookupBytes kernel (lookup_neon_arm64.s), registered at the
// neon level.

// lookupBytesNEONAsm handles len(src) a multiple of 32.
//
//go:noescape
func lookupBytesNEONAsm(dst, src []byte, table *[256]byte)

// lookupBytesNEON runs the kernel on the multiple-of-32 prefix and the
// portable loop on the rest.
func lookupBytesNEON(dst, src []byte, table *[256]byte) {
	n := len(src) &^ 31
	if n > 0 {
		lookupBytesNEONAsm(dst[:n], src[:n], table)
	}
	if n < len(src) {
		lookupBytesGeneric(dst[n:len(src)], src[n:], table)
	}
}

var _ = lookupBytesImpls.add("neon", NEON, nil, lookupBytesNEON)
