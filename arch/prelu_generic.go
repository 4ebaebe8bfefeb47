package arch

// Portable PReluF32 and LeakyReluF32: the references the assembly twins
// are tested against, and the implementations of -tags purego builds,
// 32-bit ARM (whose NEON would flush subnormal products to zero) and CPUs
// without AVX2.

// preluF32Generic is the portable PReluF32.
func preluF32Generic(dst, x, alpha []float32) {
	dst = dst[:len(x)]
	alpha = alpha[:len(x)]
	for i, v := range x {
		if !(v >= 0) {
			v *= alpha[i]
		}
		dst[i] = v
	}
}

// leakyReluF32Generic is the portable LeakyReluF32.
func leakyReluF32Generic(dst, x []float32, alpha float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		if !(v > 0) {
			v *= alpha
		}
		dst[i] = v
	}
}
