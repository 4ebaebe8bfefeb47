// Package flexbuffers reads FlexBuffers, the schema-less binary format of
// the FlatBuffers project (docs/flexbuffers.md and the FlexBuffers section
// of docs/internals.md), which TensorFlow Lite uses for the custom_options
// of its custom operators (TFLite_Detection_PostProcess, AudioSpectrogram,
// Mfcc) and of Flex (TensorFlow) operators.
//
// The reader is lazy, like the reference implementations: Root locates the
// root value in O(1), and every accessor decodes only what it is asked
// for. Unlike them it trusts nothing: every offset, width, size and index
// is checked against the buffer before it is used, so hostile bytes give
// an error, never a panic, an out-of-range read or unbounded work (a map
// lookup is a binary search over its keys; Verify walks a whole buffer
// within a depth and visit budget).
//
// Conversions between scalar kinds (AsInt on a float, AsFloat on an int,
// AsBool on anything) follow the C++ reader (flexbuffers.h Reference), which
// is what TensorFlow Lite's kernels call: a missing map key reads as Null,
// and Null reads as 0, 0.0 and false.
//
// Builder writes FlexBuffers; it exists for tests (models with custom
// options) and covers the types the reader decodes.
package flexbuffers

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Type is a FlexBuffers value type, numbered as the format's type field
// (flexbuffers.h enum Type).
type Type uint8

// Value types. Null, Int, Uint, Float and Bool are stored inline in their
// parent; every other type is reached through an offset.
const (
	TypeNull          Type = 0
	TypeInt           Type = 1
	TypeUint          Type = 2
	TypeFloat         Type = 3
	TypeKey           Type = 4
	TypeString        Type = 5
	TypeIndirectInt   Type = 6
	TypeIndirectUint  Type = 7
	TypeIndirectFloat Type = 8
	TypeMap           Type = 9
	TypeVector        Type = 10 // untyped: one type byte per element
	TypeVectorInt     Type = 11 // typed vectors: one element type, a size field
	TypeVectorUint    Type = 12
	TypeVectorFloat   Type = 13
	TypeVectorKey     Type = 14
	// TypeVectorStringDeprecated is a typed vector of strings, which the
	// format deprecated (a string's size field width cannot follow the
	// vector's); it is read like the other typed vectors.
	TypeVectorStringDeprecated Type = 15
	TypeVectorInt2             Type = 16 // fixed-length typed vectors: no size field
	TypeVectorUint2            Type = 17
	TypeVectorFloat2           Type = 18
	TypeVectorInt3             Type = 19
	TypeVectorUint3            Type = 20
	TypeVectorFloat3           Type = 21
	TypeVectorInt4             Type = 22
	TypeVectorUint4            Type = 23
	TypeVectorFloat4           Type = 24
	TypeBlob                   Type = 25
	TypeBool                   Type = 26
	TypeVectorBool             Type = 36
)

var typeNames = map[Type]string{
	TypeNull: "null", TypeInt: "int", TypeUint: "uint", TypeFloat: "float", TypeKey: "key",
	TypeString: "string", TypeIndirectInt: "indirect int", TypeIndirectUint: "indirect uint",
	TypeIndirectFloat: "indirect float", TypeMap: "map", TypeVector: "vector",
	TypeVectorInt: "int vector", TypeVectorUint: "uint vector", TypeVectorFloat: "float vector",
	TypeVectorKey: "key vector", TypeVectorStringDeprecated: "string vector",
	TypeVectorInt2: "int vector[2]", TypeVectorUint2: "uint vector[2]", TypeVectorFloat2: "float vector[2]",
	TypeVectorInt3: "int vector[3]", TypeVectorUint3: "uint vector[3]", TypeVectorFloat3: "float vector[3]",
	TypeVectorInt4: "int vector[4]", TypeVectorUint4: "uint vector[4]", TypeVectorFloat4: "float vector[4]",
	TypeBlob: "blob", TypeBool: "bool", TypeVectorBool: "bool vector",
}

// String names the type ("map", "int vector"); values outside the format
// print as "type(N)".
func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

// Valid reports whether t is one of the format's types.
func (t Type) Valid() bool { _, ok := typeNames[t]; return ok }

// inline reports whether values of type t sit in their parent's slot
// rather than behind an offset.
func (t Type) inline() bool { return t <= TypeFloat || t == TypeBool }

// typedVector reports whether t is a typed vector with a size field.
func (t Type) typedVector() bool {
	return t >= TypeVectorInt && t <= TypeVectorStringDeprecated || t == TypeVectorBool
}

// fixedVector reports whether t is a fixed-length typed vector.
func (t Type) fixedVector() bool { return t >= TypeVectorInt2 && t <= TypeVectorFloat4 }

// elementType returns the element type and fixed length (0: a size field)
// of a typed vector type.
func (t Type) elementType() (Type, int) {
	switch {
	case t == TypeVectorBool:
		return TypeBool, 0
	case t.typedVector():
		return t - TypeVectorInt + TypeInt, 0
	case t.fixedVector():
		k := int(t - TypeVectorInt2)
		return Type(k%3) + TypeInt, k/3 + 2
	}
	return TypeNull, 0
}

// errorf makes the package's errors, all prefixed "flexbuffers: ".
func errorf(format string, args ...any) error {
	return fmt.Errorf("flexbuffers: "+format, args...)
}

// validWidth reports whether w is a width the format stores (1, 2, 4 or 8
// bytes).
func validWidth(w int) bool { return w == 1 || w == 2 || w == 4 || w == 8 }

// readUint reads the w-byte little-endian unsigned integer at pos, after
// checking the width and the bounds.
func readUint(buf []byte, pos, w int) (uint64, error) {
	if !validWidth(w) {
		return 0, errorf("width %d at offset %d is not 1, 2, 4 or 8", w, pos)
	}
	if pos < 0 || pos > len(buf)-w {
		return 0, errorf("%d-byte value at offset %d lies outside the %d-byte buffer", w, pos, len(buf))
	}
	b := buf[pos:]
	switch w {
	case 1:
		return uint64(b[0]), nil
	case 2:
		return uint64(binary.LittleEndian.Uint16(b)), nil
	case 4:
		return uint64(binary.LittleEndian.Uint32(b)), nil
	}
	return binary.LittleEndian.Uint64(b), nil
}

// readInt reads the w-byte little-endian signed integer at pos.
func readInt(buf []byte, pos, w int) (int64, error) {
	u, err := readUint(buf, pos, w)
	if err != nil {
		return 0, err
	}
	switch w {
	case 1:
		return int64(int8(u)), nil
	case 2:
		return int64(int16(u)), nil
	case 4:
		return int64(int32(u)), nil
	}
	return int64(u), nil
}

// readFloat reads the w-byte float at pos: 4 bytes are a float32, 8 a
// float64. The C++ reader reads the 1- and 2-byte widths, which its
// builder never writes, as int8 and int16; so does this.
func readFloat(buf []byte, pos, w int) (float64, error) {
	switch w {
	case 4:
		u, err := readUint(buf, pos, w)
		return float64(math.Float32frombits(uint32(u))), err
	case 8:
		u, err := readUint(buf, pos, w)
		return math.Float64frombits(u), err
	}
	i, err := readInt(buf, pos, w)
	return float64(i), err
}

// indirect follows the backward offset stored in the w bytes at pos and
// returns the position it points to.
func indirect(buf []byte, pos, w int) (int, error) {
	off, err := readUint(buf, pos, w)
	if err != nil {
		return 0, err
	}
	if off > uint64(pos) {
		return 0, errorf("offset %d at offset %d points before the buffer", off, pos)
	}
	return pos - int(off), nil
}

// Value is one FlexBuffers value: a position in the buffer, the width of
// the slot holding it (its parent's width) and, for values behind an
// offset, the width of what the offset points to. The zero Value is Null.
type Value struct {
	buf         []byte
	pos         int
	parentWidth int
	width       int
	typ         Type
}

// Root returns the root value of the FlexBuffer buf: its last byte is the
// root's width, the byte before it the root's packed type, and the width
// bytes before that the root's slot.
func Root(buf []byte) (Value, error) {
	if len(buf) < 3 {
		return Value{}, errorf("buffer of %d bytes is too short for a root (at least 3)", len(buf))
	}
	w := int(buf[len(buf)-1])
	if !validWidth(w) {
		return Value{}, errorf("root width %d is not 1, 2, 4 or 8", w)
	}
	pos := len(buf) - 2 - w
	if pos < 0 {
		return Value{}, errorf("root of width %d does not fit the %d-byte buffer", w, len(buf))
	}
	return packed(buf, pos, w, buf[len(buf)-2])
}

// packed makes the value in the slot at pos (w bytes wide) from a packed
// type byte: the type in the upper 6 bits, log2 of the pointee's width in
// the lower 2.
func packed(buf []byte, pos, w int, p byte) (Value, error) {
	t := Type(p >> 2)
	if !t.Valid() {
		return Value{}, errorf("unknown type %d at offset %d", int(t), pos)
	}
	return Value{buf: buf, pos: pos, parentWidth: w, width: 1 << (p & 3), typ: t}, nil
}

// Type returns the value's type.
func (v Value) Type() Type { return v.typ }

// IsNull reports whether the value is Null (also what a missing map key
// reads as).
func (v Value) IsNull() bool { return v.typ == TypeNull }

// target returns the position a value stored behind an offset starts at.
func (v Value) target() (int, error) { return indirect(v.buf, v.pos, v.parentWidth) }

// AsInt reads the value as an int64 with the C++ reader's conversions:
// ints and uints (also indirect ones) as stored (a uint above MaxInt64
// wraps, as static_cast does), floats truncated toward zero, bools as 0 or
// 1, a string parsed as a decimal integer (0 when it is not one), an
// untyped vector as its length, and 0 for anything else. A float that is
// NaN or outside int64's range, which C++ leaves undefined, is an error.
func (v Value) AsInt() (int64, error) {
	switch v.typ {
	case TypeInt, TypeBool:
		return readInt(v.buf, v.pos, v.parentWidth)
	case TypeUint:
		u, err := readUint(v.buf, v.pos, v.parentWidth)
		return int64(u), err
	case TypeIndirectInt:
		p, err := v.target()
		if err != nil {
			return 0, err
		}
		return readInt(v.buf, p, v.width)
	case TypeIndirectUint:
		p, err := v.target()
		if err != nil {
			return 0, err
		}
		u, err := readUint(v.buf, p, v.width)
		return int64(u), err
	case TypeFloat, TypeIndirectFloat:
		f, err := v.AsFloat()
		if err != nil {
			return 0, err
		}
		if !(f >= -1<<63 && f < 1<<63) { // NaN fails both
			return 0, errorf("float %v at offset %d does not fit an int64", f, v.pos)
		}
		return int64(f), nil
	case TypeString:
		s, err := v.AsString()
		if err != nil {
			return 0, err
		}
		i, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil {
			return 0, nil
		}
		return i, nil
	case TypeVector:
		vec, err := v.AsVector()
		return int64(vec.Len()), err
	}
	return 0, nil
}

// AsUint reads the value as a uint64 with the C++ reader's conversions
// (those of AsInt, with a negative int wrapping as static_cast does; a
// float that is NaN, negative beyond -1 or above MaxUint64 is an error).
func (v Value) AsUint() (uint64, error) {
	switch v.typ {
	case TypeUint, TypeBool:
		return readUint(v.buf, v.pos, v.parentWidth)
	case TypeInt:
		i, err := readInt(v.buf, v.pos, v.parentWidth)
		return uint64(i), err
	case TypeIndirectUint:
		p, err := v.target()
		if err != nil {
			return 0, err
		}
		return readUint(v.buf, p, v.width)
	case TypeIndirectInt:
		p, err := v.target()
		if err != nil {
			return 0, err
		}
		i, err := readInt(v.buf, p, v.width)
		return uint64(i), err
	case TypeFloat, TypeIndirectFloat:
		f, err := v.AsFloat()
		if err != nil {
			return 0, err
		}
		if !(f > -1 && f < 1<<64) {
			return 0, errorf("float %v at offset %d does not fit a uint64", f, v.pos)
		}
		return uint64(f), nil
	case TypeString:
		s, err := v.AsString()
		if err != nil {
			return 0, err
		}
		u, perr := strconv.ParseUint(s, 10, 64)
		if perr != nil {
			return 0, nil
		}
		return u, nil
	case TypeVector:
		vec, err := v.AsVector()
		return uint64(vec.Len()), err
	}
	return 0, nil
}

// AsFloat reads the value as a float64 with the C++ reader's conversions:
// floats as stored (a 4-byte float widened), ints, uints and bools
// converted, a string parsed (0 when it is not a number), an untyped
// vector as its length, 0 for anything else.
func (v Value) AsFloat() (float64, error) {
	switch v.typ {
	case TypeFloat:
		return readFloat(v.buf, v.pos, v.parentWidth)
	case TypeIndirectFloat:
		p, err := v.target()
		if err != nil {
			return 0, err
		}
		return readFloat(v.buf, p, v.width)
	case TypeInt, TypeIndirectInt:
		i, err := v.AsInt()
		return float64(i), err
	case TypeUint, TypeIndirectUint, TypeBool:
		u, err := v.AsUint()
		return float64(u), err
	case TypeString:
		s, err := v.AsString()
		if err != nil {
			return 0, err
		}
		f, perr := strconv.ParseFloat(s, 64)
		if perr != nil {
			return 0, nil
		}
		return f, nil
	case TypeVector:
		vec, err := v.AsVector()
		return float64(vec.Len()), err
	}
	return 0, nil
}

// AsBool reads the value as a bool: a bool as stored, anything else true
// when AsUint is not zero (C++'s AsBool); a float is true when its
// truncation toward zero is not zero, which is what C++'s cast gives on
// the machines TensorFlow Lite runs on (and never an error here).
func (v Value) AsBool() (bool, error) {
	if v.typ == TypeFloat || v.typ == TypeIndirectFloat {
		f, err := v.AsFloat()
		return math.Trunc(f) != 0, err
	}
	u, err := v.AsUint()
	return u != 0, err
}

// AsString returns a string's or key's bytes as a string; other types
// are an error (the C++ reader returns "" for them, which would hide a
// wrong type). The bytes are copied.
func (v Value) AsString() (string, error) {
	switch v.typ {
	case TypeString:
		b, err := v.sized()
		return string(b), err
	case TypeKey:
		return v.AsKey()
	}
	return "", errorf("value at offset %d is a %s, not a string", v.pos, v.typ)
}

// AsKey returns a key (a zero-terminated string, also accepted for a
// string value, as C++'s AsKey).
func (v Value) AsKey() (string, error) {
	if v.typ != TypeKey && v.typ != TypeString {
		return "", errorf("value at offset %d is a %s, not a key", v.pos, v.typ)
	}
	p, err := v.target()
	if err != nil {
		return "", err
	}
	return keyAt(v.buf, p)
}

// keyAt reads the zero-terminated key starting at p.
func keyAt(buf []byte, p int) (string, error) {
	b, err := keyBytes(buf, p)
	return string(b), err
}

// keyBytes returns a view of the zero-terminated key starting at p.
func keyBytes(buf []byte, p int) ([]byte, error) {
	n := bytes.IndexByte(buf[p:], 0)
	if n < 0 {
		return nil, errorf("key at offset %d has no terminating zero", p)
	}
	return buf[p : p+n], nil
}

// keyView returns a view of the bytes of key i of a key vector.
func (vec Vector) keyView(i int) ([]byte, error) {
	k, err := vec.At(i)
	if err != nil {
		return nil, err
	}
	p, err := k.target()
	if err != nil {
		return nil, err
	}
	return keyBytes(vec.buf, p)
}

// AsBlob returns a blob's bytes (a view of the buffer, not a copy); a
// string's bytes are accepted too. Other types are an error.
func (v Value) AsBlob() ([]byte, error) {
	if v.typ != TypeBlob && v.typ != TypeString {
		return nil, errorf("value at offset %d is a %s, not a blob", v.pos, v.typ)
	}
	return v.sized()
}

// sized returns the bytes of a blob or string: a size field of the
// pointee's width, then that many bytes (a string's terminating zero is
// not included).
func (v Value) sized() ([]byte, error) {
	p, err := v.target()
	if err != nil {
		return nil, err
	}
	n, err := readUint(v.buf, p-v.width, v.width)
	if err != nil {
		return nil, errorf("size of the %s at offset %d: %v", v.typ, p, err)
	}
	if n > uint64(len(v.buf)-p) {
		return nil, errorf("%s at offset %d of %d bytes overruns the %d-byte buffer", v.typ, p, n, len(v.buf))
	}
	return v.buf[p : p+int(n)], nil
}

// Vector is a FlexBuffers vector of any kind: untyped (a type byte per
// element), typed (one element type and a size field) or fixed-length
// typed (no size field). A map's values are a Vector too.
type Vector struct {
	buf   []byte
	pos   int // first element
	width int // bytes per element slot
	n     int
	elem  Type // TypeNull for an untyped vector
}

// AsVector returns the value as a vector. Untyped vectors, maps (their
// values), typed and fixed-length typed vectors are accepted; other types
// are an error. The size is checked against the buffer here, so At can
// only fail on its index.
func (v Value) AsVector() (Vector, error) {
	if v.typ != TypeVector && v.typ != TypeMap && !v.typ.typedVector() && !v.typ.fixedVector() {
		return Vector{}, errorf("value at offset %d is a %s, not a vector", v.pos, v.typ)
	}
	p, err := v.target()
	if err != nil {
		return Vector{}, err
	}
	w := v.width
	if !validWidth(w) {
		return Vector{}, errorf("%s at offset %d has width %d", v.typ, p, w)
	}
	elem, fixed := v.typ.elementType()
	n := fixed
	if fixed == 0 {
		size, err := readUint(v.buf, p-w, w)
		if err != nil {
			return Vector{}, errorf("size of the %s at offset %d: %v", v.typ, p, err)
		}
		if size > uint64(len(v.buf)) {
			return Vector{}, errorf("%s at offset %d claims %d elements in a %d-byte buffer", v.typ, p, size, len(v.buf))
		}
		n = int(size)
	}
	slot := w
	if v.typ == TypeVector || v.typ == TypeMap {
		slot++ // the type bytes after the elements
	}
	if n > (len(v.buf)-p)/slot {
		return Vector{}, errorf("%s at offset %d of %d elements × %d bytes overruns the %d-byte buffer", v.typ, p, n, slot, len(v.buf))
	}
	return Vector{buf: v.buf, pos: p, width: w, n: n, elem: elem}, nil
}

// Len returns the number of elements.
func (vec Vector) Len() int { return vec.n }

// At returns element i; an index outside [0, Len) is an error.
func (vec Vector) At(i int) (Value, error) {
	if i < 0 || i >= vec.n {
		return Value{}, errorf("index %d outside the vector of %d elements at offset %d", i, vec.n, vec.pos)
	}
	slot := vec.pos + i*vec.width
	if vec.elem != TypeNull {
		// Typed elements: the C++ reader gives them width 1, which only
		// matters for offsets (keys, strings), whose pointee width is
		// then unused for keys.
		return Value{buf: vec.buf, pos: slot, parentWidth: vec.width, width: 1, typ: vec.elem}, nil
	}
	return packed(vec.buf, slot, vec.width, vec.buf[vec.pos+vec.n*vec.width+i])
}

// Map is a FlexBuffers map: a typed vector of sorted keys and a vector of
// values, one per key.
type Map struct {
	keys   Vector
	values Vector
}

// AsMap returns the value as a map; other types are an error. The keys
// vector is located and checked against the values here.
func (v Value) AsMap() (Map, error) {
	if v.typ != TypeMap {
		return Map{}, errorf("value at offset %d is a %s, not a map", v.pos, v.typ)
	}
	values, err := v.AsVector()
	if err != nil {
		return Map{}, err
	}
	w := values.width
	// Before the size field: the offset to the keys vector and its width.
	kw, err := readUint(v.buf, values.pos-2*w, w)
	if err != nil {
		return Map{}, errorf("keys width of the map at offset %d: %v", values.pos, err)
	}
	if !validWidth(int(kw)) {
		return Map{}, errorf("map at offset %d: keys width %d is not 1, 2, 4 or 8", values.pos, kw)
	}
	kv, err := Value{buf: v.buf, pos: values.pos - 3*w, parentWidth: w, width: int(kw), typ: TypeVectorKey}.AsVector()
	if err != nil {
		return Map{}, errorf("keys of the map at offset %d: %v", values.pos, err)
	}
	if kv.n != values.n {
		return Map{}, errorf("map at offset %d has %d keys and %d values", values.pos, kv.n, values.n)
	}
	return Map{keys: kv, values: values}, nil
}

// Len returns the number of entries.
func (m Map) Len() int { return m.values.n }

// Key returns the key of entry i (entries are sorted by key).
func (m Map) Key(i int) (string, error) {
	k, err := m.keys.At(i)
	if err != nil {
		return "", err
	}
	return k.AsKey()
}

// Value returns the value of entry i.
func (m Map) Value(i int) (Value, error) { return m.values.At(i) }

// Values returns the map's values as a vector, in key order.
func (m Map) Values() Vector { return m.values }

// Get returns the value stored under key, or Null when there is none. The
// lookup is a binary search, as the C++ reader's; a buffer whose keys are
// not sorted (which writers never produce) may so miss a key it holds,
// as there.
func (m Map) Get(key string) (Value, error) {
	var ferr error
	i := sort.Search(m.keys.n, func(i int) bool {
		if ferr != nil {
			return true
		}
		k, err := m.keys.keyView(i)
		if err != nil {
			ferr = err
			return true
		}
		return string(k) >= key
	})
	if ferr != nil {
		return Value{}, ferr
	}
	if i < m.keys.n {
		if k, err := m.keys.keyView(i); err != nil {
			return Value{}, err
		} else if string(k) == key {
			return m.values.At(i)
		}
	}
	return Value{}, nil
}

// Int returns m[key].AsInt(), naming the key in an error (a missing key
// reads as 0).
func (m Map) Int(key string) (int64, error) {
	v, err := m.Get(key)
	if err == nil {
		var i int64
		if i, err = v.AsInt(); err == nil {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%q: %w", key, err)
}

// Float returns m[key].AsFloat(), naming the key in an error (a missing
// key reads as 0).
func (m Map) Float(key string) (float64, error) {
	v, err := m.Get(key)
	if err == nil {
		var f float64
		if f, err = v.AsFloat(); err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%q: %w", key, err)
}

// Bool returns m[key].AsBool(), naming the key in an error (a missing key
// reads as false).
func (m Map) Bool(key string) (bool, error) {
	v, err := m.Get(key)
	if err == nil {
		var b bool
		if b, err = v.AsBool(); err == nil {
			return b, nil
		}
	}
	return false, fmt.Errorf("%q: %w", key, err)
}

// Has reports whether key is present with a value that is not Null (as
// TFLite's kernels test m[key].IsNull()).
func (m Map) Has(key string) (bool, error) {
	v, err := m.Get(key)
	if err != nil {
		return false, fmt.Errorf("%q: %w", key, err)
	}
	return !v.IsNull(), nil
}

// RootMap returns the root of buf as a map: the form every TensorFlow
// Lite custom_options buffer takes.
func RootMap(buf []byte) (Map, error) {
	r, err := Root(buf)
	if err != nil {
		return Map{}, err
	}
	return r.AsMap()
}

// Limits of Verify: how deep containers may nest, and how many values it
// visits per byte of buffer (values may be shared, so a small buffer can
// describe an exponentially large tree; the budget bounds the walk).
const (
	MaxDepth       = 64
	visitsPerByte  = 8
	minVisitBudget = 1 << 10
)

// ErrBudget is wrapped by Verify's error when the buffer describes more
// values than it can visit (shared subtrees reached many times).
var ErrBudget = errors.New("flexbuffers: too many values to verify")

// Verify walks every value reachable from the root of buf and returns the
// first error an accessor would return on it: offsets, widths, sizes,
// types, key terminators, maps whose keys and values differ in number or
// whose keys are not strictly sorted (lookups would miss). Containers may
// nest MaxDepth deep; the walk visits at most a fixed multiple of len(buf)
// values.
func Verify(buf []byte) error {
	r, err := Root(buf)
	if err != nil {
		return err
	}
	budget := visitsPerByte*len(buf) + minVisitBudget
	return verify(r, 0, &budget)
}

func verify(v Value, depth int, budget *int) error {
	*budget--
	if *budget < 0 {
		return ErrBudget
	}
	if depth > MaxDepth {
		return errorf("containers nest deeper than %d at offset %d", MaxDepth, v.pos)
	}
	var err error
	switch t := v.typ; {
	case t == TypeNull:
	case t == TypeInt, t == TypeUint, t == TypeBool, t == TypeIndirectInt, t == TypeIndirectUint:
		_, err = v.AsUint()
	case t == TypeFloat, t == TypeIndirectFloat:
		_, err = v.AsFloat()
	case t == TypeKey:
		_, err = v.AsKey()
	case t == TypeString, t == TypeBlob:
		_, err = v.AsBlob()
	case t == TypeMap:
		var m Map
		if m, err = v.AsMap(); err != nil {
			return err
		}
		prev := ""
		for i := 0; i < m.Len(); i++ {
			k, err := m.Key(i)
			if err != nil {
				return err
			}
			if i > 0 && k <= prev {
				return errorf("map at offset %d: key %q does not sort after %q", m.values.pos, k, prev)
			}
			prev = k
			e, err := m.Value(i)
			if err != nil {
				return err
			}
			if err := verify(e, depth+1, budget); err != nil {
				return err
			}
		}
	default: // every vector type
		var vec Vector
		if vec, err = v.AsVector(); err != nil {
			return err
		}
		for i := 0; i < vec.Len(); i++ {
			e, err := vec.At(i)
			if err != nil {
				return err
			}
			if err := verify(e, depth+1, budget); err != nil {
				return err
			}
		}
	}
	return err
}
