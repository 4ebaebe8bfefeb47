// Package tfnodedef decodes the TensorFlow NodeDef a Flex operator of a
// TensorFlow Lite model carries: the custom_options of an operator whose
// custom code is "Flex<Op>" are a FlexBuffer vector [op name, serialized
// NodeDef] (TensorFlow Lite's flex delegate, tensorflow/lite/delegates/
// flex/kernel.cc), and the NodeDef's attributes (element_dtype,
// element_shape, num_elements, …) parameterise the op.
//
// It reads the protobuf wire format (tensorflow/core/framework/
// node_def.proto, attr_value.proto, tensor_shape.proto, types.proto) by
// hand with protowire, so the runtime needs none of the converter's
// generated messages: only the fields a kernel reads are kept (name, op,
// inputs, and the scalar, type, shape and list attributes); tensors and
// functions in attributes are skipped. Every length is checked against
// the buffer, so hostile bytes give an error, and the memory decoded is
// proportional to the input's size.
package tfnodedef

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tflrun/tflrun/internal/flexbuffers"
)

// NodeDef is the part of TensorFlow's NodeDef a kernel reads.
type NodeDef struct {
	Name, Op string
	Inputs   []string
	// Attr holds the node's attributes by name.
	Attr map[string]AttrValue
}

// AttrKind says which field of an AttrValue is set (the proto's oneof).
type AttrKind uint8

// The kinds of attribute value tflrun decodes; KindOther is a tensor, a
// function or a placeholder, whose value is not kept.
const (
	KindNone AttrKind = iota
	KindString
	KindInt
	KindFloat
	KindBool
	KindType
	KindShape
	KindList
	KindOther
)

// AttrValue is one attribute of a NodeDef. Only the field Kind names is
// meaningful; a list keeps its ints, types and shapes.
type AttrValue struct {
	Kind  AttrKind
	S     []byte
	I     int64
	F     float32
	B     bool
	Type  DataType
	Shape Shape
	// List holds a list attribute's values (ListValue i, type, shape).
	ListI     []int64
	ListType  []DataType
	ListShape []Shape
}

// Shape is a TensorShapeProto: Dims is nil when the rank is unknown; a
// dimension of -1 is unknown.
type Shape struct {
	UnknownRank bool
	Dims        []int64
}

// String prints the shape as TensorFlow does: "<unknown>" or "[2,?]".
func (s Shape) String() string {
	if s.UnknownRank {
		return "<unknown>"
	}
	out := "["
	for i, d := range s.Dims {
		if i > 0 {
			out += ","
		}
		if d < 0 {
			out += "?"
		} else {
			out += fmt.Sprint(d)
		}
	}
	return out + "]"
}

// DataType is TensorFlow's DataType enum (types.proto), not TFLite's.
type DataType int32

// The TensorFlow data types with a TFLite counterpart.
const (
	DTFloat      DataType = 1
	DTDouble     DataType = 2
	DTInt32      DataType = 3
	DTUint8      DataType = 4
	DTInt16      DataType = 5
	DTInt8       DataType = 6
	DTString     DataType = 7
	DTComplex64  DataType = 8
	DTInt64      DataType = 9
	DTBool       DataType = 10
	DTBfloat16   DataType = 14
	DTUint16     DataType = 17
	DTComplex128 DataType = 18
	DTHalf       DataType = 19
	DTResource   DataType = 20
	DTVariant    DataType = 21
	DTUint32     DataType = 22
	DTUint64     DataType = 23
)

var dtNames = map[DataType]string{
	DTFloat: "DT_FLOAT", DTDouble: "DT_DOUBLE", DTInt32: "DT_INT32", DTUint8: "DT_UINT8",
	DTInt16: "DT_INT16", DTInt8: "DT_INT8", DTString: "DT_STRING", DTComplex64: "DT_COMPLEX64",
	DTInt64: "DT_INT64", DTBool: "DT_BOOL", DTBfloat16: "DT_BFLOAT16", DTUint16: "DT_UINT16",
	DTComplex128: "DT_COMPLEX128", DTHalf: "DT_HALF", DTResource: "DT_RESOURCE",
	DTVariant: "DT_VARIANT", DTUint32: "DT_UINT32", DTUint64: "DT_UINT64",
}

// String returns the enum's name ("DT_FLOAT"), or "DataType(N)".
func (d DataType) String() string {
	if s, ok := dtNames[d]; ok {
		return s
	}
	return fmt.Sprintf("DataType(%d)", int32(d))
}

// FlexOp decodes the custom_options of a Flex operator: the FlexBuffer
// vector [op name, NodeDef bytes]. It checks that the name and the
// NodeDef's op agree.
func FlexOp(customOptions []byte) (*NodeDef, error) {
	if len(customOptions) == 0 {
		return nil, errors.New("custom_options are missing (a Flex operator carries [op name, NodeDef] in them)")
	}
	root, err := flexbuffers.Root(customOptions)
	if err != nil {
		return nil, fmt.Errorf("custom_options: %v", err)
	}
	vec, err := root.AsVector()
	if err != nil {
		return nil, fmt.Errorf("custom_options: %v (need a vector [op name, NodeDef])", err)
	}
	if vec.Len() < 2 {
		return nil, fmt.Errorf("custom_options: a vector of %d values, need [op name, NodeDef]", vec.Len())
	}
	v0, err := vec.At(0)
	if err != nil {
		return nil, fmt.Errorf("custom_options[0]: %v", err)
	}
	name, err := v0.AsString()
	if err != nil {
		return nil, fmt.Errorf("custom_options[0] (op name): %v", err)
	}
	v1, err := vec.At(1)
	if err != nil {
		return nil, fmt.Errorf("custom_options[1]: %v", err)
	}
	raw, err := v1.AsString()
	if err != nil {
		return nil, fmt.Errorf("custom_options[1] (NodeDef): %v", err)
	}
	nd, err := Decode([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("custom_options[1] (NodeDef of %q): %w", name, err)
	}
	if nd.Op != name {
		return nil, fmt.Errorf("custom_options: op name %q, but the NodeDef's op is %q", name, nd.Op)
	}
	return nd, nil
}

// Decode parses a serialized NodeDef.
func Decode(b []byte) (*NodeDef, error) {
	nd := &NodeDef{Attr: map[string]AttrValue{}}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			nd.Name = string(v)
		case num == 2 && typ == protowire.BytesType:
			nd.Op = string(v)
		case num == 3 && typ == protowire.BytesType:
			nd.Inputs = append(nd.Inputs, string(v))
		case num == 5 && typ == protowire.BytesType:
			key, val, err := attrEntry(v)
			if err != nil {
				return fmt.Errorf("attr: %w", err)
			}
			nd.Attr[key] = val
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return nd, nil
}

// fields walks the fields of one message, giving each one's number,
// wire type and value (bytes for length-delimited fields, the integer
// otherwise).
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, bytes []byte, n uint64) error) error {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("byte %d: %v", off, protowire.ParseError(n))
		}
		off += n
		var bytes []byte
		var val uint64
		switch typ {
		case protowire.VarintType:
			val, n = protowire.ConsumeVarint(b[off:])
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b[off:])
			val = uint64(v)
		case protowire.Fixed64Type:
			val, n = protowire.ConsumeFixed64(b[off:])
		case protowire.BytesType:
			bytes, n = protowire.ConsumeBytes(b[off:])
		default:
			n = protowire.ConsumeFieldValue(num, typ, b[off:])
		}
		if n < 0 {
			return fmt.Errorf("field %d at byte %d: %v", num, off, protowire.ParseError(n))
		}
		off += n
		if err := f(num, typ, bytes, val); err != nil {
			return fmt.Errorf("field %d: %w", num, err)
		}
	}
	return nil
}

// attrEntry parses one entry of the attr map.
func attrEntry(b []byte) (string, AttrValue, error) {
	var key string
	var val AttrValue
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			key = string(v)
		case 2:
			var err error
			if val, err = attrValue(v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", AttrValue{}, err
	}
	return key, val, nil
}

// attrValue parses an AttrValue.
func attrValue(b []byte) (AttrValue, error) {
	var a AttrValue
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == 2 && typ == protowire.BytesType:
			a.Kind, a.S = KindString, v
		case num == 3 && typ == protowire.VarintType:
			a.Kind, a.I = KindInt, int64(n)
		case num == 4 && typ == protowire.Fixed32Type:
			a.Kind, a.F = KindFloat, math.Float32frombits(uint32(n))
		case num == 5 && typ == protowire.VarintType:
			a.Kind, a.B = KindBool, n != 0
		case num == 6 && typ == protowire.VarintType:
			a.Kind, a.Type = KindType, DataType(int32(n))
		case num == 7 && typ == protowire.BytesType:
			s, err := shape(v)
			if err != nil {
				return fmt.Errorf("shape: %w", err)
			}
			a.Kind, a.Shape = KindShape, s
		case num == 1 && typ == protowire.BytesType:
			a.Kind = KindList
			return list(&a, v)
		case num == 8 || num == 9 || num == 10:
			a.Kind = KindOther
		}
		return nil
	})
	return a, err
}

// list parses a ListValue into a's list fields (ints and types may be
// packed or not).
func list(a *AttrValue, b []byte) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch num {
		case 3, 6:
			vals := []uint64{n}
			if typ == protowire.BytesType {
				var err error
				if vals, err = packed(v); err != nil {
					return err
				}
			} else if typ != protowire.VarintType {
				return nil
			}
			for _, x := range vals {
				if num == 3 {
					a.ListI = append(a.ListI, int64(x))
				} else {
					a.ListType = append(a.ListType, DataType(int32(x)))
				}
			}
		case 7:
			if typ != protowire.BytesType {
				return nil
			}
			s, err := shape(v)
			if err != nil {
				return fmt.Errorf("shape: %w", err)
			}
			a.ListShape = append(a.ListShape, s)
		}
		return nil
	})
}

// packed parses a packed repeated varint field.
func packed(b []byte) ([]uint64, error) {
	var out []uint64
	for off := 0; off < len(b); {
		v, n := protowire.ConsumeVarint(b[off:])
		if n < 0 {
			return nil, fmt.Errorf("packed varint at byte %d: %v", off, protowire.ParseError(n))
		}
		out = append(out, v)
		off += n
	}
	return out, nil
}

// shape parses a TensorShapeProto (dim = 2 {size = 1}, unknown_rank = 3).
func shape(b []byte) (Shape, error) {
	s := Shape{Dims: []int64{}}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == 2 && typ == protowire.BytesType:
			var size int64
			if err := fields(v, func(num protowire.Number, typ protowire.Type, _ []byte, n uint64) error {
				if num == 1 && typ == protowire.VarintType {
					size = int64(n)
				}
				return nil
			}); err != nil {
				return fmt.Errorf("dim: %w", err)
			}
			if size < -1 {
				return fmt.Errorf("dim %d has size %d", len(s.Dims), size)
			}
			s.Dims = append(s.Dims, size)
		case num == 3 && typ == protowire.VarintType:
			s.UnknownRank = n != 0
		}
		return nil
	})
	if s.UnknownRank {
		s.Dims = nil
	}
	return s, err
}
