// Package npy reads and writes NumPy .npy files holding one C-order array
// of a plain little-endian numeric dtype, as raw bytes plus an ops.DataType
// and a shape — exactly the form tensors have in tflrun, so an input file
// can be copied into a tensor and an output tensor written back without
// conversion.
//
// The format is NumPy's (numpy/lib/format.py, "NEP 1"): the magic string
// "\x93NUMPY", a major and minor version byte, a little-endian header
// length (2 bytes in version 1.0, 4 bytes in 2.0 and 3.0), and a header
// that is the repr of a Python dict with the keys 'descr', 'fortran_order'
// and 'shape', padded with spaces and ended by '\n' so that the data starts
// at a multiple of 64 bytes. Version 3.0 only allows UTF-8 in the header;
// for the plain dtypes handled here it is read as 2.0.
//
// Read accepts versions 1.0, 2.0 and 3.0; Write produces 1.0 (2.0 only when
// the header would not fit 1.0's 65535-byte limit, as NumPy does).
// Supported dtypes: <f2 (read and written as raw float16 bits), <f4, <f8,
// |i1, |u1, <i2, <u2, <i4, <u4, <i8, <u8, |b1, and the complex <c8 and
// <c16 (pairs of float32 or float64, real part first, as TFLite's
// COMPLEX64 and COMPLEX128 tensors hold them). Big-endian data,
// Fortran order, structured, string and object dtypes are refused with an
// error naming the problem.
//
// tflrun has its own reader and writer because codeberg.org/sbinet/npyio
// cannot write an N-dimensional shape from a flat buffer (it derives the
// shape from the Go value it is given), and tensors here are flat byte
// buffers with a separate shape.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tflrun/tflrun/ops"
)

// magic is the 6-byte prefix of every .npy file.
const magic = "\x93NUMPY"

// maxHeaderLen bounds the header we are willing to read. NumPy itself
// refuses headers over 10000 bytes unless told otherwise; a generous
// 1 MiB still protects against a corrupt 4-byte length field making us
// allocate gigabytes.
const maxHeaderLen = 1 << 20

// Array is one array read from a .npy file: its element type, its shape
// (outermost dimension first; empty for a 0-d scalar) and its elements as
// little-endian bytes in C (row-major) order, exactly
// NumElements()*Type.Size() long.
type Array struct {
	Type  ops.DataType
	Shape []int
	Data  []byte
	// Major and Minor are the format version the file was written in.
	Major, Minor byte
}

// NumElements is the product of the shape (1 for a 0-d array).
func (a *Array) NumElements() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// dtypes maps the NumPy type codes we support (without the byte-order
// character) to tensor types.
var dtypes = map[string]ops.DataType{
	"f2":  ops.Float16,
	"f4":  ops.Float32,
	"f8":  ops.Float64,
	"i1":  ops.Int8,
	"u1":  ops.Uint8,
	"i2":  ops.Int16,
	"u2":  ops.Uint16,
	"i4":  ops.Int32,
	"u4":  ops.Uint32,
	"i8":  ops.Int64,
	"u8":  ops.Uint64,
	"b1":  ops.Bool,
	"c8":  ops.Complex64,
	"c16": ops.Complex128,
}

// Descr returns the NumPy dtype descriptor for typ as NumPy writes it on
// a little-endian machine ("<f4", "|i1", ...), or an error for a type that
// has no plain NumPy equivalent here (string, resource, int4, bfloat16).
func Descr(typ ops.DataType) (string, error) {
	for code, t := range dtypes {
		if t != typ {
			continue
		}
		if typ.Size() == 1 {
			return "|" + code, nil
		}
		return "<" + code, nil
	}
	return "", fmt.Errorf("npy: tensor type %s has no supported NumPy dtype", typ)
}

// supportedDescrs lists the descriptors parseDescr accepts, for errors.
const supportedDescrs = "<f2 <f4 <f8 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 |b1 <c8 <c16"

// parseDescr maps a descriptor string to a tensor type. One-byte types
// may carry any byte-order mark ('|', '<', '>', '='); wider ones must say
// '<' explicitly ('=', native order, is never written into a .npy file by
// NumPy, which records the concrete order, so it is refused).
func parseDescr(d string) (ops.DataType, error) {
	if len(d) != 3 && len(d) != 4 {
		return 0, fmt.Errorf("npy: unsupported dtype %q (supported: %s)", d, supportedDescrs)
	}
	order, code := d[0], d[1:]
	typ, ok := dtypes[code]
	if !ok {
		return 0, fmt.Errorf("npy: unsupported dtype %q (supported: %s)", d, supportedDescrs)
	}
	if typ.Size() == 1 {
		if order != '|' && order != '<' && order != '>' && order != '=' {
			return 0, fmt.Errorf("npy: bad byte order %q in dtype %q", order, d)
		}
		return typ, nil
	}
	switch order {
	case '<':
		return typ, nil
	case '>':
		return 0, fmt.Errorf("npy: big-endian dtype %q is not supported (convert with arr.astype(arr.dtype.newbyteorder('<')))", d)
	default:
		return 0, fmt.Errorf("npy: dtype %q has byte order %q; only little-endian '<' is supported", d, order)
	}
}

// ReadFile reads the .npy file at path; errors are prefixed with the path.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Read reads one .npy array from r: the whole of r must be the file (bytes
// after the data are an error, as is data shorter than the shape says).
// Errors name the problem: bad magic, unsupported version, a header length
// past the end of the input, a malformed header, an unsupported dtype,
// fortran_order True, a negative or overflowing shape, or a data size that
// does not match the shape.
func Read(r io.Reader) (*Array, error) {
	var pre [8]byte
	if n, err := io.ReadFull(r, pre[:]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, errors.New("npy: empty input (not a .npy file)")
		}
		return nil, fmt.Errorf("npy: truncated preamble (%d of 8 bytes)", n)
	}
	if string(pre[:6]) != magic {
		return nil, fmt.Errorf("npy: bad magic %q (not a .npy file)", pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, errors.New("npy: truncated header length")
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, errors.New("npy: truncated header length")
		}
		h := binary.LittleEndian.Uint32(b[:])
		if h > maxHeaderLen {
			return nil, fmt.Errorf("npy: header length %d exceeds the %d-byte limit", h, maxHeaderLen)
		}
		hlen = int(h)
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d (supported: 1.0, 2.0, 3.0)", major, minor)
	}
	if minor != 0 {
		return nil, fmt.Errorf("npy: unsupported format version %d.%d (supported: 1.0, 2.0, 3.0)", major, minor)
	}
	header := make([]byte, hlen)
	if n, err := io.ReadFull(r, header); err != nil {
		return nil, fmt.Errorf("npy: header length %d runs past the end of the input (%d header bytes present)", hlen, n)
	}
	h, err := parseHeader(string(header))
	if err != nil {
		return nil, err
	}
	typ, err := parseDescr(h.descr)
	if err != nil {
		return nil, err
	}
	if h.fortran {
		return nil, errors.New("npy: fortran_order True is not supported (save a C-order array: np.ascontiguousarray)")
	}
	count, err := ops.ShapeElements(h.shape, typ.Size())
	if err != nil {
		return nil, fmt.Errorf("npy: shape %v: %w", h.shape, err)
	}
	want := int64(count) * int64(typ.Size())
	// Read at most one byte more than the shape needs: that detects both
	// short and long data without trusting the shape for an allocation
	// larger than the input really is.
	data, err := io.ReadAll(io.LimitReader(r, want+1))
	if err != nil {
		return nil, fmt.Errorf("npy: reading data: %w", err)
	}
	if int64(len(data)) < want {
		return nil, fmt.Errorf("npy: data is %d bytes, shape %v of %s needs %d", len(data), h.shape, typ, want)
	}
	if int64(len(data)) > want {
		return nil, fmt.Errorf("npy: extra bytes after the %d data bytes of shape %v of %s", want, h.shape, typ)
	}
	return &Array{Type: typ, Shape: h.shape, Data: data, Major: major, Minor: minor}, nil
}

// Write writes a version 1.0 .npy file (2.0 if the header is longer than
// 65535 bytes) holding data as an array of typ with the given shape in C
// order. len(data) must equal the shape's element count times the type's
// size, and the type must have a NumPy dtype (see Descr).
func Write(w io.Writer, typ ops.DataType, shape []int, data []byte) error {
	descr, err := Descr(typ)
	if err != nil {
		return err
	}
	count, err := ops.ShapeElements(shape, typ.Size())
	if err != nil {
		return fmt.Errorf("npy: shape %v: %w", shape, err)
	}
	if want := count * typ.Size(); len(data) != want {
		return fmt.Errorf("npy: %d data bytes, shape %v of %s needs %d", len(data), shape, typ, want)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shapeRepr(shape))
	var buf bytes.Buffer
	buf.WriteString(magic)
	// Pad so that magic + version + length + header is a multiple of 64;
	// the header ends with '\n'.
	pad := func(prefix int) int { return (64 - (prefix+len(dict)+1)%64) % 64 }
	if p := pad(10); len(dict)+p+1 <= 0xffff {
		buf.Write([]byte{1, 0})
		var l [2]byte
		binary.LittleEndian.PutUint16(l[:], uint16(len(dict)+p+1))
		buf.Write(l[:])
		buf.WriteString(dict)
		buf.WriteString(strings.Repeat(" ", p))
	} else {
		p = pad(12)
		buf.Write([]byte{2, 0})
		var l [4]byte
		binary.LittleEndian.PutUint32(l[:], uint32(len(dict)+p+1))
		buf.Write(l[:])
		buf.WriteString(dict)
		buf.WriteString(strings.Repeat(" ", p))
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// WriteFile writes an array to path with Write, creating or truncating
// the file.
func WriteFile(path string, typ ops.DataType, shape []int, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, typ, shape, data); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// shapeRepr formats a shape as a Python tuple: "()", "(3,)", "(1, 28, 28)".
func shapeRepr(shape []int) string {
	switch len(shape) {
	case 0:
		return "()"
	case 1:
		return fmt.Sprintf("(%d,)", shape[0])
	}
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = fmt.Sprint(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
