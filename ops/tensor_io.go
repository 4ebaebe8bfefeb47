package ops

import (
	"errors"
	"fmt"
)

// elementTypeOf maps a Go slice type to the tensor element type it holds.
func elementTypeOf(v any) (DataType, int, bool) {
	switch s := v.(type) {
	case []float32:
		return Float32, len(s), true
	case []float64:
		return Float64, len(s), true
	case []int8:
		return Int8, len(s), true
	case []uint8:
		return Uint8, len(s), true
	case []int16:
		return Int16, len(s), true
	case []uint16:
		return Uint16, len(s), true
	case []int32:
		return Int32, len(s), true
	case []uint32:
		return Uint32, len(s), true
	case []int64:
		return Int64, len(s), true
	case []uint64:
		return Uint64, len(s), true
	case []bool:
		return Bool, len(s), true
	}
	return 0, 0, false
}

// errNilTensor is what the copy methods return on a nil *Tensor, what an
// accessor such as Interpreter.Input gives for an index out of range.
var errNilTensor = errors.New("no such tensor (a nil *Tensor: Input, Output and Tensor return nil for an index out of range; InputTensor and OutputTensor say why)")

// checkCopy verifies that the typed slice v matches the tensor's element
// type and element count.
func (t *Tensor) checkCopy(v any, dir string) error {
	if t == nil {
		return errNilTensor
	}
	typ, n, ok := elementTypeOf(v)
	if !ok {
		return fmt.Errorf("%s: cannot copy %s a %T (use a slice of the element type)", t, dir, v)
	}
	if typ != t.Type {
		return fmt.Errorf("%s: cannot copy %s []%s: the tensor holds %s", t, dir, typ, t.Type)
	}
	if n != t.NumElements() {
		return fmt.Errorf("%s: cannot copy %s %d elements: the tensor has %d", t, dir, n, t.NumElements())
	}
	if len(t.Data) != t.Bytes() {
		return fmt.Errorf("%s: tensor is not allocated (call AllocateTensors)", t)
	}
	return nil
}

// CopyFrom copies a typed slice into the tensor. The slice's element type
// must be the tensor's (for example []float32 for Float32, []int8 for
// Int8) and its length the tensor's element count; otherwise the error
// says which differs. The tensor must be allocated. On a nil *Tensor
// (an out-of-range Interpreter.Input, say) it returns an error.
func (t *Tensor) CopyFrom(src any) error {
	if err := t.checkCopy(src, "from"); err != nil {
		return err
	}
	switch s := src.(type) {
	case []float32:
		copy(t.Float32s(), s)
	case []float64:
		copy(t.Float64s(), s)
	case []int8:
		copy(t.Int8s(), s)
	case []uint8:
		copy(t.Data, s)
	case []int16:
		copy(t.Int16s(), s)
	case []uint16:
		copy(t.Uint16s(), s)
	case []int32:
		copy(t.Int32s(), s)
	case []uint32:
		copy(t.Uint32s(), s)
	case []int64:
		copy(t.Int64s(), s)
	case []uint64:
		copy(View[uint64](t.Data), s)
	case []bool:
		copy(t.Bools(), s)
	}
	return nil
}

// CopyTo copies the tensor's elements into a typed slice of the tensor's
// element type and exact element count (see CopyFrom for the errors).
func (t *Tensor) CopyTo(dst any) error {
	if err := t.checkCopy(dst, "into"); err != nil {
		return err
	}
	switch d := dst.(type) {
	case []float32:
		copy(d, t.Float32s())
	case []float64:
		copy(d, t.Float64s())
	case []int8:
		copy(d, t.Int8s())
	case []uint8:
		copy(d, t.Data)
	case []int16:
		copy(d, t.Int16s())
	case []uint16:
		copy(d, t.Uint16s())
	case []int32:
		copy(d, t.Int32s())
	case []uint32:
		copy(d, t.Uint32s())
	case []int64:
		copy(d, t.Int64s())
	case []uint64:
		copy(d, View[uint64](t.Data))
	case []bool:
		copy(d, t.Bools())
	}
	return nil
}

// CopyFromBytes copies raw little-endian element bytes into the tensor;
// len(b) must equal Bytes(). A nil *Tensor is an error, as for CopyFrom.
func (t *Tensor) CopyFromBytes(b []byte) error {
	if t == nil {
		return errNilTensor
	}
	if len(t.Data) != t.Bytes() {
		return fmt.Errorf("%s: tensor is not allocated (call AllocateTensors)", t)
	}
	if len(b) != t.Bytes() {
		return fmt.Errorf("%s: got %d bytes, the tensor holds %d (%d × %d-byte %s)", t, len(b), t.Bytes(), t.NumElements(), t.Type.Size(), t.Type)
	}
	copy(t.Data, b)
	return nil
}

// Element is the set of Go element types a tensor's data can be viewed
// as (see Elements).
type Element interface {
	float32 | float64 | int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64 | bool
}

// Elements returns t's data as a []E sharing its memory, or an error
// saying what is wrong: t is nil, E is not t's element type (for a
// Float16 or BFloat16 tensor E may be uint16, the elements' bit
// patterns), or t's Data is not exactly Bytes() long (not allocated yet,
// or Shape or Data changed since AllocateTensors). It is the checked
// form of the typed views (Float32s, Int8s, …), which return nil instead.
func Elements[E Element](t *Tensor) ([]E, error) {
	if t == nil {
		return nil, fmt.Errorf("nil tensor")
	}
	var z E
	typ, _, _ := elementTypeOf([]E(nil))
	if typ != t.Type && !(typ == Uint16 && (t.Type == Float16 || t.Type == BFloat16)) {
		return nil, fmt.Errorf("%s: cannot view it as []%T: the tensor holds %s", t, z, t.Type)
	}
	if len(t.Data) != t.Bytes() {
		if t.Data == nil {
			return nil, fmt.Errorf("%s: tensor is not allocated (call AllocateTensors)", t)
		}
		return nil, fmt.Errorf("%s: Data holds %d bytes but the shape needs %d (Shape or Data was changed; resize with ResizeInputTensor)", t, len(t.Data), t.Bytes())
	}
	return View[E](t.Data), nil
}
