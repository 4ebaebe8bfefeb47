package imageinput

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// TestChannelMismatch: without ConvertChannels a colour image for a gray
// input, or a gray image for a colour input, is a *ChannelError naming
// both counts.
func TestChannelMismatch(t *testing.T) {
	gray := image.NewGray(image.Rect(0, 0, 3, 2))
	for _, c := range []struct {
		img          image.Image
		shape        []int
		image, input int
	}{
		{rgbImage(), []int{1, 2, 3, 1}, 3, 1},
		{rgbImage(), []int{1, 2, 3}, 3, 1},
		{gray, []int{1, 2, 3, 3}, 1, 3},
	} {
		_, err := Convert(c.img, ops.Float32, c.shape, nil, Options{})
		var ce *ChannelError
		if !errors.As(err, &ce) || ce.Image != c.image || ce.Input != c.input {
			t.Errorf("%v: error %v, want a ChannelError %d vs %d", c.shape, err, c.image, c.input)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "has "+string(rune('0'+c.image))+" channel(s)") || !strings.Contains(msg, "takes "+string(rune('0'+c.input))) {
			t.Errorf("%v: message %q does not name both counts", c.shape, msg)
		}
		if _, err := Convert(c.img, ops.Float32, c.shape, nil, Options{ConvertChannels: true}); err != nil {
			t.Errorf("%v with ConvertChannels: %v", c.shape, err)
		}
	}
	// A palette of grays is a gray image.
	p := image.NewPaletted(image.Rect(0, 0, 3, 2), color.Palette{color.Gray{0}, color.Gray{200}})
	if _, err := Convert(p, ops.Uint8, []int{2, 3}, nil, Options{}); err != nil {
		t.Errorf("gray palette: %v", err)
	}
}

// TestNormalization checks the Task Library's float arithmetic and the
// quantised form of the same values.
func TestNormalization(t *testing.T) {
	img := rgbImage() // pixel (x, y) = (10x, 100+y, 255)
	norm := &Normalization{Mean: []float32{127.5}, Std: []float32{127.5}}
	got, err := Convert(img, ops.Float32, []int{1, 2, 3, 3}, nil, Options{Normalization: norm})
	if err != nil {
		t.Fatal(err)
	}
	f := floats(got)
	for i, p := range []float32{0, 100, 255, 10, 100, 255} {
		if want := (1 / float32(127.5)) * (p - 127.5); f[i] != want {
			t.Errorf("element %d: %v, want %v", i, f[i], want)
		}
	}
	// Per-channel values.
	per := &Normalization{Mean: []float32{0, 100, 255}, Std: []float32{1, 2, 5}}
	got, err = Convert(img, ops.Float32, []int{2, 3, 3}, nil, Options{Normalization: per})
	if err != nil {
		t.Fatal(err)
	}
	if f := floats(got); f[3] != 10 || f[4] != 0 || f[5] != 0 || f[10] != 0.5 {
		t.Errorf("per-channel: %v", f[:9])
	}
	// int8 with scale 1/128, zero point 0: round(((p-127.5)/127.5)*128).
	q := &ops.Quantization{Scale: []float32{1.0 / 128}, ZeroPoint: []int64{0}}
	got, err = Convert(img, ops.Int8, []int{1, 2, 3, 3}, q, Options{Normalization: norm})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []float64{0, 100, 255} {
		want := int8(max(-128, min(127, math.RoundToEven((p-127.5)/127.5*128))))
		if int8(got[i]) != want {
			t.Errorf("int8 element %d: %d, want %d", i, int8(got[i]), want)
		}
	}
	for _, c := range []struct {
		norm  *Normalization
		typ   ops.DataType
		quant *ops.Quantization
		want  string
	}{
		{&Normalization{Mean: []float32{1, 2}, Std: []float32{1}}, ops.Float32, nil, "mean has 2 values, the input has 3 channel(s)"},
		{&Normalization{Mean: []float32{1}, Std: []float32{0}}, ops.Float32, nil, "std 0 is zero"},
		{&Normalization{Mean: []float32{float32(math.NaN())}, Std: []float32{1}}, ops.Float32, nil, "not finite"},
		{norm, ops.Uint8, nil, "no quantisation parameters, so normalised values"},
	} {
		if _, err := Convert(img, c.typ, []int{2, 3, 3}, c.quant, Options{Normalization: c.norm}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.norm, err, c.want)
		}
	}
	// Raw pixels ignore a uint8 input's quantisation (MobileNet's: scale
	// 1/128, zero point 128) and apply to nothing else.
	mq := &ops.Quantization{Scale: []float32{1.0 / 128}, ZeroPoint: []int64{128}}
	got, err = Convert(img, ops.Uint8, []int{2, 3, 3}, mq, Options{RawPixels: true})
	if err != nil || got[3] != 10 || got[4] != 100 || got[5] != 255 {
		t.Errorf("raw pixels: %v %v", got[:6], err)
	}
	if _, err := Convert(img, ops.Int8, []int{2, 3, 3}, q, Options{RawPixels: true}); err == nil {
		t.Error("raw pixels accepted for an int8 input")
	}
	if _, err := Convert(img, ops.Uint8, []int{2, 3, 3}, mq, Options{RawPixels: true, Normalization: norm}); err == nil {
		t.Error("raw pixels accepted with normalisation")
	}
}

// TestResize compares with TensorFlow's half-pixel resizes worked by
// hand: [0, 100] to 4 columns is [0, 25, 75, 100] bilinear and
// [0, 0, 100, 100] nearest; 4 columns to 2 take columns 1 and 3 (nearest:
// floor((i + 0.5) * 2)) or the midpoints (bilinear).
func TestResize(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 2, 1))
	g.Pix = []uint8{0, 100}
	for _, c := range []struct {
		mode Resize
		want []uint8
	}{{ResizeBilinear, []uint8{0, 25, 75, 100}}, {ResizeNearest, []uint8{0, 0, 100, 100}}} {
		got, err := Convert(g, ops.Uint8, []int{1, 4}, nil, Options{Resize: c.mode})
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("mode %d: %v %v, want %v", c.mode, got, err, c.want)
		}
	}
	wide := image.NewGray(image.Rect(0, 0, 4, 1))
	wide.Pix = []uint8{0, 10, 20, 40}
	got, _ := Convert(wide, ops.Uint8, []int{1, 2}, nil, Options{Resize: ResizeNearest})
	if !bytes.Equal(got, []uint8{10, 40}) {
		t.Errorf("nearest 4→2: %v", got)
	}
	fl, _ := Convert(wide, ops.Float32, []int{1, 2}, nil, Options{Resize: ResizeBilinear, Normalization: &Normalization{Mean: []float32{0}, Std: []float32{1}}})
	if f := floats(fl); f[0] != 5 || f[1] != 30 {
		t.Errorf("bilinear 4→2: %v, want [5 30]", f)
	}
	// Without a mode a size mismatch stays an error.
	if _, err := Convert(g, ops.Uint8, []int{1, 4}, nil, Options{}); err == nil || !strings.Contains(err.Error(), "image is 2x1") {
		t.Errorf("no resize: %v", err)
	}
	if _, err := ParseResize("cubic"); err == nil {
		t.Error("ParseResize(cubic) accepted")
	}
}

// pngHeader is a PNG signature and IHDR chunk of a w×h image of the given
// colour type (8 bits per sample), with nothing after it: enough for
// DecodeConfig, which is all a budget check reads.
func pngHeader(w, h uint32, colorType byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, colorType
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], 13)
	b.Write(l[:])
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.BigEndian.PutUint32(l[:], crc32.ChecksumIEEE(chunk))
	b.Write(l[:])
	return b.Bytes()
}

// TestDecodeBudget: a 17000×17000 RGBA PNG is refused from its header,
// with the size and the budget in the error; a small image decodes.
func TestDecodeBudget(t *testing.T) {
	big := pngHeader(17000, 17000, 6)
	cfg, f, err := DecodeConfig(big)
	if err != nil || cfg.Width != 17000 || f != "png" {
		t.Fatalf("DecodeConfig: %+v %q %v", cfg, f, err)
	}
	if want := int64(17000 * 17000 * 4 * 2); DecodedBytes(cfg, f) != want {
		t.Errorf("DecodedBytes = %d, want %d", DecodedBytes(cfg, f), want)
	}
	_, err = Decode(big)
	if err == nil || !strings.Contains(err.Error(), "17000x17000") || !strings.Contains(err.Error(), "over the budget of 536870912 bytes") {
		t.Errorf("Decode of a 17000x17000 PNG: %v", err)
	}
	if _, err := DecodeLimit(pngHeader(100, 100, 0), 100*100*2-1); err == nil {
		t.Error("budget one byte short accepted")
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 100, 100))); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeLimit(buf.Bytes(), 100*100*2); err != nil {
		t.Errorf("budget exactly met: %v", err)
	}
	if DecodedBytes(image.Config{ColorModel: color.RGBA64Model, Width: math.MaxInt32, Height: math.MaxInt32}, "png") != math.MaxInt64 {
		t.Error("DecodedBytes does not saturate")
	}
}

// FuzzDecodeConvert decodes arbitrary bytes within a small budget and
// converts what decodes to every kind of input: no panic, and the output
// has the tensor's size.
func FuzzDecodeConvert(f *testing.F) {
	var buf bytes.Buffer
	_ = png.Encode(&buf, rgbImage())
	f.Add(buf.Bytes())
	buf.Reset()
	_ = png.Encode(&buf, image.NewGray16(image.Rect(0, 0, 5, 3)))
	f.Add(buf.Bytes())
	buf.Reset()
	_ = png.Encode(&buf, image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.NRGBA{1, 2, 3, 4}}))
	f.Add(buf.Bytes())
	f.Add(pngHeader(17000, 17000, 2))
	f.Add([]byte{0xff, 0xd8, 0xff, 0xe0})
	q := &ops.Quantization{Scale: []float32{0.02}, ZeroPoint: []int64{-3}}
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := DecodeLimit(b, 1<<20)
		if err != nil {
			return
		}
		for _, c := range []struct {
			typ   ops.DataType
			shape []int
			quant *ops.Quantization
			opts  Options
		}{
			{ops.Float32, []int{1, 4, 5, 3}, nil, Options{Resize: ResizeBilinear, ConvertChannels: true}},
			{ops.Int8, []int{1, 3, 2, 1}, q, Options{Resize: ResizeNearest, ConvertChannels: true, Normalization: &Normalization{Mean: []float32{127.5}, Std: []float32{-3}}}},
			{ops.Uint8, []int{2, 2}, nil, Options{Resize: ResizeBilinear, ConvertChannels: true}},
			{ops.Int16, []int{1, 7, 1, 3}, q, Options{Resize: ResizeNearest, ConvertChannels: true}},
		} {
			out, err := Convert(img, c.typ, c.shape, c.quant, c.opts)
			if err != nil {
				t.Fatalf("%s%v: %v", c.typ, c.shape, err)
			}
			n := 1
			for _, d := range c.shape {
				n *= d
			}
			if len(out) != n*c.typ.Size() {
				t.Fatalf("%s%v: %d bytes", c.typ, c.shape, len(out))
			}
		}
		// The exact-size path.
		bd := img.Bounds()
		if _, err := ToTensor(img, ops.Float32, []int{bd.Dy(), bd.Dx(), 3}, nil); err != nil {
			t.Fatalf("exact size: %v", err)
		}
	})
}
