package arch

// Float PReLU and leaky ReLU: the kernels of TFLite's float PRELU and
// LEAKY_RELU operators. Portable code in prelu_generic.go, assembly twins
// in prelu_avx2_amd64.s and prelu_neon_arm64.s.

var (
	preluF32          func(dst, x, alpha []float32)
	leakyReluF32      func(dst, x []float32, alpha float32)
	preluF32Impls     = newImpls("PReluF32", &preluF32, preluF32Generic)
	leakyReluF32Impls = newImpls("LeakyReluF32", &leakyReluF32, leakyReluF32Generic)
)

// PReluF32 sets dst[i] = x[i] if x[i] >= 0, else x[i]·alpha[i], for
// i < len(x): TFLite's float PRELU (reference_ops::BroadcastPrelu4DSlow
// with alpha already broadcast to x's shape). -0 and +0 pass through
// unchanged (they are >= 0); NaN gives the product, so a NaN x stays NaN
// (its payload, quieted). dst and alpha must be at least as long as x;
// dst may be x or alpha (in place) but must not overlap them otherwise.
// Every implementation gives identical bits: the only arithmetic is one
// float32 multiply.
func PReluF32(dst, x, alpha []float32) {
	_ = dst[:len(x)]
	_ = alpha[:len(x)]
	preluF32(dst, x, alpha)
}

// LeakyReluF32 sets dst[i] = x[i] if x[i] > 0, else x[i]·alpha, for
// i < len(x): TFLite's float LEAKY_RELU (reference_ops::LeakyRelu). A zero
// of either sign and NaN take the product (so -0 with a positive alpha
// stays -0). The aliasing rules and the identical bits are those of
// PReluF32.
func LeakyReluF32(dst, x []float32, alpha float32) {
	_ = dst[:len(x)]
	leakyReluF32(dst, x, alpha)
}
