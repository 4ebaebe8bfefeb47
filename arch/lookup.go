package arch

// Byte table lookup: the 8-bit activations and requantisations that
// ops/builtin tabulates at Prepare (int8/uint8 LEAKY_RELU, LOGISTIC,
// TANH, ELU, …: every output byte a function of one input byte).
// Portable code in lookup_generic.go, assembly twins in
// lookup_avx2_amd64.s and lookup_neon_arm64.s.

var (
	lookupBytes      func(dst, src []byte, table *[256]byte)
	lookupBytesImpls = newImpls("LookupBytes", &lookupBytes, lookupBytesGeneric)
)

// LookupBytes sets dst[i] = table[src[i]] for i < len(src). dst must be
// at least as long as src and may be src itself (in place) but must not
// overlap it otherwise. Every implementation gives identical bytes (there
// is no arithmetic).
func LookupBytes(dst, src []byte, table *[256]byte) {
	_ = dst[:len(src)]
	lookupBytes(dst, src, table)
}
