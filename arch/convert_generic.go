package arch

// Portable widening conversion (Int8ToF32, Uint8ToF32): the reference
// the assembly twins are tested against, and the implementation of
// -tags purego builds and of CPUs without them.

// int8ToF32Generic is the portable Int8ToF32 / Uint8ToF32. The sum is
// formed in int32 and converted once, as the vector kernels do.
func int8ToF32Generic(dst []float32, src []byte, offset int32, unsigned bool) {
	dst = dst[:len(src)]
	if unsigned {
		for i, v := range src {
			dst[i] = float32(int32(v) + offset)
		}
		return
	}
	for i, v := range src {
		dst[i] = float32(int32(int8(v)) + offset)
	}
}
