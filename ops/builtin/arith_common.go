package builtin

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// arithBase is the state ADD, SUB and MUL share: the fused activation,
// the broadcast plan, the element type, and the activation bounds of the
// float32 path and of the wrapping int32 and int64 paths (TFLite's
// CalculateActivationRange over the type's full range). Each operator
// embeds it and keeps its own quantised parameters, which differ (ADD and
// SUB rescale both inputs to a common scale, MUL rescales the product).
type arithBase struct {
	act        ops.Activation
	bc         broadcast
	typ        ops.DataType
	fMin, fMax float32
	iMin, iMax int64
}

// prepare is the part of Prepare the three operators share: it checks the
// fused activation act, the two inputs and the output and their broadcast
// shape (binaryInputs), and records act, the type and the float32, int32
// and int64 activation bounds. The caller goes on with the quantised types
// (and rejects unsupported ones).
func (k *arithBase) prepare(n *ops.Node, act ops.Activation) (a, b, out *ops.Tensor, err error) {
	if err := checkActivation(act); err != nil {
		return nil, nil, nil, fmt.Errorf("options: %v", err)
	}
	k.act = act
	if a, b, out, err = binaryInputs(n, &k.bc); err != nil {
		return nil, nil, nil, err
	}
	k.typ = a.Type
	k.fMin, k.fMax = ActivationRangeFloat(act)
	switch a.Type {
	case ops.Int32:
		k.iMin, k.iMax = activationRangeInt(act, math.MinInt32, math.MaxInt32)
	case ops.Int64:
		k.iMin, k.iMax = activationRangeInt(act, math.MinInt64, math.MaxInt64)
	}
	return a, b, out, nil
}

// indexOfZero returns the index of the first zero in v, or −1.
func indexOfZero[T float32 | int8 | int16 | int32 | int64](v []T) int {
	for i, x := range v {
		if x == 0 {
			return i
		}
	}
	return -1
}

// halfActivationRange is TFLite's CalculateActivationRange<Eigen::half>:
// the fused activation's bounds, the whole finite half range (±65504)
// for NONE, as float32 values (each exactly a half).
func halfActivationRange(a ops.Activation) (lo, hi float32) {
	switch a {
	case ops.ActRelu:
		return 0, 65504
	case ops.ActRelu6:
		return 0, 6
	case ops.ActReluN1To1:
		return -1, 1
	}
	return -65504, 65504
}

// halfArith is one element of TFLite's float16 ADD or MUL: Eigen's half
// arithmetic widens both operands to float32, computes r (given here) and
// rounds it to half; ActivationFunctionWithMinMax then clamps with
// std::max and std::min in half, so a NaN stays NaN and ±Inf become the
// bounds.
func halfArith(r, lo, hi float32) uint16 {
	h := float32ToHalf(r)
	v := halfToFloat32(h)
	switch {
	case v < lo:
		return float32ToHalf(lo)
	case hi < v:
		return float32ToHalf(hi)
	}
	return h
}
