package arch

// Float clamping: the fused activation of float kernels (FULLY_CONNECTED
// and others clamp every output to the activation's range, [-FLT_MAX,
// FLT_MAX] without one).

var (
	vecClamp      func(v []float32, lo, hi float32)
	vecClampImpls = newImpls("VecClamp", &vecClamp, vecClampGeneric)
)

// VecClamp sets v[i] = min(max(v[i], lo), hi) in place with C++'s
// std::max/std::min semantics, as TFLite's ActivationFunctionWithMinMax:
// v[i] < lo gives lo, then a value > hi gives hi; everything else is kept
// bit for bit, so NaN passes through and -0 stays -0 at a bound of 0. Every
// implementation gives identical bits (the x86 MAXPS/MINPS return their
// second operand when either is NaN or both are zeros, which is where v[i]
// goes).
func VecClamp(v []float32, lo, hi float32) {
	vecClamp(v, lo, hi)
}
