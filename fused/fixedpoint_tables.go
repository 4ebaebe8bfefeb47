package fused

// LogisticQ3Table returns gemmlowp's logistic on FixedPoint<int16, 3>
// tabulated over every raw int16 input (index: the input as uint16): Q3.12
// in, Q0.15 out, the values TFLite's int16 LOGISTIC computes on x86 for an
// input scale of exactly 2^-12 (optimized_ops::Logistic, scalar gemmlowp:
// the build enables no SSE4 fixed point). Built once on first use; callers
// must not modify it.
func LogisticQ3Table() *[1 << 16]int16 { return sigmoidQ3Table() }

// TanhTable returns gemmlowp's tanh on FixedPoint<int16, intBits>
// tabulated over every raw int16 input (index: the input as uint16):
// Q intBits.(15-intBits) in, Q0.15 out, for intBits 0..6 (nil otherwise).
// Built once on first use; callers must not modify it.
func TanhTable(intBits int) *[1 << 16]int16 {
	if intBits < 0 || intBits >= len(tanhTables) {
		return nil
	}
	return tanhTables[intBits]()
}
