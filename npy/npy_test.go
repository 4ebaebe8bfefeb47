package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// file builds a .npy file by hand: magic, version, length field of the
// version's width, header text and data.
func file(major byte, header string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.Write([]byte{major, 0})
	if major == 1 {
		var l [2]byte
		binary.LittleEndian.PutUint16(l[:], uint16(len(header)))
		b.Write(l[:])
	} else {
		var l [4]byte
		binary.LittleEndian.PutUint32(l[:], uint32(len(header)))
		b.Write(l[:])
	}
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		typ   ops.DataType
		shape []int
	}{
		{ops.Float32, []int{1, 28, 28}},
		{ops.Float64, []int{3}},
		{ops.Int8, []int{1, 10}},
		{ops.Uint8, []int{2, 3, 4, 5}},
		{ops.Int16, []int{}},
		{ops.Uint16, []int{7}},
		{ops.Int32, []int{0}},
		{ops.Uint32, []int{2, 0, 3}},
		{ops.Int64, []int{2, 2}},
		{ops.Uint64, []int{1}},
		{ops.Bool, []int{5}},
		{ops.Float16, []int{4}},
		{ops.Complex64, []int{2, 3}},
		{ops.Complex128, []int{1, 2}},
	}
	for _, c := range cases {
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		data := make([]byte, n*c.typ.Size())
		for i := range data {
			data[i] = byte(i*7 + 3)
		}
		if c.typ == ops.Bool {
			for i := range data {
				data[i] &= 1
			}
		}
		var buf bytes.Buffer
		if err := Write(&buf, c.typ, c.shape, data); err != nil {
			t.Fatalf("%s%v: %v", c.typ, c.shape, err)
		}
		if buf.Len()%64 != len(data)%64 {
			t.Errorf("%s%v: header not padded to 64 bytes (file %d bytes, data %d)", c.typ, c.shape, buf.Len(), len(data))
		}
		if buf.Bytes()[6] != 1 || buf.Bytes()[7] != 0 {
			t.Errorf("%s%v: wrote version %d.%d, want 1.0", c.typ, c.shape, buf.Bytes()[6], buf.Bytes()[7])
		}
		hdr := buf.Bytes()[10 : buf.Len()-len(data)]
		if hdr[len(hdr)-1] != '\n' {
			t.Errorf("%s%v: header does not end with newline", c.typ, c.shape)
		}
		if got := int(binary.LittleEndian.Uint16(buf.Bytes()[8:10])); got != len(hdr) {
			t.Errorf("%s%v: header length field %d, header is %d bytes", c.typ, c.shape, got, len(hdr))
		}
		a, err := Read(&buf)
		if err != nil {
			t.Fatalf("%s%v: read back: %v", c.typ, c.shape, err)
		}
		if a.Type != c.typ || !ops.SameShape(a.Shape, c.shape) || !bytes.Equal(a.Data, data) {
			t.Errorf("%s%v: read back %s%v (%d bytes)", c.typ, c.shape, a.Type, a.Shape, len(a.Data))
		}
	}
}

// TestHeaderText checks the exact header NumPy writes for a few shapes
// (numpy.lib.format.write_array, format 1.0, 64-byte alignment).
func TestHeaderText(t *testing.T) {
	cases := []struct {
		typ   ops.DataType
		shape []int
		dict  string
	}{
		{ops.Float32, []int{1, 28, 28}, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 28, 28), }"},
		{ops.Int8, []int{10}, "{'descr': '|i1', 'fortran_order': False, 'shape': (10,), }"},
		{ops.Bool, []int{}, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }"},
		{ops.Complex64, []int{3}, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }"},
		{ops.Complex128, []int{1, 2}, "{'descr': '<c16', 'fortran_order': False, 'shape': (1, 2), }"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		if err := Write(&buf, c.typ, c.shape, make([]byte, n*c.typ.Size())); err != nil {
			t.Fatal(err)
		}
		want := "\x93NUMPY\x01\x00v\x00" + c.dict + strings.Repeat(" ", 128-10-len(c.dict)-1) + "\n"
		if got := buf.String()[:128]; got != want {
			t.Errorf("%s%v: header\n%q\nwant\n%q", c.typ, c.shape, got, want)
		}
	}
}

func TestReadHandMade(t *testing.T) {
	f32 := make([]byte, 8)
	binary.LittleEndian.PutUint32(f32, math.Float32bits(1.5))
	binary.LittleEndian.PutUint32(f32[4:], math.Float32bits(-2))
	cases := []struct {
		name  string
		in    []byte
		typ   ops.DataType
		shape []int
	}{
		{"v1 minimal header, no padding", file(1, "{'descr':'<f4','fortran_order':False,'shape':(2,)}", f32), ops.Float32, []int{2}},
		{"v1 16-byte padding (old NumPy)", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }   \n", f32), ops.Float32, []int{2}},
		{"v2", file(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }\n", f32), ops.Float32, []int{1, 2}},
		{"v3", file(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }\n", f32), ops.Float32, []int{2, 1}},
		{"keys reordered, double quotes", file(1, `{"shape": (2,), "fortran_order": False, "descr": "<f4"}`+"\n", f32), ops.Float32, []int{2}},
		{"list shape, long suffix", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2L], }\n", f32), ops.Float32, []int{2}},
		{"scalar", file(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n", []byte{1, 0, 0, 0}), ops.Int32, []int{}},
		{"empty", file(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (0, 3), }\n", nil), ops.Int64, []int{0, 3}},
		{"u1 with <", file(1, "{'descr': '<u1', 'fortran_order': False, 'shape': (3,), }\n", []byte{1, 2, 3}), ops.Uint8, []int{3}},
		{"f2", file(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }\n", []byte{0, 0x3c}), ops.Float16, []int{1}},
	}
	for _, c := range cases {
		a, err := Read(bytes.NewReader(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if a.Type != c.typ || !ops.SameShape(a.Shape, c.shape) {
			t.Errorf("%s: got %s%v, want %s%v", c.name, a.Type, a.Shape, c.typ, c.shape)
		}
		if a.Shape == nil {
			t.Errorf("%s: nil shape, want empty non-nil", c.name)
		}
	}
	a, _ := Read(bytes.NewReader(file(1, "{'descr':'<f4','fortran_order':False,'shape':(2,)}", f32)))
	if v := math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4:])); v != -2 {
		t.Errorf("element 1 = %v, want -2", v)
	}
}

func TestReadErrors(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n"
	data := make([]byte, 8)
	long := file(1, good, data)
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "empty input"},
		{"truncated preamble", []byte("\x93NUM"), "truncated preamble"},
		{"bad magic", append([]byte("\x93NUMPZ\x01\x00"), long[8:]...), "bad magic"},
		{"version 4", append([]byte("\x93NUMPY\x04\x00"), long[8:]...), "unsupported format version 4.0"},
		{"version 1.1", append([]byte("\x93NUMPY\x01\x01"), long[8:]...), "unsupported format version 1.1"},
		{"truncated length", []byte("\x93NUMPY\x01\x00\x10"), "truncated header length"},
		{"header past EOF", long[:40], "runs past the end"},
		{"huge v2 header", []byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"), "exceeds"},
		{"data too short", long[:len(long)-1], "data is 7 bytes"},
		{"data too long", append(append([]byte{}, long...), 0), "extra bytes"},
		{"fortran", file(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }\n", data), "fortran_order True"},
		{"big endian", file(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n", data), "big-endian"},
		{"complex256", file(1, "{'descr': '<c32', 'fortran_order': False, 'shape': (1,), }\n", data), "unsupported dtype"},
		{"string dtype", file(1, "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }\n", data), "unsupported dtype"},
		{"object dtype", file(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }\n", data), "unsupported dtype"},
		{"structured", file(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }\n", data), "structured"},
		{"missing shape", file(1, "{'descr': '<f4', 'fortran_order': False, }\n", data), `no "shape"`},
		{"extra key", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", data), "unexpected key"},
		{"duplicate key", file(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n", data), "twice"},
		{"negative dim", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n", data), "negative"},
		{"huge dim", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,), }\n", data), "out of range"},
		{"overflowing shape", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }\n", data), "elements"},
		{"not a dict", file(1, "[1, 2]\n", data), "does not start with '{'"},
		{"unterminated", file(1, "{'descr': '<f4", data), "unterminated"},
		{"bad bool", file(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }\n", data), "True or False"},
		{"shape not tuple", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': 2, }\n", data), "tuple"},
		{"garbage after dict", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x\n", data), "after the header"},
	}
	for _, c := range cases {
		_, err := Read(bytes.NewReader(c.in))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, ops.Float32, []int{2, 2}, make([]byte, 15)); err == nil || !strings.Contains(err.Error(), "needs 16") {
		t.Errorf("size mismatch: %v", err)
	}
	if err := Write(&buf, ops.String, []int{1}, nil); err == nil {
		t.Error("string type: no error")
	}
	if err := Write(&buf, ops.Float32, []int{-1}, nil); err == nil {
		t.Error("negative dim: no error")
	}
}

// TestGolden reads every .npy file NumPy wrote under ../shared/golden
// and checks that writing the array back reproduces the file byte for
// byte (NumPy writes format 1.0 with exactly our header layout).
func TestGolden(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "golden")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("golden data not present: %s", root)
	}
	var n int
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".npy") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		a, err := Read(bytes.NewReader(raw))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		var buf bytes.Buffer
		if err := Write(&buf, a.Type, a.Shape, a.Data); err != nil {
			t.Errorf("%s: write: %v", path, err)
			return nil
		}
		if !bytes.Equal(buf.Bytes(), raw) {
			t.Errorf("%s: rewritten file differs from NumPy's", path)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no .npy files found")
	}
	// One value checked against its known meaning: sample 3's float input
	// is pixels/255, so every value lies in [0, 1].
	a, err := ReadFile(filepath.Join(root, "mnist_lstm", "trained_lstm_sample3", "input_0.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Type != ops.Float32 || !ops.SameShape(a.Shape, []int{1, 28, 28}) {
		t.Fatalf("sample3 input: %s%v", a.Type, a.Shape)
	}
	var maxv float32
	for i := 0; i < len(a.Data); i += 4 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(a.Data[i:]))
		if v < 0 || v > 1 {
			t.Fatalf("sample3 input value %v outside [0,1]", v)
		}
		maxv = max(maxv, v)
	}
	if maxv != 1 {
		t.Errorf("sample3 input max %v, want 1 (a white pixel)", maxv)
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	_ = Write(&buf, ops.Float32, []int{1, 2}, make([]byte, 8))
	f.Add(buf.Bytes())
	f.Add(file(2, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }\n", []byte{1, 2, 3}))
	f.Add(file(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n", []byte{1, 0, 0, 0}))
	f.Add([]byte("\x93NUMPY\x01\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := Read(bytes.NewReader(in))
		if err != nil {
			return
		}
		if len(a.Data) != a.NumElements()*a.Type.Size() {
			t.Fatalf("data %d bytes for %s%v", len(a.Data), a.Type, a.Shape)
		}
		var out bytes.Buffer
		if err := Write(&out, a.Type, a.Shape, a.Data); err != nil {
			t.Fatalf("cannot write back what was read: %v", err)
		}
		b, err := Read(&out)
		if err != nil || b.Type != a.Type || !ops.SameShape(a.Shape, b.Shape) || !bytes.Equal(a.Data, b.Data) {
			t.Fatalf("round trip changed the array: %v", err)
		}
	})
}
