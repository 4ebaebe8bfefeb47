package ir

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

func shapeProto(dims ...int64) *tfpb.TensorShapeProto {
	p := &tfpb.TensorShapeProto{}
	for _, d := range dims {
		p.Dim = append(p.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
	}
	return p
}

func TestFromProtoTypedValuesRepeatLast(t *testing.T) {
	// TensorFlow's rule: fewer typed values than elements repeat the last.
	p := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(2, 3), FloatVal: []float32{1, 2}}
	tt, err := FromProto(p)
	if err != nil {
		t.Fatal(err)
	}
	got := tt.Float32s()
	want := []float32{1, 2, 2, 2, 2, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// No values at all means zeros.
	p = &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(3)}
	tt, err = FromProto(p)
	if err != nil || tt.Int64s()[2] != 0 {
		t.Fatalf("zeros: %v %v", tt, err)
	}
	// Scalars may omit the shape.
	p = &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64, Int64Val: []int64{-7}}
	tt, err = FromProto(p)
	if err != nil || tt.Shape.Rank() != 0 || tt.Int64s()[0] != -7 {
		t.Fatalf("scalar: %v %v", tt, err)
	}
	// int8 values travel in int_val and wrap to the element size.
	p = &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT8, TensorShape: shapeProto(2), IntVal: []int32{-3, 127}}
	tt, err = FromProto(p)
	if err != nil || tt.Int64s()[0] != -3 || tt.Int64s()[1] != 127 || len(tt.Data) != 2 {
		t.Fatalf("int8: %v %v", tt, err)
	}
	// Strings.
	p = &tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING, TensorShape: shapeProto(2), StringVal: [][]byte{[]byte("a"), []byte("bc")}}
	tt, err = FromProto(p)
	if err != nil || string(tt.Strings[1]) != "bc" {
		t.Fatalf("strings: %v %v", tt, err)
	}
}

func TestFromProtoContent(t *testing.T) {
	content := []byte{0, 0, 128, 63, 0, 0, 0, 64} // 1.0, 2.0 little-endian
	tt, err := FromProto(&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(2), TensorContent: content})
	if err != nil || tt.Float32s()[1] != 2 {
		t.Fatalf("%v %v", tt, err)
	}
}

func TestFromProtoErrors(t *testing.T) {
	b := NewBudget(Limits{MaxTensorBytes: 1 << 20})
	cases := []struct {
		p    *tfpb.TensorProto
		want string
	}{
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(3), TensorContent: []byte{1, 2, 3}}, "needs 12 content bytes, has 3"},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(1), FloatVal: []float32{1, 2}}, "holds 1 elements, proto has 2 values"},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(-1)}, "not static"},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(-5)}, "size -5"},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(1<<20, 1<<10), FloatVal: []float32{1}}, "limit"},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_QINT8, TensorShape: shapeProto(1)}, "no TFLite equivalent"},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_RESOURCE, TensorShape: shapeProto(1)}, "not supported"},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_COMPLEX64, TensorShape: shapeProto(1), ScomplexVal: []float32{1}}, "pairs"},
	}
	for _, c := range cases {
		_, err := DecodeTensor(c.p, b, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got error %v, want one containing %q", c.p, err, c.want)
		}
	}
}

func TestHalf(t *testing.T) {
	for _, c := range []struct {
		f float32
		h uint16
	}{{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {0.5, 0x3800}, {float32(math.Ldexp(1, -24)), 0x0001},
		{float32(math.Ldexp(1, -14)), 0x0400}, {1e6, 0x7c00}, {0, 0}} {
		if got := Float32ToHalf(c.f); got != c.h {
			t.Errorf("Float32ToHalf(%v) = %#x, want %#x", c.f, got, c.h)
		}
		if c.f <= 65504 {
			if got := HalfToFloat32(c.h); got != c.f {
				t.Errorf("HalfToFloat32(%#x) = %v, want %v", c.h, got, c.f)
			}
		}
	}
	// Ties round to even: 1 + 2^-11 is halfway between 1 and 1+2^-10.
	if got := Float32ToHalf(1 + float32(math.Ldexp(1, -11))); got != 0x3c00 {
		t.Errorf("tie rounding gave %#x", got)
	}
	if got := Float32ToHalf(1 + 3*float32(math.Ldexp(1, -11))); got != 0x3c02 {
		t.Errorf("tie rounding up gave %#x", got)
	}
	// Every half value survives a round trip through float32.
	for h := 0; h < 0x10000; h++ {
		f := HalfToFloat32(uint16(h))
		if f != f {
			continue // NaN
		}
		if back := Float32ToHalf(f); back != uint16(h) {
			t.Fatalf("half %#x -> %v -> %#x", h, f, back)
		}
	}
}

func TestShapeHelpers(t *testing.T) {
	if s, ok := Merge(Shape{-1, 3}, Shape{2, -1}); !ok || !s.Equal(Shape{2, 3}) {
		t.Errorf("Merge gave %v %v", s, ok)
	}
	if _, ok := Merge(Shape{2}, Shape{3}); ok {
		t.Error("Merge accepted contradicting shapes")
	}
	if s, ok := Merge(nil, Shape{1}); !ok || !s.Equal(Shape{1}) {
		t.Error("Merge with unknown rank")
	}
	if n, ok := (Shape{2, 3, 4}).NumElements(); !ok || n != 24 {
		t.Error("NumElements")
	}
	if _, ok := (Shape{1 << 30, 1 << 30}).NumElements(); ok {
		t.Error("NumElements accepted an overflowing shape")
	}
	if (Shape{-1, 2}).String() != "[? 2]" || Shape(nil).String() != "[*]" {
		t.Error("String")
	}
}

func TestCastHelpers(t *testing.T) {
	tt, err := FromInt64s(Int8, Shape{2}, []int64{-128, 127})
	if err != nil || tt.Float64s()[0] != -128 {
		t.Fatal(tt, err)
	}
	if _, err := FromInt64s(Int8, Shape{1}, []int64{128}); err == nil {
		t.Error("FromInt64s accepted 128 for int8")
	}
	f16, _ := FromFloat64s(Float16, Shape{1}, []float64{1.5})
	if f16.Float32s()[0] != 1.5 {
		t.Error("float16 round trip")
	}
}

// TestFromProtoRepeat checks that the last value fills the rest of a
// tensor with fewer values than elements, for every element size.
func TestFromProtoRepeat(t *testing.T) {
	for _, k := range []int{1, 2, 3, 5, 17, 1000, 1 << 19} {
		p := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(int64(k)), FloatVal: []float32{7, 9}}
		if k == 1 {
			p.FloatVal = p.FloatVal[:1]
		}
		tt, err := FromProto(p)
		if err != nil {
			t.Fatal(err)
		}
		v := tt.Float32s()
		for i, x := range v {
			want := float32(9)
			if i == 0 {
				want = 7
			}
			if x != want {
				t.Fatalf("k=%d: element %d = %v, want %v", k, i, x, want)
			}
		}
	}
	for _, dt := range []tfpb.DataType{tfpb.DataType_DT_INT8, tfpb.DataType_DT_INT64, tfpb.DataType_DT_BOOL} {
		p := &tfpb.TensorProto{Dtype: dt, TensorShape: shapeProto(9), IntVal: []int32{0, 1}, Int64Val: []int64{0, 1}, BoolVal: []bool{false, true}}
		tt, err := FromProto(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range tt.Int64s() {
			if want := int64(min(i, 1)); x != want {
				t.Fatalf("%v: element %d = %d, want %d", dt, i, x, want)
			}
		}
	}
}
