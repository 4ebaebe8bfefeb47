package builtin

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// This file implements the fused-activation ranges every arithmetic kernel
// clamps its output to, with TFLite's semantics (kernel_util.h
// CalculateActivationRange and kernel_util.cc
// CalculateActivationRangeQuantized).

// checkActivation rejects values outside TFLite's ActivationFunctionType
// enum, which would otherwise be read as "no activation".
func checkActivation(a ops.Activation) error {
	if a < ops.ActNone || a > ops.ActSignBit {
		return fmt.Errorf("fused activation %s is not a valid ActivationFunctionType", a)
	}
	return nil
}

// ActivationRangeFloat returns the float32 clamp bounds of a fused
// activation: RELU [0, +max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1], and the
// full float range for NONE. Like TFLite's CalculateActivationRange, TANH
// and SIGN_BIT give the full range (the kernels that support them apply
// them separately).
func ActivationRangeFloat(a ops.Activation) (lo, hi float32) {
	switch a {
	case ops.ActRelu:
		return 0, math.MaxFloat32
	case ops.ActRelu6:
		return 0, 6
	case ops.ActReluN1To1:
		return -1, 1
	}
	return -math.MaxFloat32, math.MaxFloat32
}

// activationRangeInt returns the clamp bounds of a fused activation for a
// non-quantised integer type whose range is [typeMin, typeMax] (TFLite's
// CalculateActivationRange<int32_t/int64_t/int16_t>).
func activationRangeInt(a ops.Activation, typeMin, typeMax int64) (lo, hi int64) {
	switch a {
	case ops.ActRelu:
		return 0, typeMax
	case ops.ActRelu6:
		return 0, 6
	case ops.ActReluN1To1:
		return -1, 1
	}
	return typeMin, typeMax
}

// ActivationRangeQuantized returns the quantised clamp bounds of a fused
// activation for the output tensor out (int8, uint8 or int16): the real
// bounds 0, 6, -1, 1 quantised with out's scale and zero point as
// zp + round(f/scale) in float32 arithmetic, intersected with the type's
// range. NONE (and TANH/SIGN_BIT, which TFLite treats the same way here)
// give the whole type range. It returns an error when out has no usable
// quantisation, its type is not a quantised integer type, or a bound
// overflows int32. Matches TFLite's CalculateActivationRangeQuantized.
func ActivationRangeQuantized(a ops.Activation, out *ops.Tensor) (lo, hi int32, err error) {
	var qmin, qmax int32
	switch out.Type {
	case ops.Uint8:
		qmin, qmax = 0, math.MaxUint8
	case ops.Int8:
		qmin, qmax = math.MinInt8, math.MaxInt8
	case ops.Int16:
		qmin, qmax = math.MinInt16, math.MaxInt16
	default:
		return 0, 0, fmt.Errorf("output: quantized activation range needs an int8, uint8 or int16 output, have %s", out.Type)
	}
	scale, zp, err := perTensorQuant(out, "output 0")
	if err != nil {
		return 0, 0, err
	}
	quantize := func(f float32) (int32, error) {
		t := roundf(f / scale)
		if !(t >= -2147483648 && t <= 2147483647) {
			return 0, fmt.Errorf("output 0: activation bound %g overflows int32 at scale %g", f, scale)
		}
		return zp + int32(t), nil
	}
	lo, hi = qmin, qmax
	switch a {
	case ops.ActRelu, ops.ActRelu6, ops.ActReluN1To1:
		var lower, upper float32 = 0, 6
		if a == ops.ActReluN1To1 {
			lower, upper = -1, 1
		}
		q, err := quantize(lower)
		if err != nil {
			return 0, 0, err
		}
		lo = max(qmin, q)
		if a != ops.ActRelu {
			q, err = quantize(upper)
			if err != nil {
				return 0, 0, err
			}
			hi = min(qmax, q)
		}
	}
	return lo, hi, nil
}

// clampF32 limits x to [lo, hi] in the order TFLite's
// ActivationFunctionWithMinMax does (max first, then min), which matters
// only for NaN: a NaN input stays NaN.
func clampF32(x, lo, hi float32) float32 {
	if x < lo {
		x = lo
	}
	if x > hi {
		x = hi
	}
	return x
}

// clampRowF32 clamps every element of v to [lo, hi] as clampF32 does,
// without branches. The common RELU bounds [0, FLT_MAX] take an integer
// form on the float bits (two conditional moves per element, exact:
// negative non-zero numbers become +0, -0 and NaN pass, +Inf becomes
// FLT_MAX); other bounds use the min/max builtins, which differ from
// clampF32 only in giving +0 for a -0 clamped at a lower bound of 0.
func clampRowF32(v []float32, lo, hi float32) {
	if lo == 0 && hi == math.MaxFloat32 && !math.Signbit(float64(lo)) {
		reluRowF32(v)
		return
	}
	for i, x := range v {
		v[i] = min(max(x, lo), hi)
	}
}

// reluRowF32 is clampRowF32 with bounds [0, FLT_MAX], on the bit patterns:
// b − 0x80000001 < 0x7F800000 exactly when b is a negative number other
// than -0 and NaN (x < 0), and 0x7F800000 is +Inf.
func reluRowF32(v []float32) {
	u := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
	for i, b := range u {
		if b-0x80000001 < 0x7F800000 {
			b = 0
		}
		if b == 0x7F800000 {
			b = 0x7F7FFFFF
		}
		u[i] = b
	}
}
