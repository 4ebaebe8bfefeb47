package builtin

import (
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// castFast does the common CAST pairs with typed loops (and arch's
// widening of 8-bit integers to float32): integer → float32, float32 →
// integer and integer → integer, for the integer types int8, uint8,
// int16, uint16, int32, uint32 and int64. It gives the bits of the
// general castLoad/castStore path (rounding to nearest even into float32,
// truncation with saturation and NaN → the maximum out of float32,
// wrapping between integers) and reports false, having done nothing,
// for any other pair.
func castFast(in, out *ops.Tensor, from, to ops.DataType, n int) bool {
	if to == ops.Float32 {
		dst := out.Float32s()[:n]
		switch from {
		case ops.Uint8:
			arch.Uint8ToF32(dst, in.Data[:n], 0)
		case ops.Int8:
			arch.Int8ToF32(dst, in.Int8s()[:n], 0)
		case ops.Int16:
			intsToF32(dst, in.Int16s()[:n])
		case ops.Uint16:
			intsToF32(dst, in.Uint16s()[:n])
		case ops.Int32:
			intsToF32(dst, in.Int32s()[:n])
		case ops.Uint32:
			intsToF32(dst, in.Uint32s()[:n])
		case ops.Int64:
			intsToF32(dst, in.Int64s()[:n])
		default:
			return false
		}
		return true
	}
	if from == ops.Float32 {
		src := in.Float32s()[:n]
		switch to {
		case ops.Int8:
			f32ToInts(out.Int8s()[:n], src, math.MinInt8, math.MaxInt8)
		case ops.Uint8:
			f32ToInts(out.Data[:n], src, 0, math.MaxUint8)
		case ops.Int16:
			f32ToInts(out.Int16s()[:n], src, math.MinInt16, math.MaxInt16)
		case ops.Uint16:
			f32ToInts(out.Uint16s()[:n], src, 0, math.MaxUint16)
		case ops.Int32:
			f32ToInts(out.Int32s()[:n], src, math.MinInt32, math.MaxInt32)
		case ops.Uint32:
			f32ToInts(out.Uint32s()[:n], src, 0, math.MaxUint32)
		case ops.Int64:
			f32ToInts(out.Int64s()[:n], src, math.MinInt64, math.MaxInt64)
		default:
			return false
		}
		return true
	}
	switch from {
	case ops.Int8:
		return intsToInts(out, to, in.Int8s()[:n])
	case ops.Uint8:
		return intsToInts(out, to, in.Data[:n])
	case ops.Int16:
		return intsToInts(out, to, in.Int16s()[:n])
	case ops.Uint16:
		return intsToInts(out, to, in.Uint16s()[:n])
	case ops.Int32:
		return intsToInts(out, to, in.Int32s()[:n])
	case ops.Uint32:
		return intsToInts(out, to, in.Uint32s()[:n])
	case ops.Int64:
		return intsToInts(out, to, in.Int64s()[:n])
	}
	return false
}

// castInteger is the integer types castFast converts between.
type castInteger interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64
}

// intsToF32 sets dst[i] = float32(src[i]) (round to nearest even).
func intsToF32[S castInteger](dst []float32, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float32(v)
	}
}

// f32ToInts is castValue.asInt64's float32 case for a whole slice: NaN
// gives hi, values below lo give lo, values at or beyond hi+1 give hi,
// the rest truncate toward zero (exact in float64).
func f32ToInts[D castInteger](dst []D, src []float32, lo, hi int64) {
	dst = dst[:len(src)]
	flo, fhi := float64(lo), float64(hi)+1
	for i, x := range src {
		f := float64(x)
		var v int64
		switch {
		case f != f:
			v = hi
		case f < flo:
			v = lo
		case f >= fhi:
			v = hi
		default:
			v = int64(f)
		}
		dst[i] = D(v)
	}
}

// intsToInts converts between integer types with wrapping (the low bits
// of the two's complement value) and reports false for a non-integer to.
func intsToInts[S castInteger](out *ops.Tensor, to ops.DataType, src []S) bool {
	n := len(src)
	switch to {
	case ops.Int8:
		convertInts(out.Int8s()[:n], src)
	case ops.Uint8:
		convertInts(out.Data[:n], src)
	case ops.Int16:
		convertInts(out.Int16s()[:n], src)
	case ops.Uint16:
		convertInts(out.Uint16s()[:n], src)
	case ops.Int32:
		convertInts(out.Int32s()[:n], src)
	case ops.Uint32:
		convertInts(out.Uint32s()[:n], src)
	case ops.Int64:
		convertInts(out.Int64s()[:n], src)
	default:
		return false
	}
	return true
}

// convertInts sets dst[i] = D(src[i]).
func convertInts[D, S castInteger](dst []D, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(v)
	}
}
