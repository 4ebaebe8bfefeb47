package arch

// Repeating values: the input of a depthwise convolution with a depth
// multiplier above 1, each input channel repeated once per output
// channel it feeds.

var (
	repeatF32      func(dst, src []float32, mult int)
	repeatF32Impls = newImpls("RepeatF32", &repeatF32, repeatF32Generic)
)

// RepeatF32 sets dst[i·mult+j] = src[i] for i < len(src) and j < mult:
// every value repeated mult times, bits unchanged (NaN payloads
// included). dst must hold len(src)·mult values. src may be the tail of
// dst (src = dst[len(dst)-len(src):], with len(dst) = len(src)·mult), so
// that a conversion into that tail can be repeated in place: values are
// read in order, each before the block it fills is written, and no block
// reaches a value not read yet. Otherwise the slices must not overlap.
// It panics if mult < 1 or dst is too short.
func RepeatF32(dst, src []float32, mult int) {
	if mult < 1 {
		panic("arch.RepeatF32: multiplier below 1")
	}
	if len(src) == 0 {
		return
	}
	_ = dst[len(src)*mult-1]
	if mult == 1 {
		copy(dst, src)
		return
	}
	repeatF32(dst, src, mult)
}

// repeatF32Generic is the portable RepeatF32 (mult > 1): the reference
// the assembly twins are tested against, and the implementation of
// -tags purego builds and CPUs without them.
func repeatF32Generic(dst, src []float32, mult int) {
	for i := range src {
		v := src[i]
		d := dst[i*mult : (i+1)*mult]
		for j := range d {
			d[j] = v
		}
	}
}
