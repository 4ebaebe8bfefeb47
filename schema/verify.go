package schema

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// Limits that bound the verifier's work on hostile input. They are the
// defaults of the C++ flatbuffers Verifier that TFLite's VerifyModelBuffer
// uses.
const (
	// MaxTableDepth is the deepest nesting of tables VerifyModel accepts.
	MaxTableDepth = 64
	// MaxTables is the most tables VerifyModel visits in one buffer; a
	// buffer can make many offsets share one table, so without this bound
	// the walk could be exponentially longer than the buffer.
	MaxTables = 1000000
	// maxFlatbufferSize is flatbuffers' 2 GiB limit: offsets are 32-bit and
	// the C++ verifier requires size < 2^31-1. Files larger than this keep
	// their constant data after the flatbuffer (Buffer.offset/size).
	maxFlatbufferSize = 1<<31 - 2
)

// FormatError is the error VerifyModel returns for a malformed model. Path
// names the defective part in schema terms, starting at "model", e.g.
// "model.subgraphs[0].tensors[5].quantization.scale"; Offset is the byte
// offset of the defect in the buffer (-1 when the buffer as a whole is at
// fault); Reason says what is wrong, with the offsets and sizes involved.
type FormatError struct {
	Path   string
	Offset int64
	Reason string
}

// Error returns "path: reason".
func (e *FormatError) Error() string { return e.Path + ": " + e.Reason }

// VerifyModel checks that buf is a structurally sound TFLite model before
// any generated accessor reads it, with the rules of the C++ flatbuffers
// Verifier behind TFLite's VerifyModelBuffer:
//
//   - len(buf) >= 8, the root offset points inside the buffer, and bytes 4..8
//     are the file identifier "TFL3";
//   - every table reachable from Model that this schema describes (the
//     descriptors in verify_tables.go: operator codes, subgraphs, tensors,
//     quantization and its details union, sparsity and its index-vector
//     unions, variant subtypes, operators with both builtin-options unions
//     and every member table, buffers, metadata, signature defs, tensor
//     maps, external buffers) has its vtable inside the buffer, 2-byte
//     aligned, of even
//     size >= 4, its object (size from the vtable) inside the buffer, and
//     every known field inside the object and aligned to its size relative
//     to the start of buf;
//   - every table, vector and string offset is 4-byte aligned, non-zero,
//     and lands inside the buffer; vectors (count * element size, computed
//     without overflow) and strings plus their NUL terminator fit;
//   - tables nest at most MaxTableDepth deep and at most MaxTables are
//     visited, so a hostile buffer cannot make the walk run long;
//   - Buffer.offset/size and Operator.large_custom_options_offset/size
//     (data stored after the flatbuffer in files over 2 GB), when the
//     offset is > 1, describe a range inside buf.
//
// A union whose type value this schema does not know (written by a newer
// TFLite) is accepted and its table is not read, as the C++ verifier does;
// callers must dispatch on the union type and ignore unknown ones. A union
// value present with type NONE is checked to point inside the buffer but is
// not read either. Fields unknown to this schema (from a newer writer) are
// not checked and cannot be read through the generated code.
//
// Beyond the C++ verifier, the vtable must be at least 4 bytes and every
// known field must lie inside its table's object; the object size itself
// need not be even (flatbuffers does not promise that). Vector elements
// wider than 4 bytes and Buffer.data are not checked for their natural or
// force_align alignment, as in C++: many real models (TFLite's MLIR
// converter output among them) have Buffer.data only 4-byte aligned, so
// code that makes typed views of constant data must check alignment
// itself. Checks of meaning (indices in range, shapes, types) are the
// interpreter's job, not this function's.
//
// Once VerifyModel returns nil, GetRootAsModel(buf, 0) and every generated
// accessor reachable from it (including UnPack) do not panic, provided
// indexed accessors are called with j < the matching ...Length() and union
// values are read as their declared type. The error is a *FormatError.
func VerifyModel(buf []byte) error {
	if err := verifyBuffer(buf, modelDesc); err != nil {
		return err
	}
	return checkOutOfLineData(buf)
}

// verifyBuffer checks the identifier and the root table of type root.
func verifyBuffer(buf []byte, root *tableDesc) error {
	v := verifier{buf: buf, n: int64(len(buf))}
	if v.n > maxFlatbufferSize {
		// The flatbuffer itself must lie in the first 2 GiB; the rest of a
		// larger file can only be reached through Buffer.offset.
		v.n = maxFlatbufferSize
	}
	if v.n < 8 {
		return &FormatError{Path: "model", Offset: -1, Reason: "buffer of " +
			itoa(v.n) + " bytes is too short for a TFLite flatbuffer (need at least 8)"}
	}
	if id := string(buf[4:8]); id != ModelIdentifier {
		return &FormatError{Path: "model", Offset: 4, Reason: "file identifier at offset 4 is " +
			strconv.Quote(id) + ", want \"TFL3\" (not a TFLite model, or a size-prefixed one)"}
	}
	v.path = append(v.path, pathSeg{name: "model", idx: -1})
	pos, err := v.offset(0, "root offset")
	if err != nil {
		return err
	}
	return v.table(root, pos)
}

// ModelIdentifier is the 4-byte file identifier of TFLite model files
// (schema version 3), stored at bytes 4..8.
const ModelIdentifier = "TFL3"

// checkOutOfLineData checks the ranges of data that files over 2 GB keep
// after the flatbuffer. It runs after the structural pass, so the generated
// accessors are safe to use.
func checkOutOfLineData(buf []byte) error {
	m := GetRootAsModel(buf, 0)
	size := uint64(len(buf))
	inFile := func(off, n uint64) bool { return off <= size && n <= size-off }
	var b Buffer
	for i := 0; i < m.BuffersLength(); i++ {
		m.Buffers(&b, i)
		if off, n := b.Offset(), b.Size(); off > 1 && !inFile(off, n) {
			return &FormatError{Path: "model.buffers[" + strconv.Itoa(i) + "]", Offset: -1,
				Reason: "data range offset " + utoa(off) + " size " + utoa(n) +
					" lies outside the " + utoa(size) + "-byte file"}
		}
	}
	var sg SubGraph
	var op Operator
	for s := 0; s < m.SubgraphsLength(); s++ {
		m.Subgraphs(&sg, s)
		for o := 0; o < sg.OperatorsLength(); o++ {
			sg.Operators(&op, o)
			if off, n := op.LargeCustomOptionsOffset(), op.LargeCustomOptionsSize(); off > 1 && !inFile(off, n) {
				return &FormatError{Path: "model.subgraphs[" + strconv.Itoa(s) + "].operators[" +
					strconv.Itoa(o) + "]", Offset: -1,
					Reason: "large custom options range offset " + utoa(off) + " size " + utoa(n) +
						" lies outside the " + utoa(size) + "-byte file"}
			}
		}
	}
	return nil
}

// ---- the generic verifier ------------------------------------------------

// fieldKind says how a table field is stored.
type fieldKind uint8

const (
	scalarField fieldKind = iota // inline scalar of size bytes
	stringField                  // offset to a NUL-terminated byte vector
	vectorField                  // offset to a vector of size-byte scalars
	tableField                   // offset to a table
	tablesField                  // offset to a vector of table offsets
	unionField                   // 1-byte type at slot, table offset at slot+1
)

// fieldDesc describes one field of a table. slot is the field's id: its
// vtable entry is at byte 4+2*slot of the vtable.
type fieldDesc struct {
	name  string
	slot  int
	kind  fieldKind
	size  int    // scalar size, or vector element size
	elem  string // vector element type, for messages
	table *tableDesc
	union *unionDesc
}

// tableDesc lists the fields of a table that the generated code can read.
type tableDesc struct {
	name   string
	fields []fieldDesc
}

// unionDesc lists a union's member tables; members[i] has type number i+1.
type unionDesc struct {
	name    string
	members []*tableDesc
}

// pathSeg is one step of the path to the part being checked: a field name,
// optionally with a vector index or a union member name.
type pathSeg struct {
	name   string
	member string
	idx    int
}

type verifier struct {
	buf    []byte
	n      int64 // bytes of buf that belong to the flatbuffer
	depth  int
	tables int
	path   []pathSeg
}

func (v *verifier) push(s pathSeg) { v.path = append(v.path, s) }
func (v *verifier) pop()           { v.path = v.path[:len(v.path)-1] }

// fail builds a FormatError located at the current path.
func (v *verifier) fail(off int64, reason string) error {
	var sb strings.Builder
	for i, s := range v.path {
		if i > 0 && s.name != "" {
			sb.WriteByte('.')
		}
		sb.WriteString(s.name)
		if s.member != "" {
			sb.WriteString("<" + s.member + ">")
		}
		if s.idx >= 0 {
			sb.WriteString("[" + strconv.Itoa(s.idx) + "]")
		}
	}
	return &FormatError{Path: sb.String(), Offset: off, Reason: reason}
}

// in reports whether [off, off+size) lies inside the flatbuffer.
func (v *verifier) in(off, size int64) bool {
	return off >= 0 && size >= 0 && off <= v.n && size <= v.n-off
}

// The readers below are only called on ranges in() has accepted.
func (v *verifier) u16(off int64) uint16 { return binary.LittleEndian.Uint16(v.buf[off:]) }
func (v *verifier) u32(off int64) uint32 { return binary.LittleEndian.Uint32(v.buf[off:]) }

// offset reads the uoffset stored at off (what: its description) and
// returns the absolute position it points to, after checking, as the C++
// VerifyOffset does, that it is aligned, non-zero, not negative as a signed
// offset, and lands inside the buffer.
func (v *verifier) offset(off int64, what string) (int64, error) {
	if off%4 != 0 {
		return 0, v.fail(off, what+" at offset "+itoa(off)+" is not 4-byte aligned")
	}
	if !v.in(off, 4) {
		return 0, v.fail(off, what+" at offset "+itoa(off)+" runs past the end of the "+
			itoa(v.n)+"-byte buffer")
	}
	o := v.u32(off)
	if o == 0 {
		return 0, v.fail(off, what+" at offset "+itoa(off)+" is 0 (points at itself)")
	}
	if int32(o) < 0 {
		return 0, v.fail(off, what+" at offset "+itoa(off)+" is "+utoa(uint64(o))+
			", beyond flatbuffers' 2 GiB range")
	}
	target := off + int64(o)
	if !v.in(target, 1) {
		return 0, v.fail(off, what+" at offset "+itoa(off)+" points to "+itoa(target)+
			", past the end of the "+itoa(v.n)+"-byte buffer")
	}
	return target, nil
}

// vector checks the length word and the body of a vector (or string) of
// count elements of elemSize bytes at pos, and returns count. kind names the
// elements for messages ("float32", "table offset", "byte").
func (v *verifier) vector(pos int64, elemSize int, kind string) (int64, error) {
	if pos%4 != 0 {
		return 0, v.fail(pos, "vector at offset "+itoa(pos)+" is not 4-byte aligned")
	}
	if !v.in(pos, 4) {
		return 0, v.fail(pos, "vector length at offset "+itoa(pos)+" runs past the end of the "+
			itoa(v.n)+"-byte buffer")
	}
	count := int64(v.u32(pos)) // < 2^32, so count*elemSize cannot overflow int64
	if !v.in(pos+4, count*int64(elemSize)) {
		return 0, v.fail(pos, "vector of "+itoa(count)+" "+kind+" at offset "+itoa(pos)+
			" runs past the end of the "+itoa(v.n)+"-byte buffer")
	}
	return count, nil
}

// str checks a string: a byte vector followed by a NUL inside the buffer.
func (v *verifier) str(pos int64) error {
	count, err := v.vector(pos, 1, "bytes")
	if err != nil {
		return err
	}
	end := pos + 4 + count
	if !v.in(end, 1) {
		return v.fail(pos, "string of "+itoa(count)+" bytes at offset "+itoa(pos)+
			" has no NUL terminator inside the "+itoa(v.n)+"-byte buffer")
	}
	if v.buf[end] != 0 {
		return v.fail(pos, "string of "+itoa(count)+" bytes at offset "+itoa(pos)+
			" is not NUL-terminated (byte at "+itoa(end)+" is "+itoa(int64(v.buf[end]))+")")
	}
	return nil
}

// table checks the table of type t at pos and, recursively, everything its
// known fields point to.
func (v *verifier) table(t *tableDesc, pos int64) error {
	v.depth++
	v.tables++
	defer func() { v.depth-- }()
	if v.depth > MaxTableDepth {
		return v.fail(pos, "tables nested more than "+strconv.Itoa(MaxTableDepth)+" deep")
	}
	if v.tables > MaxTables {
		return v.fail(pos, "more than "+strconv.Itoa(MaxTables)+" tables in the buffer")
	}
	if pos%4 != 0 {
		return v.fail(pos, t.name+" table at offset "+itoa(pos)+" is not 4-byte aligned")
	}
	if !v.in(pos, 4) {
		return v.fail(pos, t.name+" table at offset "+itoa(pos)+" runs past the end of the "+
			itoa(v.n)+"-byte buffer")
	}
	vt := pos - int64(int32(v.u32(pos)))
	if vt%2 != 0 || !v.in(vt, 4) {
		return v.fail(pos, t.name+" table at offset "+itoa(pos)+" has its vtable at "+itoa(vt)+
			", misaligned or outside the "+itoa(v.n)+"-byte buffer")
	}
	vsize, osize := int64(v.u16(vt)), int64(v.u16(vt+2))
	if vsize < 4 || vsize%2 != 0 || !v.in(vt, vsize) {
		return v.fail(vt, t.name+" vtable at offset "+itoa(vt)+" has size "+itoa(vsize)+
			" (must be even, >= 4 and inside the "+itoa(v.n)+"-byte buffer)")
	}
	if osize < 4 || !v.in(pos, osize) {
		return v.fail(pos, t.name+" table at offset "+itoa(pos)+" has object size "+itoa(osize)+
			" (must be >= 4 and inside the "+itoa(v.n)+"-byte buffer)")
	}
	for i := range t.fields {
		if err := v.field(&t.fields[i], pos, vt, vsize, osize); err != nil {
			return err
		}
	}
	return nil
}

// slotOffset returns the offset of field slot within its table (0 when the
// vtable has no entry for it, i.e. the field is absent).
func (v *verifier) slotOffset(vt, vsize int64, slot int) int64 {
	e := 4 + 2*int64(slot)
	if e+2 > vsize {
		return 0
	}
	return int64(v.u16(vt + e))
}

// inline checks that a present field of size bytes at offset off of the
// table at pos lies inside the object and is aligned (relative to buf[0]),
// and returns its absolute position.
func (v *verifier) inline(name string, size int, pos, off, osize int64) (int64, error) {
	at := pos + off
	if off < 4 || off+int64(size) > osize {
		return 0, v.fail(at, "field "+name+" ("+strconv.Itoa(size)+" bytes at table offset "+
			itoa(off)+") lies outside its "+itoa(osize)+"-byte table at "+itoa(pos))
	}
	if at%int64(size) != 0 {
		return 0, v.fail(at, "field "+name+" at offset "+itoa(at)+" is not "+
			strconv.Itoa(size)+"-byte aligned")
	}
	return at, nil
}

// field checks one field of the table at pos.
func (v *verifier) field(f *fieldDesc, pos, vt, vsize, osize int64) error {
	if f.kind == unionField {
		return v.unionValue(f, pos, vt, vsize, osize)
	}
	off := v.slotOffset(vt, vsize, f.slot)
	if off == 0 {
		return nil
	}
	size := 4
	if f.kind == scalarField {
		size = f.size
	}
	at, err := v.inline(f.name, size, pos, off, osize)
	if err != nil || f.kind == scalarField {
		return err
	}
	v.push(pathSeg{name: f.name, idx: -1})
	defer v.pop()
	target, err := v.offset(at, "offset")
	if err != nil {
		return err
	}
	switch f.kind {
	case stringField:
		return v.str(target)
	case vectorField:
		_, err := v.vector(target, f.size, f.elem)
		return err
	case tableField:
		return v.table(f.table, target)
	case tablesField:
		count, err := v.vector(target, 4, f.table.name+" table offsets")
		if err != nil {
			return err
		}
		for i := int64(0); i < count; i++ {
			v.path[len(v.path)-1].idx = int(i)
			elem := target + 4 + 4*i
			// Like the C++ verifier, a vector element offset is added as
			// an unsigned 32-bit value; the table checks catch the rest.
			if err := v.table(f.table, elem+int64(v.u32(elem))); err != nil {
				return err
			}
		}
	}
	return nil
}

// unionValue checks a union field: the type byte at f.slot and the table
// offset at f.slot+1, read as the member table the type names.
func (v *verifier) unionValue(f *fieldDesc, pos, vt, vsize, osize int64) error {
	typ := 0
	if off := v.slotOffset(vt, vsize, f.slot); off != 0 {
		at, err := v.inline(f.name+"_type", 1, pos, off, osize)
		if err != nil {
			return err
		}
		typ = int(v.buf[at])
	}
	off := v.slotOffset(vt, vsize, f.slot+1)
	if off == 0 {
		return nil
	}
	at, err := v.inline(f.name, 4, pos, off, osize)
	if err != nil {
		return err
	}
	seg := pathSeg{name: f.name, idx: -1}
	if typ >= 1 && typ <= len(f.union.members) {
		seg.member = f.union.members[typ-1].name
	}
	v.push(seg)
	defer v.pop()
	target, err := v.offset(at, "offset")
	if err != nil {
		return err
	}
	if seg.member == "" {
		// NONE, or a type this schema does not know: not read (C++ rule).
		return nil
	}
	return v.table(f.union.members[typ-1], target)
}

func itoa(x int64) string  { return strconv.FormatInt(x, 10) }
func utoa(x uint64) string { return strconv.FormatUint(x, 10) }
