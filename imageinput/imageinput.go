// Package imageinput turns a PNG or JPEG image into the bytes of an image
// input tensor, the way the golden inputs under shared/golden were made
// with PIL and NumPy:
//
//   - Pixels are 8-bit. A 1-channel input gets PIL's Image.convert("L")
//     luma, L = (R*19595 + G*38470 + B*7471 + 0x8000) >> 16 (ITU-R 601-2,
//     the fixed-point form PIL's Convert.c uses for 299/1000, 587/1000,
//     114/1000); a gray image is used as is. A 3-channel input gets R, G,
//     B (a gray image is replicated, like convert("RGB")). Alpha is
//     dropped without compositing, as PIL's conversions do. 16-bit
//     samples use their high byte. JPEG colour is decoded by Go's
//     image/jpeg (its YCbCr→RGB may differ from libjpeg's by one step).
//   - float32 input: pixel / 255, computed in float64 and rounded to
//     float32 (NumPy's `pixels / 255` followed by astype(float32)).
//   - quantised int8 / uint8 / int16 input: clamp(round((pixel / 255) /
//     scale) + zero_point) to the type's range, computed in float64 with
//     round half to even (NumPy's np.round), using the tensor's per-tensor
//     scale and zero point. With scale 1/255 and zero point 0 (the coral
//     uint8 model) this yields the raw pixels; a uint8 input without
//     quantisation also takes the raw pixels.
//
// The image must have the tensor's height and width exactly: nothing is
// resized or cropped, so what runs is what the file holds.
package imageinput

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tflrun/tflrun/ops"
)

// IsImagePath reports whether path names an image this package reads:
// its extension is .png, .jpg or .jpeg (any case).
func IsImagePath(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".jpg", ".jpeg":
		return true
	}
	return false
}

// Decode reads a PNG or JPEG image from the bytes b (the format is taken
// from the content, not the name).
func Decode(b []byte) (image.Image, error) {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return png.Decode(bytes.NewReader(b))
	case bytes.HasPrefix(b, []byte{0xff, 0xd8}):
		return jpeg.Decode(bytes.NewReader(b))
	}
	return nil, errors.New("not a PNG or JPEG image")
}

// Load reads and decodes the image file at path; errors name the file.
func Load(path string) (image.Image, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	img, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}

// Layout is how an image maps onto a tensor shape.
type Layout struct {
	Height, Width, Channels int
}

// layouts lists the readings of shape as an image, in order of
// preference: [1,H,W,C], [1,H,W] (one channel), [H,W,C], [H,W] (one
// channel). C must be 1 or 3.
func layouts(shape []int) []Layout {
	var l []Layout
	ok := func(c int) bool { return c == 1 || c == 3 }
	switch len(shape) {
	case 4:
		if shape[0] == 1 && ok(shape[3]) {
			l = append(l, Layout{shape[1], shape[2], shape[3]})
		}
	case 3:
		if shape[0] == 1 {
			l = append(l, Layout{shape[1], shape[2], 1})
		}
		if ok(shape[2]) {
			l = append(l, Layout{shape[0], shape[1], shape[2]})
		}
	case 2:
		l = append(l, Layout{shape[0], shape[1], 1})
	}
	return l
}

// ToTensor converts img to the bytes of a tensor of type typ, shape shape
// and quantisation quant (nil for none), little-endian, C order (row by
// row, channels innermost). shape must read as [1,H,W,C], [1,H,W], [H,W,C]
// or [H,W] with C 1 or 3, and the image must be exactly W×H. typ must be
// float32, or int8 / uint8 / int16 with a per-tensor quantisation (uint8
// may have none). The conversion is described in the package doc.
func ToTensor(img image.Image, typ ops.DataType, shape []int, quant *ops.Quantization) ([]byte, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	cands := layouts(shape)
	if len(cands) == 0 {
		return nil, fmt.Errorf("input shape %v is not an image shape ([1,H,W,C], [1,H,W], [H,W,C] or [H,W] with C = 1 or 3)", shape)
	}
	var lay Layout
	found := false
	for _, c := range cands {
		if c.Height == h && c.Width == w {
			lay, found = c, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("image is %dx%d (width x height), the input %v needs %dx%d", w, h, shape, cands[0].Width, cands[0].Height)
	}

	// Pixel → tensor element.
	var put func(dst []byte, i int, p uint8)
	switch typ {
	case ops.Float32:
		put = func(dst []byte, i int, p uint8) {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(float32(float64(p)/255)))
		}
	case ops.Int8, ops.Uint8, ops.Int16:
		q, err := quantizer(typ, quant)
		if err != nil {
			return nil, err
		}
		switch typ {
		case ops.Int8, ops.Uint8:
			put = func(dst []byte, i int, p uint8) { dst[i] = byte(q[p]) }
		case ops.Int16:
			put = func(dst []byte, i int, p uint8) { binary.LittleEndian.PutUint16(dst[2*i:], uint16(int16(q[p]))) }
		}
	default:
		return nil, fmt.Errorf("cannot feed an image to a %s input (supported: float32, int8, uint8, int16)", typ)
	}

	out := make([]byte, h*w*lay.Channels*typ.Size())
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl := rgb8(img, x, y)
			if lay.Channels == 1 {
				put(out, i, luma(r, g, bl))
				i++
				continue
			}
			put(out, i, r)
			put(out, i+1, g)
			put(out, i+2, bl)
			i += 3
		}
	}
	return out, nil
}

// quantizer returns the quantised value of each of the 256 pixel values
// for an integer input, as int32 (already clamped to the type's range).
func quantizer(typ ops.DataType, quant *ops.Quantization) ([256]int32, error) {
	var q [256]int32
	lo, hi, _ := ops.TypeRange(typ)
	if quant == nil || len(quant.Scale) == 0 {
		if typ == ops.Uint8 {
			for p := range q {
				q[p] = int32(p)
			}
			return q, nil
		}
		return q, fmt.Errorf("the %s input has no quantisation parameters, so pixel values cannot be mapped to it", typ)
	}
	if len(quant.Scale) != 1 {
		return q, fmt.Errorf("the %s input is quantised per channel (%d scales); only per-tensor quantisation is supported for images", typ, len(quant.Scale))
	}
	scale := float64(quant.Scale[0])
	if !(scale > 0) || math.IsInf(scale, 0) {
		return q, fmt.Errorf("the %s input has an invalid scale %v", typ, quant.Scale[0])
	}
	var zp float64
	if len(quant.ZeroPoint) > 0 {
		zp = float64(quant.ZeroPoint[0])
	}
	for p := range q {
		v := math.RoundToEven((float64(p)/255)/scale) + zp
		v = max(float64(lo), min(float64(hi), v))
		q[p] = int32(v)
	}
	return q, nil
}

// luma is PIL's RGB → "L" conversion (Convert.c, L24 >> 16).
func luma(r, g, b uint8) uint8 {
	return uint8((uint32(r)*19595 + uint32(g)*38470 + uint32(b)*7471 + 0x8000) >> 16)
}

// rgb8 returns the straight (not alpha-premultiplied) 8-bit R, G, B of the
// pixel at (x, y), ignoring alpha like PIL's convert("RGB") / ("L").
func rgb8(img image.Image, x, y int) (r, g, b uint8) {
	switch im := img.(type) {
	case *image.Gray:
		v := im.GrayAt(x, y).Y
		return v, v, v
	case *image.Gray16:
		v := uint8(im.Gray16At(x, y).Y >> 8)
		return v, v, v
	case *image.NRGBA:
		c := im.NRGBAAt(x, y)
		return c.R, c.G, c.B
	case *image.NRGBA64:
		c := im.NRGBA64At(x, y)
		return uint8(c.R >> 8), uint8(c.G >> 8), uint8(c.B >> 8)
	case *image.YCbCr:
		c := im.YCbCrAt(x, y)
		return color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
	case *image.Paletted:
		if c, ok := im.Palette[im.ColorIndexAt(x, y)].(color.NRGBA); ok {
			return c.R, c.G, c.B
		}
	}
	// Everything else (RGBA, RGBA64, CMYK, palette entries in RGBA, ...)
	// goes through the NRGBA model, which undoes premultiplication.
	c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
	return c.R, c.G, c.B
}
