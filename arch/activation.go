package arch

// Float32 activations: the vector logistic and tanh of the LSTM and RNN
// gates. Portable code in activation_generic.go, assembly twins in
// activation_{avx2,avx512}_amd64.s and activation_neon_arm64.s.

var (
	sigmoid func(dst, x []float32)
	tanh    func(dst, x []float32)

	sigmoidImpls = newImpls("Sigmoid", &sigmoid, sigmoidGeneric)
	tanhImpls    = newImpls("Tanh", &tanh, tanhGeneric)
)

// Sigmoid sets dst[i] = 1/(1+e^(-x[i])) for i < len(x); dst must be at
// least as long as x and may be x itself (in place) but must not overlap
// it otherwise. It is the float logistic of the LSTM gates.
//
// Accuracy, measured over all 2^32 float32 bit patterns against float64
// math (TFLRUN_EXHAUSTIVE=1 go test ./arch -run TestSigmoidTanhAccuracy):
// the maximum absolute error is 8.93e-8, at x = 7.859211, for the portable,
// AVX2 and AVX-512 versions alike. Inputs below -88 (and -Inf) give
// 6.05e-39 instead of the exact, smaller value; +Inf gives 1, NaN NaN.
// 32-bit ARM NEON has no divide and flushes subnormals to zero
// (activation_arm.go): on the test's dense grid under qemu-arm its
// maximum is 1.69e-7, at x = 3.463897, and inputs below -87 give 0.
func Sigmoid(dst, x []float32) {
	_ = dst[:len(x)]
	sigmoid(dst, x)
}

// Tanh sets dst[i] = tanh(x[i]) for i < len(x), with the aliasing rules
// of Sigmoid. It is odd bit for bit (tanh(-0) = -0).
//
// Accuracy, measured over all 2^32 float32 bit patterns against float64
// math (as for Sigmoid): the maximum absolute error is 7.93e-8, at
// x = 0.62830955 (just above the switch from the odd polynomial to the
// exponential form), for the portable, AVX2 and AVX-512 versions alike.
// NaN gives NaN, ±Inf give ±1. 32-bit ARM NEON (see Sigmoid): 1.08e-7,
// at x = 0.6776846, on the test's grid under qemu-arm.
func Tanh(dst, x []float32) {
	_ = dst[:len(x)]
	tanh(dst, x)
}
