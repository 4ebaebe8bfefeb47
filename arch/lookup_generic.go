package arch

// lookupBytesGeneric is the portable LookupBytes: the reference of the
// assembly twins and the implementation of -tags purego builds, 32-bit
// ARM and CPUs without AVX2; the assembly wrappers finish their last
// partial vector with it.
func lookupBytesGeneric(dst, src []byte, table *[256]byte) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = table[v]
	}
}
