package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Cast is the kernel of TFLite's CAST operator: output 0 holds input 0's
// values converted to the output tensor's type, same shape. The types come
// from the tensors (CastOptions are informational, as in TFLite).
//
// Supported input types: bool, int8, uint8, int16, uint16, int32, uint32,
// int64, float16, bfloat16, float32, float64, complex64, float8_e4m3fn,
// float8_e5m2, and (with the pairs below) int4, uint4, int2. Output
// types: the same. Conversions follow
// TFLite's cast.cc, i.e. C++ static_cast except where noted:
//
//   - integer → integer wraps modulo 2^bits (two's complement truncation);
//   - anything → bool is value != 0 (NaN → true); bool → number is 0 or 1;
//   - floating → integer truncates toward zero and saturates: NaN gives
//     the type's maximum, values beyond the range its minimum or maximum
//     (TFLite's SaturatingCastFloatingToInteger); float16 and bfloat16 go
//     through float32 first;
//   - integer → floating rounds to nearest even; float64 → float32 rounds;
//   - → float16 / bfloat16: via float32, rounding to nearest even (NaN stays
//     a quiet NaN);
//   - complex64 → real types uses the real part; real → complex64 has a
//     zero imaginary part.
//   - float8_e4m3fn / float8_e5m2 (version 9): other types convert to
//     float32 first (complex64 its real part) and then to float8 as
//     ml_dtypes does (round to nearest even; beyond the largest finite
//     value e4m3fn gives NaN, e5m2 infinity); float8 converts exactly to
//     float32 and from there as a float32 input. TFLite compiles these
//     paths only into builds with TFLITE_ENABLE_EXTRA_REFERENCE_KERNELS
//     (other builds refuse float8 at Eval).
//   - packed int4, uint4 and int2 (version 8 adds uint4 and int2) convert
//     to float32 (and to float8), elements unpacked low bits first; float32
//     converts to them by clamping to the type's range ([-8, 7], [0, 15],
//     [-2, 1]; NaN gives the maximum) then truncating toward zero, as
//     castFloatToInt4 and its siblings. TFLite has no other pairs with
//     these types.
//
// String tensors are not supported.
type Cast struct {
	in, out ops.DataType
	n       int
}

// NewCast returns a CAST kernel for one node.
func NewCast() ops.Kernel { return &Cast{} }

// CastOptions is TFLite's CastOptions. TFLite's kernel reads the types
// from the tensors; the options are informational.
type CastOptions struct {
	InDataType, OutDataType ops.DataType
}

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpCast, NewCast, [2]int{1, 9})
	registerOptions(schema.BuiltinOptionsCastOptions, decodeCastOptions)
}

// decodeCastOptions decodes TFLite's CastOptions table.
func decodeCastOptions(t ops.OptionsTable) (any, error) {
	var o schema.CastOptions
	initTable(&o, t)
	return &CastOptions{InDataType: ops.DataType(o.InDataType()), OutDataType: ops.DataType(o.OutDataType())}, nil
}

var castTypes = []ops.DataType{ops.Bool, ops.Int8, ops.Uint8, ops.Int16, ops.Uint16, ops.Int32, ops.Uint32, ops.Int64, ops.Float16, ops.BFloat16, ops.Float32, ops.Float64, ops.Complex64, ops.Float8E4M3FN, ops.Float8E5M2}

// Prepare validates the types and gives the output the input's shape.
func (k *Cast) Prepare(n *ops.Node) error {
	*k = Cast{}
	if o, ok := n.Options.(*CastOptions); !ok && n.Options != nil || ok && o == nil {
		return fmt.Errorf("options: have %T, need *CastOptions", n.Options)
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	switch {
	case in.Type.PackedBits() != 0:
		if err := requireType(out, "output 0 (of a "+in.Type.String()+" input)", ops.Float32, ops.Float8E4M3FN, ops.Float8E5M2); err != nil {
			return err
		}
	case out.Type.PackedBits() != 0:
		if err := requireType(in, "input 0 (to a "+out.Type.String()+" output)", ops.Float32); err != nil {
			return err
		}
	default:
		if err := requireType(in, "input 0", castTypes...); err != nil {
			return err
		}
		if err := requireType(out, "output 0", castTypes...); err != nil {
			return err
		}
	}
	if k.n, err = numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	k.in, k.out = in.Type, out.Type
	out.Shape = copyShape(in.Shape)
	return nil
}

// castValue is one element in a canonical form: an exact integer, a
// floating value (with the precision it came from) or a bool.
type castValue struct {
	kind uint8 // castInt, castUint, castF32, castF64, castBool
	i    int64
	u    uint64
	f    float64
	b    bool
}

const (
	castInt = iota
	castUint
	castF32
	castF64
	castBool
)

// Eval converts every element.
func (k *Cast) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("CAST: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.in == k.out {
		copy(out.Data[:out.Bytes()], in.Data)
		return nil
	}
	if k.out.PackedBits() != 0 {
		// castFloatToInt4/Int2/Uint4: std::max(lo, std::min(hi, x)),
		// then static_cast<int8_t>.
		lo, hi := packedRange(k.out)
		for i, x := range in.Float32s()[:k.n] {
			c := float32(hi)
			if x < c {
				c = x
			}
			if !(float32(lo) < c) {
				c = float32(lo)
			}
			storePacked(k.out, out.Data, i, int32(c))
		}
		clearPackedTail(k.out, out.Data, k.n)
		return nil
	}
	if castFast(in, out, k.in, k.out, k.n) {
		return nil
	}
	for i := 0; i < k.n; i++ {
		castStore(out, k.out, i, castLoad(in, k.in, i))
	}
	return nil
}

func castLoad(t *ops.Tensor, typ ops.DataType, i int) castValue {
	switch typ {
	case ops.Int4, ops.Uint4, ops.Int2:
		return castValue{kind: castInt, i: int64(loadPacked(typ, t.Data, i))}
	case ops.Float8E4M3FN:
		return castValue{kind: castF32, f: float64(float8E4M3FN.toFloat32(t.Data[i]))}
	case ops.Float8E5M2:
		return castValue{kind: castF32, f: float64(float8E5M2.toFloat32(t.Data[i]))}
	case ops.Bool:
		return castValue{kind: castBool, b: t.Data[i] != 0}
	case ops.Int8:
		return castValue{kind: castInt, i: int64(t.Int8s()[i])}
	case ops.Uint8:
		return castValue{kind: castInt, i: int64(t.Data[i])}
	case ops.Int16:
		return castValue{kind: castInt, i: int64(t.Int16s()[i])}
	case ops.Uint16:
		return castValue{kind: castInt, i: int64(t.Uint16s()[i])}
	case ops.Int32:
		return castValue{kind: castInt, i: int64(t.Int32s()[i])}
	case ops.Uint32:
		return castValue{kind: castUint, u: uint64(t.Uint32s()[i])}
	case ops.Int64:
		return castValue{kind: castInt, i: t.Int64s()[i]}
	case ops.Float16:
		return castValue{kind: castF32, f: float64(halfToFloat32(t.Uint16s()[i]))}
	case ops.BFloat16:
		return castValue{kind: castF32, f: float64(math.Float32frombits(uint32(t.Uint16s()[i]) << 16))}
	case ops.Float32:
		return castValue{kind: castF32, f: float64(t.Float32s()[i])}
	case ops.Float64:
		return castValue{kind: castF64, f: t.Float64s()[i]}
	default: // Complex64: the real part
		return castValue{kind: castF32, f: float64(ops.View[float32](t.Data)[2*i])} // (re, im) pairs
	}
}

// asInt64 converts a value to a (wrapping) integer, saturating floats into
// [lo, hi] (the target type's range) as TFLite does.
func (v castValue) asInt64(lo, hi int64) int64 {
	switch v.kind {
	case castInt:
		return v.i
	case castUint:
		return int64(v.u)
	case castBool:
		if v.b {
			return 1
		}
		return 0
	}
	f := v.f
	switch {
	case f != f:
		return hi
	case f < float64(lo):
		return lo
	case f >= float64(hi)+1:
		// float64(hi)+1 is exactly 2^(bits-1) (or 2^bits for unsigned
		// types); values from there on saturate. Below it, truncation
		// fits (for 64-bit targets float64(hi) already rounds up to 2^63).
		return hi
	}
	return int64(f)
}

// asFloat64 converts a value to float64 (integers exactly, as every
// supported integer fits a float64 mantissa except large int64s, which
// round to nearest).
func (v castValue) asFloat64() float64 {
	switch v.kind {
	case castInt:
		return float64(v.i)
	case castUint:
		return float64(v.u)
	case castBool:
		if v.b {
			return 1
		}
		return 0
	}
	return v.f
}

// asFloat32 converts a value to float32 with a single rounding (integers
// convert directly, not through float64).
func (v castValue) asFloat32() float32 {
	switch v.kind {
	case castInt:
		return float32(v.i)
	case castUint:
		return float32(v.u)
	case castBool:
		if v.b {
			return 1
		}
		return 0
	}
	return float32(v.f)
}

func (v castValue) asBool() bool {
	switch v.kind {
	case castInt:
		return v.i != 0
	case castUint:
		return v.u != 0
	case castBool:
		return v.b
	}
	return v.f != 0 // NaN != 0
}

func castStore(t *ops.Tensor, typ ops.DataType, i int, v castValue) {
	switch typ {
	case ops.Bool:
		if v.asBool() {
			t.Data[i] = 1
		} else {
			t.Data[i] = 0
		}
	case ops.Int8:
		t.Int8s()[i] = int8(v.asInt64(math.MinInt8, math.MaxInt8))
	case ops.Uint8:
		t.Data[i] = uint8(v.asInt64(0, math.MaxUint8))
	case ops.Int16:
		t.Int16s()[i] = int16(v.asInt64(math.MinInt16, math.MaxInt16))
	case ops.Uint16:
		t.Uint16s()[i] = uint16(v.asInt64(0, math.MaxUint16))
	case ops.Int32:
		t.Int32s()[i] = int32(v.asInt64(math.MinInt32, math.MaxInt32))
	case ops.Uint32:
		t.Uint32s()[i] = uint32(v.asInt64(0, math.MaxUint32))
	case ops.Int64:
		t.Int64s()[i] = v.asInt64(math.MinInt64, math.MaxInt64)
	case ops.Float16:
		t.Uint16s()[i] = float32ToHalf(v.asFloat32())
	case ops.BFloat16:
		t.Uint16s()[i] = float32ToBFloat16(v.asFloat32())
	case ops.Float32:
		t.Float32s()[i] = v.asFloat32()
	case ops.Float64:
		t.Float64s()[i] = v.asFloat64()
	case ops.Complex64:
		c := ops.View[float32](t.Data) // (re, im) pairs
		c[2*i], c[2*i+1] = v.asFloat32(), 0
	case ops.Float8E4M3FN:
		t.Data[i] = float8E4M3FN.fromFloat32(v.asFloat32())
	case ops.Float8E5M2:
		t.Data[i] = float8E5M2.fromFloat32(v.asFloat32())
	}
}

// float32ToHalf converts to IEEE binary16, rounding to nearest even;
// overflow gives ±Inf and NaN a quiet NaN with the sign kept (the
// conversion TFLite uses, fp16_ieee_from_fp32_value).
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff && man != 0:
		return sign | 0x7e00
	case exp == 0xff:
		return sign | 0x7c00
	}
	e := exp - 127 + 15 // biased half exponent
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// Subnormal half (or zero): the value is m·2^-24 with m the
		// 24-bit significand shifted right by (14 - e) ... in units of
		// the smallest subnormal.
		if e < -10 {
			return sign // rounds to zero
		}
		m := man | 0x800000 // 24-bit significand
		shift := uint(14 - e)
		half := m >> shift
		rem := m & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || rem == mid && half&1 == 1 {
			half++
		}
		return sign | uint16(half)
	}
	h := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent, up to Inf: still correct
	}
	return sign | uint16(h)
}

// float32ToBFloat16 keeps the top 16 bits of a float32, rounding to
// nearest even (Eigen's float_to_bfloat16_rtne); NaN becomes a quiet NaN
// with the sign kept.
func float32ToBFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16)&0x8000 | 0x7fc0
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
