package arch

// HardSwishF32 sets dst[i] = x·min(6, max(0, x+3))·(1/6) for i < len(x),
// as TensorFlow Lite's float HARD_SWISH on x86 does (optimized_ops::
// HardSwish's scalar loop: the product rounded, then times the float32
// 1/6; std::max and std::min, so x+3 = NaN clamps to 0 and the result
// is NaN only through x). dst must be at least as long as x; dst and x
// may be the same slice but must not otherwise overlap.
func HardSwishF32(dst, x []float32) {
	dst = dst[:len(x)]
	hardSwish(dst, x)
}

// Function slot and registry entry of HardSwishF32.
var (
	hardSwish      func(dst, x []float32)
	hardSwishImpls = newImpls("HardSwishF32", &hardSwish, hardSwishGeneric)
)

// hardSwishSixth is the float32 1/6 TFLite multiplies by.
const hardSwishSixth = float32(1.0 / 6.0)

// hardSwishGeneric is the portable form.
func hardSwishGeneric(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		r := v + 3
		if !(0 < r) { // std::max(0.0f, r)
			r = 0
		}
		if !(r < 6) { // std::min(6.0f, r)
			r = 6
		}
		dst[i] = float32(v*r) * hardSwishSixth
	}
}
