package ir

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Tensor is a constant value: element type, static shape and data.
// Numeric data is stored little-endian in Data (len = elements × size);
// String tensors keep one byte string per element in Strings and no Data.
// Tensors are treated as immutable once built: passes that change a value
// build a new Tensor.
type Tensor struct {
	DType   DType
	Shape   Shape
	Data    []byte
	Strings [][]byte
}

// NewTensor wraps data (not copied) as a tensor of the given type and
// static shape, checking that the byte count matches.
func NewTensor(dt DType, shape Shape, data []byte) (*Tensor, error) {
	n, ok := shape.NumElements()
	if !ok {
		return nil, fmt.Errorf("tensor shape %s is not static", shape)
	}
	if dt.Size() == 0 {
		return nil, fmt.Errorf("tensor of type %s has no fixed element size", dt)
	}
	if n*dt.Size() != len(data) {
		return nil, fmt.Errorf("%s tensor of shape %s needs %d bytes, got %d", dt, shape, n*dt.Size(), len(data))
	}
	return &Tensor{DType: dt, Shape: shape.Clone(), Data: data}, nil
}

// NumElements is the number of elements.
func (t *Tensor) NumElements() int {
	n, _ := t.Shape.NumElements()
	return n
}

// String summarises the tensor ("float32[3 3] = [1 2 3 ...]").
func (t *Tensor) String() string {
	if t == nil {
		return "<nil tensor>"
	}
	s := fmt.Sprintf("%s%s", t.DType, t.Shape)
	n := t.NumElements()
	const show = 8
	switch {
	case t.DType == String:
		return s
	case t.DType.IsFloat() || t.DType == Float64:
		f := t.Float64s()
		if len(f) > show {
			return fmt.Sprintf("%s = %v ...", s, f[:show])
		}
		return fmt.Sprintf("%s = %v", s, f)
	case t.DType.IsInteger() || t.DType == Bool:
		v := t.Int64s()
		if n > show {
			return fmt.Sprintf("%s = %v ...", s, v[:show])
		}
		return fmt.Sprintf("%s = %v", s, v)
	}
	return s
}

// FromFloat32s builds a float32 tensor (the slice is copied).
func FromFloat32s(shape Shape, v []float32) *Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return &Tensor{DType: Float32, Shape: shape.Clone(), Data: b}
}

// FromInt32s builds an int32 tensor.
func FromInt32s(shape Shape, v []int32) *Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return &Tensor{DType: Int32, Shape: shape.Clone(), Data: b}
}

// FromInts builds an integer tensor of type dt (Int32 or Int64) from ints,
// failing when a value does not fit.
func FromInts(dt DType, shape Shape, v []int) (*Tensor, error) {
	return FromInt64s(dt, shape, toInt64(v))
}

func toInt64(v []int) []int64 {
	o := make([]int64, len(v))
	for i, x := range v {
		o[i] = int64(x)
	}
	return o
}

// FromInt64s builds an integer or bool tensor of type dt from int64
// values, failing when a value does not fit the type.
func FromInt64s(dt DType, shape Shape, v []int64) (*Tensor, error) {
	sz := dt.Size()
	if !dt.IsInteger() && dt != Bool {
		return nil, fmt.Errorf("FromInt64s: %s is not an integer type", dt)
	}
	b := make([]byte, sz*len(v))
	for i, x := range v {
		if !fits(dt, x) {
			return nil, fmt.Errorf("value %d does not fit %s", x, dt)
		}
		putInt(b[sz*i:], sz, uint64(x))
	}
	return &Tensor{DType: dt, Shape: shape.Clone(), Data: b}, nil
}

// FromFloat64s builds a floating-point tensor of type dt (float16 values
// rounded to nearest even).
func FromFloat64s(dt DType, shape Shape, v []float64) (*Tensor, error) {
	sz := dt.Size()
	b := make([]byte, sz*len(v))
	for i, x := range v {
		switch dt {
		case Float32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		case Float64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		case Float16:
			binary.LittleEndian.PutUint16(b[2*i:], Float32ToHalf(float32(x)))
		case BFloat16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(float32(x))>>16))
		default:
			return nil, fmt.Errorf("FromFloat64s: %s is not a float type", dt)
		}
	}
	return &Tensor{DType: dt, Shape: shape.Clone(), Data: b}, nil
}

func fits(dt DType, x int64) bool {
	switch dt {
	case Bool:
		return x == 0 || x == 1
	case Int8:
		return x >= math.MinInt8 && x <= math.MaxInt8
	case Uint8:
		return x >= 0 && x <= math.MaxUint8
	case Int16:
		return x >= math.MinInt16 && x <= math.MaxInt16
	case Uint16:
		return x >= 0 && x <= math.MaxUint16
	case Int32:
		return x >= math.MinInt32 && x <= math.MaxInt32
	case Uint32:
		return x >= 0 && x <= math.MaxUint32
	}
	return true
}

func putInt(b []byte, size int, x uint64) {
	switch size {
	case 1:
		b[0] = byte(x)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(x))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(x))
	case 8:
		binary.LittleEndian.PutUint64(b, x)
	}
}

// Float32s returns the elements of a float32 tensor (a fresh slice). Any
// other real type is converted (integers exactly where float32 can hold
// them).
func (t *Tensor) Float32s() []float32 {
	n := t.NumElements()
	out := make([]float32, n)
	if t.DType == Float32 {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
		}
		return out
	}
	for i, x := range t.Float64s() {
		out[i] = float32(x)
	}
	return out
}

// Float64s returns the elements converted to float64 (integers and bools
// included; strings and complex give zeros).
func (t *Tensor) Float64s() []float64 {
	n := t.NumElements()
	out := make([]float64, n)
	d := t.Data
	switch t.DType {
	case Float32:
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(d[4*i:])))
		}
	case Float64:
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(d[8*i:]))
		}
	case Float16:
		for i := range out {
			out[i] = float64(HalfToFloat32(binary.LittleEndian.Uint16(d[2*i:])))
		}
	case BFloat16:
		for i := range out {
			out[i] = float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(d[2*i:])) << 16))
		}
	default:
		if t.DType.IsInteger() || t.DType == Bool {
			for i, x := range t.Int64s() {
				if t.DType == Uint64 {
					out[i] = float64(uint64(x))
				} else {
					out[i] = float64(x)
				}
			}
		}
	}
	return out
}

// Int64s returns the elements of an integer or bool tensor as int64
// (uint64 values above 2^63 wrap). Float tensors are truncated toward
// zero; other types give zeros.
func (t *Tensor) Int64s() []int64 {
	n := t.NumElements()
	out := make([]int64, n)
	d := t.Data
	switch t.DType {
	case Bool, Uint8:
		for i := range out {
			out[i] = int64(d[i])
		}
	case Int8:
		for i := range out {
			out[i] = int64(int8(d[i]))
		}
	case Int16:
		for i := range out {
			out[i] = int64(int16(binary.LittleEndian.Uint16(d[2*i:])))
		}
	case Uint16:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint16(d[2*i:]))
		}
	case Int32:
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(d[4*i:])))
		}
	case Uint32:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint32(d[4*i:]))
		}
	case Int64, Uint64:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(d[8*i:]))
		}
	default:
		if t.DType.IsFloat() {
			for i, x := range t.Float64s() {
				out[i] = int64(x)
			}
		}
	}
	return out
}

// Ints returns the elements of an integer tensor as ints, for shape-like
// tensors (perm, axis, sizes).
func (t *Tensor) Ints() []int {
	v := t.Int64s()
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// Reshaped returns a tensor sharing t's data with another shape of the
// same element count.
func (t *Tensor) Reshaped(shape Shape) (*Tensor, error) {
	n, ok := shape.NumElements()
	if !ok || n != t.NumElements() {
		return nil, fmt.Errorf("cannot reshape %s%s to %s", t.DType, t.Shape, shape)
	}
	return &Tensor{DType: t.DType, Shape: shape.Clone(), Data: t.Data, Strings: t.Strings}, nil
}

// HalfToFloat32 converts IEEE binary16 bits to float32.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// Subnormal: value = frac × 2^-24.
		f := float32(frac) * float32(math.Ldexp(1, -24))
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

// Float32ToHalf converts to IEEE binary16 bits with round-to-nearest-even,
// overflowing to infinity.
func Float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	frac := b & 0x7fffff
	if exp == 0xff {
		if frac != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		// Subnormal half: shift the implicit-one mantissa into place.
		m := frac | 0x800000
		shift := uint(14 - e)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & (1<<shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | frac>>13
	rem := frac & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, which is the correct rounding
	}
	return sign | uint16(r)
}
