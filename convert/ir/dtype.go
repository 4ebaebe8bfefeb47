package ir

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/schema"
)

// DType is an element type. The numbering is TFLite's TensorType
// (schema.fbs), so the writer stores it unchanged; TensorFlow types map in
// through FromTF.
type DType int8

// Element types (TFLite TensorType numbering).
const (
	Float32    = DType(schema.TensorTypeFLOAT32)
	Float16    = DType(schema.TensorTypeFLOAT16)
	Int32      = DType(schema.TensorTypeINT32)
	Uint8      = DType(schema.TensorTypeUINT8)
	Int64      = DType(schema.TensorTypeINT64)
	String     = DType(schema.TensorTypeSTRING)
	Bool       = DType(schema.TensorTypeBOOL)
	Int16      = DType(schema.TensorTypeINT16)
	Complex64  = DType(schema.TensorTypeCOMPLEX64)
	Int8       = DType(schema.TensorTypeINT8)
	Float64    = DType(schema.TensorTypeFLOAT64)
	Complex128 = DType(schema.TensorTypeCOMPLEX128)
	Uint64     = DType(schema.TensorTypeUINT64)
	Resource   = DType(schema.TensorTypeRESOURCE)
	Variant    = DType(schema.TensorTypeVARIANT)
	Uint32     = DType(schema.TensorTypeUINT32)
	Uint16     = DType(schema.TensorTypeUINT16)
	BFloat16   = DType(schema.TensorTypeBFLOAT16)
	// Invalid marks a value whose type is not known yet.
	Invalid DType = -1
)

// String returns the NumPy-style name ("float32"), or "invalid".
func (d DType) String() string {
	if d == Invalid {
		return "invalid"
	}
	if n, ok := schema.EnumNamesTensorType[schema.TensorType(d)]; ok {
		return lower(n)
	}
	return fmt.Sprintf("dtype(%d)", int(d))
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Size is the byte size of one element, or 0 for types without a fixed
// size (String, Resource, Variant, Invalid).
func (d DType) Size() int {
	switch d {
	case Bool, Int8, Uint8:
		return 1
	case Int16, Uint16, Float16, BFloat16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64, Complex64:
		return 8
	case Complex128:
		return 16
	}
	return 0
}

// IsFloat reports float16/bfloat16/float32/float64.
func (d DType) IsFloat() bool {
	return d == Float32 || d == Float16 || d == Float64 || d == BFloat16
}

// IsInteger reports the signed and unsigned integer types.
func (d DType) IsInteger() bool {
	switch d {
	case Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64:
		return true
	}
	return false
}

// FromTF maps a TensorFlow DataType to a DType. Reference types (TF1
// variable outputs, DT_FLOAT_REF...) map to their value type. Types TFLite
// cannot hold (quantized qint8..., float8, int4) give an error naming the
// type.
func FromTF(t tfpb.DataType) (DType, error) {
	if t > 100 {
		t -= 100
	}
	switch t {
	case tfpb.DataType_DT_FLOAT:
		return Float32, nil
	case tfpb.DataType_DT_DOUBLE:
		return Float64, nil
	case tfpb.DataType_DT_INT32:
		return Int32, nil
	case tfpb.DataType_DT_UINT8:
		return Uint8, nil
	case tfpb.DataType_DT_INT16:
		return Int16, nil
	case tfpb.DataType_DT_INT8:
		return Int8, nil
	case tfpb.DataType_DT_STRING:
		return String, nil
	case tfpb.DataType_DT_COMPLEX64:
		return Complex64, nil
	case tfpb.DataType_DT_INT64:
		return Int64, nil
	case tfpb.DataType_DT_BOOL:
		return Bool, nil
	case tfpb.DataType_DT_BFLOAT16:
		return BFloat16, nil
	case tfpb.DataType_DT_UINT16:
		return Uint16, nil
	case tfpb.DataType_DT_COMPLEX128:
		return Complex128, nil
	case tfpb.DataType_DT_HALF:
		return Float16, nil
	case tfpb.DataType_DT_RESOURCE:
		return Resource, nil
	case tfpb.DataType_DT_VARIANT:
		return Variant, nil
	case tfpb.DataType_DT_UINT32:
		return Uint32, nil
	case tfpb.DataType_DT_UINT64:
		return Uint64, nil
	}
	return Invalid, fmt.Errorf("TensorFlow type %s has no TFLite equivalent", t)
}

// TF maps d back to the TensorFlow DataType (DT_INVALID for Invalid).
func (d DType) TF() tfpb.DataType {
	for _, t := range []tfpb.DataType{
		tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_DOUBLE, tfpb.DataType_DT_INT32,
		tfpb.DataType_DT_UINT8, tfpb.DataType_DT_INT16, tfpb.DataType_DT_INT8,
		tfpb.DataType_DT_STRING, tfpb.DataType_DT_COMPLEX64, tfpb.DataType_DT_INT64,
		tfpb.DataType_DT_BOOL, tfpb.DataType_DT_BFLOAT16, tfpb.DataType_DT_UINT16,
		tfpb.DataType_DT_COMPLEX128, tfpb.DataType_DT_HALF, tfpb.DataType_DT_RESOURCE,
		tfpb.DataType_DT_VARIANT, tfpb.DataType_DT_UINT32, tfpb.DataType_DT_UINT64,
	} {
		if x, _ := FromTF(t); x == d {
			return t
		}
	}
	return tfpb.DataType_DT_INVALID
}
