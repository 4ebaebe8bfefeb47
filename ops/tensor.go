// Package ops holds the kernel contract of tflrun: tensors and their typed
// views, the Prepare/Eval interface kernels implement (Kernel, Node), the
// operator registry (Resolver, Registration, the builtin operator codes),
// the option types several kernel families share (Activation, Padding) and
// the quantisation arithmetic of TensorFlow Lite (QuantizeMultiplier,
// MultiplyByQuantizedMultiplier, SymmetricQuantizeFloats, …) that kernels
// are built from.
//
// The kernels themselves live elsewhere: the builtin non-recurrent
// operators in ops/builtin, the fused recurrent ones in fused. A kernel
// written outside tflrun (a custom operator) needs only this package.
package ops

import (
	"fmt"
	"math"
	"unsafe"
)

// DataType is the element type of a tensor. The numbering is TFLite's
// TensorType enum (schema.fbs), so a value read from a model converts
// directly.
type DataType int8

// Element types, numbered as TFLite's TensorType.
const (
	Float32    DataType = 0
	Float16    DataType = 1
	Int32      DataType = 2
	Uint8      DataType = 3
	Int64      DataType = 4
	String     DataType = 5
	Bool       DataType = 6
	Int16      DataType = 7
	Complex64  DataType = 8
	Int8       DataType = 9
	Float64    DataType = 10
	Complex128 DataType = 11
	Uint64     DataType = 12
	Resource   DataType = 13
	Variant    DataType = 14
	Uint32     DataType = 15
	Uint16     DataType = 16
	Int4       DataType = 17
	BFloat16   DataType = 18
	// Int2 is TFLite's kTfLiteInt2: signed 2-bit values, packed four to
	// a byte (element i in bits 2·(i%4)..2·(i%4)+1 of byte i/4) in
	// constant buffers and at run time.
	Int2 DataType = 19
	// Uint4 is TFLite's kTfLiteUInt4: unsigned 4-bit values, packed two
	// to a byte like Int4.
	Uint4 DataType = 20
	// Float8E4M3FN is ml_dtypes' float8_e4m3fn (1 sign, 4 exponent bits
	// of bias 7, 3 mantissa bits; no infinities, S.1111.111 is NaN,
	// largest finite 448), one byte per element holding its bits.
	Float8E4M3FN DataType = 21
	// Float8E5M2 is ml_dtypes' float8_e5m2 (1 sign, 5 exponent bits of
	// bias 15, 2 mantissa bits; IEEE-like with infinities and NaNs,
	// largest finite 57344), one byte per element holding its bits.
	Float8E5M2 DataType = 22
)

var dataTypeNames = [...]string{
	Float32: "float32", Float16: "float16", Int32: "int32", Uint8: "uint8",
	Int64: "int64", String: "string", Bool: "bool", Int16: "int16",
	Complex64: "complex64", Int8: "int8", Float64: "float64",
	Complex128: "complex128", Uint64: "uint64", Resource: "resource",
	Variant: "variant", Uint32: "uint32", Uint16: "uint16", Int4: "int4",
	BFloat16: "bfloat16", Int2: "int2", Uint4: "uint4",
	Float8E4M3FN: "float8_e4m3fn", Float8E5M2: "float8_e5m2",
}

// String returns the lower-case name of the type as NumPy spells it
// ("float32", "int8"); unknown values print as "DataType(N)".
func (d DataType) String() string {
	if d >= 0 && int(d) < len(dataTypeNames) {
		return dataTypeNames[d]
	}
	return fmt.Sprintf("DataType(%d)", int(d))
}

// Known reports whether d is a value of TFLite's TensorType enum that
// tflrun knows.
func (d DataType) Known() bool { return d >= 0 && int(d) < len(dataTypeNames) }

// Size is the number of bytes one element occupies in a tensor buffer.
// A Resource element is the int32 id of a resource variable (as in
// TFLite's runtime: VAR_HANDLE writes it, READ_VARIABLE and
// ASSIGN_VARIABLE read it), 4 bytes; a Variant element is the int32
// handle of a TensorList in the interpreter's store (see TensorLists),
// 4 bytes too. It is 0 for types without a fixed element size (String,
// and the packed sub-byte types Int4, Uint4 and Int2, which TFLite packs
// two or four to a byte in constant buffers and at run time alike; see
// PackedBits and BytesFor) and for unknown values.
func (d DataType) Size() int {
	switch d {
	case Bool, Int8, Uint8, Float8E4M3FN, Float8E5M2:
		return 1
	case Int16, Uint16, Float16, BFloat16:
		return 2
	case Int32, Uint32, Float32, Resource, Variant:
		return 4
	case Int64, Uint64, Float64, Complex64:
		return 8
	case Complex128:
		return 16
	}
	return 0
}

// PackedBits is the width in bits of one element of the packed sub-byte
// types (4 for Int4 and Uint4, 2 for Int2), 0 for every other type.
// TFLite stores these types densely, element 0 in the lowest bits of byte
// 0, in constant buffers and in run-time tensors alike
// (Subgraph::BytesRequired; tensor_utils::PackInt8IntoDenseInt and
// UnpackPackedIntToInt8).
func (d DataType) PackedBits() int {
	switch d {
	case Int4, Uint4:
		return 4
	case Int2:
		return 2
	}
	return 0
}

// BytesFor is the number of bytes n elements of type d occupy: n·Size()
// for fixed-size types, ceil(n·PackedBits()/8) for the packed sub-byte
// types (as TFLite's Subgraph::BytesRequired), 0 for the others.
func (d DataType) BytesFor(n int) int {
	switch b := d.PackedBits(); b {
	case 4:
		return n/2 + n%2
	case 2:
		return n/4 + (n%4+3)/4
	}
	return n * d.Size()
}

// Quantization holds a tensor's affine quantisation: real = Scale *
// (q - ZeroPoint). A per-tensor quantisation has one scale and one zero
// point; a per-channel one has one of each per index of dimension
// QuantizedDimension. Semantics are TFLite's QuantizationParameters.
type Quantization struct {
	Scale              []float32
	ZeroPoint          []int64
	QuantizedDimension int
}

// BlockwiseQuantization is TFLite's BlockwiseQuantization: the values of
// each run of BlockSize elements along a weight row share one scale.
// TFLite keeps the scales in another tensor of the subgraph (float16, one
// per block, row-major [rows, columns/BlockSize]); HalfScales views their
// float16 bits (set by the loader). ScalesTensor and ZeroPointsTensor
// are the model's tensor indices (TFLite's builtin kernel reads no zero
// points).
type BlockwiseQuantization struct {
	ScalesTensor, ZeroPointsTensor int
	BlockSize                      int
	HalfScales                     []uint16
}

// Sparsity is the sparsity a constant had in the model (TFLite's
// SparsityParameters), kept after the loader expanded its buffer into the
// dense tensor it stands for, so that kernels whose TensorFlow Lite
// counterparts run sparse arithmetic (FULLY_CONNECTED) can follow it.
// TraversalOrder lists the dimensions in the order the levels visit them
// (the tensor's dimensions first, then the block dimensions); BlockMap
// gives, for each block dimension, the tensor dimension it divides;
// Levels has one entry per traversal position. The loader validated it
// against the shape (package internal/sparse).
type Sparsity struct {
	TraversalOrder []int
	BlockMap       []int
	Levels         []SparsityLevel
}

// SparsityLevel is one level of a Sparsity (TFLite's DimensionMetadata):
// a dense level of DenseSize positions, or a compressed (CSR) one whose
// Segments[i]..Segments[i+1] index the Indices stored under position i of
// the level above.
type SparsityLevel struct {
	Compressed bool
	DenseSize  int
	Segments   []int
	Indices    []int
}

// TensorKind says where a tensor's bytes live.
type TensorKind uint8

const (
	// ArenaTensor is an activation: its bytes are a slice of the
	// interpreter's arena, valid from AllocateTensors on, and may share
	// space with tensors whose lifetimes do not overlap.
	ArenaTensor TensorKind = iota
	// ConstTensor is a weight: its bytes are a read-only view of the model
	// buffer (copied only when misaligned for its element type).
	ConstTensor
	// VariableTensor is persistent state (an LSTM's cell state, say): its
	// bytes are never shared and survive across Invoke calls.
	VariableTensor
	// PrecomputedTensor is computed once from constants: the float32
	// output of a DEQUANTIZE operator whose input is a ConstTensor (a
	// float16 or quantised weight), the dense output of a DENSIFY of a
	// ConstTensor (a sparse weight, which TFLite's densify kernel also
	// fills once), and the DEQUANTIZE of such an output (sparse float16
	// weights). As TFLite's dequantize kernel, which
	// gives such an output the kTfLiteArenaRwPersistent allocation and
	// fills it only at its first Eval, the interpreter keeps its bytes in
	// memory outside the arena (never shared), computes them once at
	// AllocateTensors, right after the DEQUANTIZE's own Prepare, and skips
	// the operator at Invoke. So the bytes are already there when the
	// operators that read them are prepared: IsConstant reports them, and
	// kernels that need constant weights at Prepare (the recurrent
	// kernels, which pack them) accept them as TFLite's kernels accept any
	// weight tensor. They must not be written by kernels or users.
	PrecomputedTensor
	// DynamicTensor is an activation whose shape is only known at Invoke
	// (TFLite's kTfLiteDynamic): the output of an operator whose shape
	// depends on the run-time values of an input (a FILL with computed
	// dims; a kernel marks it with Node.SetOutputDynamic at Prepare and
	// sizes it with Node.ResizeOutput at Eval), and every tensor computed
	// from one. Its bytes live outside the arena in a grow-only buffer of
	// its own, charged to the interpreter's memory bound; they are valid
	// from the Eval that sizes the tensor until the next one.
	DynamicTensor
)

// Tensor is one tensor of a subgraph as kernels and users see it: type,
// shape and quantisation, and its bytes. Data is nil before
// AllocateTensors (for non-constant tensors) and for tensors with no
// elements. Kernels must not retain views across Prepare and Eval: the
// arena may move when it is re-planned. Users read the fields and write
// an input's elements (through Data, a typed view or CopyFrom); Shape,
// Type and the Data slice itself belong to the interpreter, which
// refuses to Invoke on an input whose Shape or Data was changed (resize
// with ResizeInputTensor).
type Tensor struct {
	// Index is the tensor's position in its subgraph's tensor list.
	Index int
	// Name is the tensor's name in the model (may be empty).
	Name string
	// Type is the element type.
	Type DataType
	// Shape is the current shape (row-major, outermost first).
	Shape []int
	// Signature is the model's shape_signature, with -1 for a dimension
	// that may be resized; nil when the model gives none (then Shape is
	// the signature).
	Signature []int
	// Quant is the quantisation, nil for a float tensor.
	Quant *Quantization
	// Blockwise is a blockwise quantisation (TFLite's
	// BlockwiseQuantization details), nil for none; such a tensor has no
	// Quant.
	Blockwise *BlockwiseQuantization
	// Sparsity is the sparsity of a constant stored sparse in the model,
	// nil for none; Data holds the densified values all the same.
	Sparsity *Sparsity
	// Densify is set on a constant stored sparse that only DENSIFY
	// operators read (the loader did not expand it): Data holds the
	// stored values, not the tensor, and Densify writes the dense tensor
	// (Bytes long, row-major) into dst. nil for every other tensor.
	Densify func(dst []byte) error
	// Kind says whether the tensor is an activation, a constant, a
	// variable or precomputed from constants.
	Kind TensorKind
	// Data is the tensor's bytes, little-endian, exactly Bytes() long once
	// allocated.
	Data []byte
}

// NumElements is the product of the shape's dimensions (1 for a scalar).
// Shapes are checked for overflow when they are set, so this cannot
// overflow for a tensor the interpreter accepted.
func (t *Tensor) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Bytes is the size in bytes the tensor's data occupies: NumElements
// times the element size, the packed size for Int4, Uint4 and Int2 (see
// BytesFor), 0 for types without a fixed size.
func (t *Tensor) Bytes() int { return t.Type.BytesFor(t.NumElements()) }

// IsConstant reports whether t's bytes are fixed for as long as the
// interpreter's current allocation lasts and are already present: a
// ConstTensor (a view of the model) or a PrecomputedTensor (a DEQUANTIZE of
// a constant, computed before the operators that read it are prepared),
// holding at least Bytes() bytes. Kernels that pack or pre-process weights
// at Prepare check this instead of the kind.
func (t *Tensor) IsConstant() bool {
	return (t.Kind == ConstTensor || t.Kind == PrecomputedTensor) && len(t.Data) >= t.Bytes()
}

// Dim returns dimension i of the shape, counting from the end when i is
// negative (Dim(-1) is the innermost dimension).
func (t *Tensor) Dim(i int) int {
	if i < 0 {
		i += len(t.Shape)
	}
	return t.Shape[i]
}

// Rank is the number of dimensions.
func (t *Tensor) Rank() int { return len(t.Shape) }

// Scale returns the first (per-tensor) quantisation scale, 0 when the
// tensor is not quantised.
func (t *Tensor) Scale() float32 {
	if t.Quant == nil || len(t.Quant.Scale) == 0 {
		return 0
	}
	return t.Quant.Scale[0]
}

// ZeroPoint returns the first (per-tensor) zero point, 0 when the tensor
// is not quantised.
func (t *Tensor) ZeroPoint() int32 {
	if t.Quant == nil || len(t.Quant.ZeroPoint) == 0 {
		return 0
	}
	return int32(t.Quant.ZeroPoint[0])
}

// String describes the tensor for error messages: index, name, type and
// shape, e.g. `tensor 3 "input" float32[1 28 28]`.
func (t *Tensor) String() string {
	return fmt.Sprintf("tensor %d %q %s%v", t.Index, t.Name, t.Type, t.Shape)
}

// View reinterprets the bytes b (a tensor's Data or a scratch buffer) as
// len(b)/size elements of type E sharing b's memory; it returns nil when b
// is shorter than one element. It does not check alignment: the
// interpreter aligns every tensor's Data and scratch buffer to 64 bytes, so
// kernels may view them as any element type. Kernels use it for element
// types Tensor has no method for (uint64 words, [2]uint64 blocks).
func View[E any](b []byte) []E {
	var z E
	size := int(unsafe.Sizeof(z))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}

// The typed views below check the tensor's Type: each returns nil when
// the tensor does not hold its element type (Float32s on an int8 tensor
// is nil, never int8 bytes reinterpreted as float32s of the wrong
// length), and when the tensor has no data yet (before AllocateTensors).
// A nil view has length 0, so a copy into it copies nothing and an index
// into it panics: check it, or use Elements, which returns an error
// saying what is wrong. The views share the tensor's memory: writing
// them writes the tensor. Kernels that move elements of any type by
// their size use View on Data instead.

// Float32s returns the data of a Float32 tensor as []float32 sharing its
// memory, nil for any other type.
func (t *Tensor) Float32s() []float32 { return typedView[float32](t, Float32) }

// Float64s returns the data of a Float64 tensor as []float64 sharing its
// memory, nil for any other type.
func (t *Tensor) Float64s() []float64 { return typedView[float64](t, Float64) }

// Int8s returns the data of an Int8 tensor as []int8 sharing its memory,
// nil for any other type.
func (t *Tensor) Int8s() []int8 { return typedView[int8](t, Int8) }

// Uint8s returns the data of a Uint8 tensor as []uint8 (the same slice as
// Data), nil for any other type; Data itself is the raw bytes of any
// tensor.
func (t *Tensor) Uint8s() []uint8 {
	if t.Type != Uint8 {
		return nil
	}
	return t.Data
}

// Int16s returns the data of an Int16 tensor as []int16 sharing its
// memory, nil for any other type.
func (t *Tensor) Int16s() []int16 { return typedView[int16](t, Int16) }

// Uint16s returns the data of a Uint16 tensor as []uint16 sharing its
// memory. Go has no 16-bit float type, so for Float16 (IEEE binary16) and
// BFloat16 tensors it returns the elements' bit patterns, one uint16 per
// element; it is nil for any other type.
func (t *Tensor) Uint16s() []uint16 {
	if t.Type == Float16 || t.Type == BFloat16 {
		return View[uint16](t.Data)
	}
	return typedView[uint16](t, Uint16)
}

// Int32s returns the data of an Int32 tensor as []int32 sharing its
// memory, nil for any other type.
func (t *Tensor) Int32s() []int32 { return typedView[int32](t, Int32) }

// Uint32s returns the data of a Uint32 tensor as []uint32 sharing its
// memory, nil for any other type.
func (t *Tensor) Uint32s() []uint32 { return typedView[uint32](t, Uint32) }

// Int64s returns the data of an Int64 tensor as []int64 sharing its
// memory, nil for any other type.
func (t *Tensor) Int64s() []int64 { return typedView[int64](t, Int64) }

// Uint64s returns the data of a Uint64 tensor as []uint64 sharing its
// memory, nil for any other type.
func (t *Tensor) Uint64s() []uint64 { return typedView[uint64](t, Uint64) }

// Bools returns the data of a Bool tensor as []bool sharing its memory
// (TFLite stores bool as one byte, 0 or 1), nil for any other type.
func (t *Tensor) Bools() []bool { return typedView[bool](t, Bool) }

// typedView is View of t.Data when t holds elements of type want, else
// nil.
func typedView[E any](t *Tensor, want DataType) []E {
	if t.Type != want {
		return nil
	}
	return View[E](t.Data)
}

// ShapeElements multiplies dims with overflow and sign checks: it returns
// the element count, or an error when a dimension is negative or the
// product (or the product times elemSize bytes) exceeds math.MaxInt32
// elements / math.MaxInt bytes (so that byte sizes fit an int on 32-bit
// platforms too). elemSize may be 0 to skip the byte check.
func ShapeElements(dims []int, elemSize int) (int, error) {
	n := int64(1)
	for i, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("dimension %d is negative (%d)", i, d)
		}
		if d != 0 && n > math.MaxInt32/int64(d) {
			return 0, fmt.Errorf("shape %v has more than %d elements", dims, math.MaxInt32)
		}
		n *= int64(d)
	}
	if elemSize > 0 && n > int64(math.MaxInt)/int64(elemSize) {
		return 0, fmt.Errorf("shape %v of %d-byte elements overflows", dims, elemSize)
	}
	return int(n), nil
}

// SameShape reports whether a and b have identical dimensions.
func SameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
