package metadata

import (
	"encoding/binary"
	"fmt"
	"math"
)

// FormatError is Parse's error for malformed metadata: Path names the
// field in schema terms ("model_metadata.subgraph_metadata[0].
// output_tensor_metadata[1].associated_files[0].name"), Offset the byte
// offset in the buffer (-1 when the buffer as a whole is at fault).
type FormatError struct {
	Path   string
	Offset int
	Reason string
}

// Error returns "metadata: path (byte offset): reason".
func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return "metadata: " + e.Path + ": " + e.Reason
	}
	return fmt.Sprintf("metadata: %s (byte %d): %s", e.Path, e.Offset, e.Reason)
}

// reader reads flatbuffer tables, vectors and strings with every offset
// checked. work is what is left of the budget: each table, vector element
// and string byte decoded spends some, so shared sub-tables cannot make
// decoding cost more than a constant times the buffer.
type reader struct {
	b    []byte
	work int64
}

// workPerByte is the budget per byte of input; the floor lets small
// buffers decode their handful of tables.
const (
	workPerByte = 8
	workFloor   = 1 << 16
)

// Work units spent per decoded item (roughly the bytes of Go memory it
// becomes).
const (
	tableWork   = 64
	elementWork = 8
	stringWork  = 16
)

// table is a position in the buffer holding a table.
type table struct {
	r      *reader
	pos    int // start of the table object
	vt     int // start of its vtable
	vtLen  int // vtable size in bytes
	objLen int // object size in bytes
	path   string
}

func (r *reader) errorf(path string, off int, format string, args ...any) error {
	return &FormatError{Path: path, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func (r *reader) spend(path string, off int, n int64) error {
	r.work -= n
	if r.work < 0 {
		return r.errorf(path, off, "decoding would take more work than a %d-byte buffer can need (shared tables repeated beyond the budget)", len(r.b))
	}
	return nil
}

func (r *reader) u32(at int) uint32 { return binary.LittleEndian.Uint32(r.b[at:]) }

// deref follows the uoffset at byte at to its target.
func (r *reader) deref(at int, path string) (int, error) {
	if at < 0 || at > len(r.b)-4 {
		return 0, r.errorf(path, at, "offset field lies outside the %d-byte buffer", len(r.b))
	}
	if at%4 != 0 {
		return 0, r.errorf(path, at, "offset field is not 4-byte aligned")
	}
	off := r.u32(at)
	if off == 0 {
		return 0, r.errorf(path, at, "offset 0 points at itself")
	}
	target := int64(at) + int64(off)
	if target > int64(len(r.b))-4 {
		return 0, r.errorf(path, at, "offset %d points past the end of the %d-byte buffer", off, len(r.b))
	}
	return int(target), nil
}

// tableAt checks the table whose object starts at pos.
func (r *reader) tableAt(pos int, path string) (table, error) {
	if err := r.spend(path, pos, tableWork); err != nil {
		return table{}, err
	}
	if pos%4 != 0 {
		return table{}, r.errorf(path, pos, "table is not 4-byte aligned")
	}
	vt := int64(pos) - int64(int32(r.u32(pos)))
	if vt < 0 || vt > int64(len(r.b))-4 || vt%2 != 0 {
		return table{}, r.errorf(path, pos, "vtable offset leads to byte %d, outside the buffer or misaligned", vt)
	}
	vtLen := int(binary.LittleEndian.Uint16(r.b[vt:]))
	objLen := int(binary.LittleEndian.Uint16(r.b[vt+2:]))
	if vtLen < 4 || vtLen%2 != 0 || vt+int64(vtLen) > int64(len(r.b)) {
		return table{}, r.errorf(path, int(vt), "vtable of %d bytes does not fit the buffer", vtLen)
	}
	if objLen < 4 || pos+objLen > len(r.b) {
		return table{}, r.errorf(path, pos, "table object of %d bytes does not fit the buffer", objLen)
	}
	return table{r: r, pos: pos, vt: int(vt), vtLen: vtLen, objLen: objLen, path: path}, nil
}

// field returns the byte position of field slot (size bytes), or -1 when
// the field is absent.
func (t table) field(slot, size int, name string) (int, error) {
	e := 4 + 2*slot
	if e+2 > t.vtLen {
		return -1, nil
	}
	fo := int(binary.LittleEndian.Uint16(t.r.b[t.vt+e:]))
	if fo == 0 {
		return -1, nil
	}
	if fo < 4 || fo+size > t.objLen {
		return -1, t.r.errorf(t.path+"."+name, t.pos, "field at object offset %d (%d bytes) lies outside the %d-byte table", fo, size, t.objLen)
	}
	return t.pos + fo, nil
}

func (t table) u8(slot int, name string) (uint8, error) {
	at, err := t.field(slot, 1, name)
	if at < 0 {
		return 0, err
	}
	return t.r.b[at], nil
}

func (t table) u32(slot int, name string) (uint32, error) {
	at, err := t.field(slot, 4, name)
	if at < 0 {
		return 0, err
	}
	return t.r.u32(at), nil
}

func (t table) i32(slot int, name string) (int32, error) {
	v, err := t.u32(slot, name)
	return int32(v), err
}

func (t table) f32(slot int, name string) (float32, error) {
	v, err := t.u32(slot, name)
	return math.Float32frombits(v), err
}

// ref follows the offset field slot; -1 when absent.
func (t table) ref(slot int, name string) (int, error) {
	at, err := t.field(slot, 4, name)
	if at < 0 {
		return -1, err
	}
	return t.r.deref(at, t.path+"."+name)
}

// child returns the sub-table in field slot (ok false when absent).
func (t table) child(slot int, name string) (table, bool, error) {
	pos, err := t.ref(slot, name)
	if pos < 0 {
		return table{}, false, err
	}
	c, err := t.r.tableAt(pos, t.path+"."+name)
	return c, err == nil, err
}

// str returns the string in field slot ("" when absent).
func (t table) str(slot int, name string) (string, error) {
	pos, err := t.ref(slot, name)
	if pos < 0 {
		return "", err
	}
	return t.r.stringAt(pos, t.path+"."+name)
}

func (r *reader) stringAt(pos int, path string) (string, error) {
	n := int64(r.u32(pos))
	if int64(pos)+4+n+1 > int64(len(r.b)) {
		return "", r.errorf(path, pos, "string of %d bytes (and its NUL) runs past the end of the buffer", n)
	}
	if err := r.spend(path, pos, stringWork+n); err != nil {
		return "", err
	}
	return string(r.b[pos+4 : pos+4+int(n)]), nil
}

// vector returns the position of the first element and the length of the
// vector of elem-byte elements in field slot (n = 0 when absent).
func (t table) vector(slot, elem int, name string) (start, n int, err error) {
	pos, err := t.ref(slot, name)
	if pos < 0 {
		return 0, 0, err
	}
	count := int64(t.r.u32(pos))
	if count*int64(elem) > int64(len(t.r.b))-int64(pos)-4 {
		return 0, 0, t.r.errorf(t.path+"."+name, pos, "vector of %d %d-byte elements runs past the end of the buffer", count, elem)
	}
	if err := t.r.spend(t.path+"."+name, pos, count*elementWork); err != nil {
		return 0, 0, err
	}
	return pos + 4, int(count), nil
}

func (t table) floats(slot int, name string) ([]float32, error) {
	start, n, err := t.vector(slot, 4, name)
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(t.r.u32(start + 4*i))
	}
	return out, nil
}

func (t table) uints(slot int, name string) ([]uint32, error) {
	start, n, err := t.vector(slot, 4, name)
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = t.r.u32(start + 4*i)
	}
	return out, nil
}

func (t table) bytes(slot int, name string) ([]byte, error) {
	start, n, err := t.vector(slot, 1, name)
	if err != nil || n == 0 {
		return nil, err
	}
	return append([]byte(nil), t.r.b[start:start+n]...), nil
}

func (t table) strings(slot int, name string) ([]string, error) {
	start, n, err := t.vector(slot, 4, name)
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		p := fmt.Sprintf("%s.%s[%d]", t.path, name, i)
		pos, err := t.r.deref(start+4*i, p)
		if err != nil {
			return nil, err
		}
		if out[i], err = t.r.stringAt(pos, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// tables decodes the vector of tables in field slot with dec.
func tables[T any](t table, slot int, name string, dec func(table) (T, error)) ([]T, error) {
	start, n, err := t.vector(slot, 4, name)
	if err != nil || n == 0 {
		return nil, err
	}
	out := make([]T, n)
	for i := range out {
		p := fmt.Sprintf("%s.%s[%d]", t.path, name, i)
		pos, err := t.r.deref(start+4*i, p)
		if err != nil {
			return nil, err
		}
		c, err := t.r.tableAt(pos, p)
		if err != nil {
			return nil, err
		}
		if out[i], err = dec(c); err != nil {
			return nil, err
		}
	}
	return out, nil
}
