package arch

import "unsafe"

// Widening conversions of quantised data to float32, the first step of
// integer kernels that compute in float32 exactly (the depthwise
// convolution of integer models, see DepthwiseConvF32Int32).

var (
	int8ToF32      func(dst []float32, src []byte, offset int32, unsigned bool)
	int8ToF32Impls = newImpls("Int8ToF32", &int8ToF32, int8ToF32Generic)
)

// Int8ToF32 sets dst[i] = float32(int32(src[i]) + offset) for i <
// len(src): the int8 values with an offset added (an input zero point's
// negation), exact for every int8 value and |offset| < 2^24. dst must be
// at least as long as src. Every implementation gives the same bits.
func Int8ToF32(dst []float32, src []int8, offset int32) {
	_ = dst[:len(src)]
	int8ToF32(dst, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), len(src)), offset, false)
}

// Uint8ToF32 is Int8ToF32 for uint8 values.
func Uint8ToF32(dst []float32, src []uint8, offset int32) {
	_ = dst[:len(src)]
	int8ToF32(dst, src, offset, true)
}
