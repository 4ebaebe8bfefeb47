package imageinput

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
)

const shared = "../../shared"

// The mnist models' input quantisation, as recorded in
// shared/golden/README.md: int8 scale 1/255 (as float32) zero point -128;
// the coral uint8 model scale 1/255 zero point 0.
var (
	int8Quant  = &ops.Quantization{Scale: []float32{float32(1.0 / 255)}, ZeroPoint: []int64{-128}}
	uint8Quant = &ops.Quantization{Scale: []float32{float32(1.0 / 255)}, ZeroPoint: []int64{0}}
)

// TestGoldenMNIST reproduces, bit for bit, the float, int8 and uint8
// inputs that NumPy made from the 10 MNIST sample PNGs.
func TestGoldenMNIST(t *testing.T) {
	samples := filepath.Join(shared, "models", "mnist_lstm", "samples")
	golden := filepath.Join(shared, "golden")
	if _, err := os.Stat(golden); err != nil {
		t.Skipf("golden data not present: %s", golden)
	}
	for n := 0; n < 10; n++ {
		img, err := Load(filepath.Join(samples, fmt.Sprintf("sample%d.png", n)))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			dir   string
			typ   ops.DataType
			quant *ops.Quantization
		}{
			{fmt.Sprintf("mnist_lstm/trained_lstm_sample%d", n), ops.Float32, nil},
			{fmt.Sprintf("mnist_lstm/trained_lstm_int8_sample%d", n), ops.Int8, int8Quant},
			{fmt.Sprintf("coral_lstm_mnist_uint8/keras_lstm_mnist_ptq_sample%d", n), ops.Uint8, uint8Quant},
		} {
			want, err := npy.ReadFile(filepath.Join(golden, c.dir, "input_0.npy"))
			if err != nil {
				t.Fatal(err)
			}
			if want.Type != c.typ {
				t.Fatalf("%s: golden input is %s, test expects %s", c.dir, want.Type, c.typ)
			}
			got, err := ToTensor(img, c.typ, want.Shape, c.quant)
			if err != nil {
				t.Fatalf("%s: %v", c.dir, err)
			}
			if !bytes.Equal(got, want.Data) {
				t.Errorf("%s: converted image differs from the golden input", c.dir)
			}
		}
		// uint8 without quantisation: raw pixels, the same bytes.
		want, _ := npy.ReadFile(filepath.Join(golden, fmt.Sprintf("coral_lstm_mnist_uint8/keras_lstm_mnist_ptq_sample%d", n), "input_0.npy"))
		got, err := ToTensor(img, ops.Uint8, want.Shape, nil)
		if err != nil || !bytes.Equal(got, want.Data) {
			t.Errorf("sample%d raw uint8: %v", n, err)
		}
	}
}

// TestLuma checks PIL's convert("L") values for the primaries and a few
// mixes: computed here independently as round-half-up of the exact
// 16-bit fixed-point weights (19595, 38470, 7471)/65536.
func TestLuma(t *testing.T) {
	cases := []struct{ r, g, b, want uint8 }{
		{255, 0, 0, 76}, {0, 255, 0, 150}, {0, 0, 255, 29},
		{255, 255, 255, 255}, {0, 0, 0, 0}, {128, 128, 128, 128},
		{10, 200, 30, 124},
	}
	for _, c := range cases {
		exact := (float64(c.r)*19595 + float64(c.g)*38470 + float64(c.b)*7471) / 65536
		if ref := uint8(math.Floor(exact + 0.5)); ref != c.want {
			t.Fatalf("test table wrong for %v: reference %d", c, ref)
		}
		if got := luma(c.r, c.g, c.b); got != c.want {
			t.Errorf("luma(%d,%d,%d) = %d, want %d", c.r, c.g, c.b, got, c.want)
		}
	}
}

func rgbImage() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for y := 0; y < 2; y++ {
		for x := 0; x < 3; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(10 * x), uint8(100 + y), 255, uint8(40 * x)})
		}
	}
	return img
}

func TestRGBLayouts(t *testing.T) {
	img := rgbImage()
	want := []byte{}
	for y := 0; y < 2; y++ {
		for x := 0; x < 3; x++ {
			// Alpha (0, 40, 80) must not darken the colour.
			want = append(want, uint8(10*x), uint8(100+y), 255)
		}
	}
	for _, shape := range [][]int{{1, 2, 3, 3}, {2, 3, 3}} {
		got, err := ToTensor(img, ops.Uint8, shape, nil)
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%v: got %v, want %v", shape, got, want)
		}
	}
	// Gray layouts of the same image: luma of each pixel.
	for _, shape := range [][]int{{1, 2, 3}, {2, 3}, {1, 2, 3, 1}, {2, 3, 1}} {
		got, err := ToTensor(img, ops.Uint8, shape, nil)
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		for i, v := range got {
			if w := luma(want[3*i], want[3*i+1], want[3*i+2]); v != w {
				t.Errorf("%v: pixel %d = %d, want %d", shape, i, v, w)
			}
		}
	}
	// A gray image fed to an RGB input is replicated.
	g := image.NewGray(image.Rect(0, 0, 2, 1))
	g.SetGray(0, 0, color.Gray{7})
	g.SetGray(1, 0, color.Gray{250})
	got, err := ToTensor(g, ops.Uint8, []int{1, 1, 2, 3}, nil)
	if err != nil || !bytes.Equal(got, []byte{7, 7, 7, 250, 250, 250}) {
		t.Errorf("gray to RGB: %v %v", got, err)
	}
	// float32 of a gray image: pixel/255.
	f, err := ToTensor(g, ops.Float32, []int{1, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := math.Float32frombits(uint32(f[4]) | uint32(f[5])<<8 | uint32(f[6])<<16 | uint32(f[7])<<24); v != float32(250.0/255) {
		t.Errorf("float pixel = %v, want %v", v, float32(250.0/255))
	}
}

func TestErrors(t *testing.T) {
	img := rgbImage()
	cases := []struct {
		typ   ops.DataType
		shape []int
		quant *ops.Quantization
		want  string
	}{
		{ops.Uint8, []int{1, 28, 28}, nil, "image is 3x2"},
		{ops.Uint8, []int{1, 2, 3, 4}, nil, "not an image shape"},
		{ops.Uint8, []int{6}, nil, "not an image shape"},
		{ops.Int32, []int{2, 3}, nil, "cannot feed an image to a int32"},
		{ops.Int8, []int{2, 3}, nil, "no quantisation"},
		{ops.Int8, []int{2, 3}, &ops.Quantization{Scale: []float32{1, 2}, ZeroPoint: []int64{0, 0}}, "per channel"},
		{ops.Int8, []int{2, 3}, &ops.Quantization{Scale: []float32{0}, ZeroPoint: []int64{0}}, "invalid scale"},
	}
	for _, c := range cases {
		_, err := ToTensor(img, c.typ, c.shape, c.quant)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%v: error %v, want one mentioning %q", c.typ, c.shape, err, c.want)
		}
	}
	if _, err := Decode([]byte("GIF89a")); err == nil {
		t.Error("GIF accepted")
	}
	if _, err := Decode([]byte("\x89PNG\r\n\x1a\ntruncated")); err == nil {
		t.Error("truncated PNG accepted")
	}
}

func TestDecodeFormats(t *testing.T) {
	// Opaque: Go's JPEG encoder writes premultiplied colour.
	img := rgbImage()
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	var p, j bytes.Buffer
	if err := png.Encode(&p, img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&j, img, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"png": p.Bytes(), "jpeg": j.Bytes()} {
		d, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Bounds().Dx() != 3 || d.Bounds().Dy() != 2 {
			t.Errorf("%s: size %v", name, d.Bounds())
		}
		got, err := ToTensor(d, ops.Uint8, []int{2, 3, 3}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// PNG is lossless; JPEG at quality 100 stays within a few steps.
		tol := 0
		if name == "jpeg" {
			tol = 8
		}
		want, _ := ToTensor(img, ops.Uint8, []int{2, 3, 3}, nil)
		for i := range got {
			if d := int(got[i]) - int(want[i]); d > tol || -d > tol {
				t.Errorf("%s: byte %d = %d, want %d±%d", name, i, got[i], want[i], tol)
			}
		}
	}
	for _, n := range []string{"a.png", "b.JPG", "c.jpeg"} {
		if !IsImagePath(n) {
			t.Errorf("IsImagePath(%q) = false", n)
		}
	}
	if IsImagePath("x.npy") {
		t.Error("IsImagePath(x.npy) = true")
	}
}
