// Package imageinput turns a PNG or JPEG image into the bytes of an image
// input tensor: decoding within a memory budget, layout (NHWC), channel
// count, optional resizing, normalisation and quantisation.
//
// The default conversion (ToTensor, or Convert with a zero Options apart
// from ConvertChannels) is the way the golden inputs under shared/golden
// were made with PIL and NumPy:
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
// Convert's Options change four steps:
//
//   - Channels: an image has 1 channel (gray) or 3 (colour; alpha is not
//     counted). Without Options.ConvertChannels an image whose count
//     differs from the input's is refused with a *ChannelError naming both
//     counts; with it, colour becomes gray by the luma above and gray is
//     replicated to R, G, B.
//   - Size: without a Resize mode the image must have the input's height
//     and width exactly, so what runs is what the file holds. ResizeBilinear
//     and ResizeNearest resample it the way TensorFlow's tf.image.resize
//     does (half-pixel centres, no antialiasing; bilinear in float32).
//   - Normalisation: with Options.Normalization the value fed for a pixel
//     p of channel c is (p - mean[c]) / std[c], as TensorFlow Lite
//     Metadata's NormalizationOptions define it. A float32 input gets
//     (1/std[c]) * (p - mean[c]) in float32, the TensorFlow Lite Task
//     Library's arithmetic; a quantised input gets that value (in float64)
//     quantised as above. A uint8 input without quantisation cannot be
//     normalised.
//   - Raw pixels: Options.RawPixels feeds a uint8 input the pixel values
//     whatever its quantisation, as the Task Library does for uint8 image
//     models (their metadata normalisation and input quantisation cancel).
//
// Decoding is bounded: Decode and DecodeLimit read the image's header with
// image.DecodeConfig first and refuse, before decoding a single pixel, an
// image whose decoded form would need more than the budget (DecodedBytes).
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

// DefaultMaxBytes is the decoding budget of Decode and Load, and of
// DecodeLimit when given 0: 512 MiB, enough for a 16-bit RGBA image of
// about 33 megapixels or an 8-bit RGBA one of 67.
const DefaultMaxBytes = 512 << 20

// IsImagePath reports whether path names an image this package reads:
// its extension is .png, .jpg or .jpeg (any case).
func IsImagePath(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".jpg", ".jpeg":
		return true
	}
	return false
}

// format returns "png" or "jpeg" from the first bytes of b, or "" for
// anything else.
func format(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(b, []byte{0xff, 0xd8}):
		return "jpeg"
	}
	return ""
}

// DecodeConfig reads the header of a PNG or JPEG image in b (the format is
// taken from the content, not the name) and returns its size and colour
// model and the format name ("png" or "jpeg"), without decoding pixels.
func DecodeConfig(b []byte) (image.Config, string, error) {
	var cfg image.Config
	var err error
	switch f := format(b); f {
	case "png":
		cfg, err = png.DecodeConfig(bytes.NewReader(b))
		return cfg, f, err
	case "jpeg":
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(b))
		return cfg, f, err
	}
	return cfg, "", errors.New("not a PNG or JPEG image")
}

// DecodedBytes is an upper bound of the memory (bytes) decoding an image
// with this header takes: width × height × the bytes per pixel of its
// colour model (1 for gray and paletted, 2 for 16-bit gray, 3 for YCbCr, 4
// for 8-bit RGBA and CMYK, 8 for 16-bit RGBA), twice that for PNG (an
// interlaced PNG decodes each pass into an image of its own) and three
// times for JPEG (a progressive JPEG keeps 16-bit coefficients of every
// component beside the image). It saturates at math.MaxInt64.
func DecodedBytes(cfg image.Config, format string) int64 {
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return 0
	}
	var bpp int64
	switch cfg.ColorModel {
	case color.GrayModel:
		bpp = 1
	case color.Gray16Model:
		bpp = 2
	case color.YCbCrModel:
		bpp = 3
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		bpp = 4
	default:
		if _, ok := cfg.ColorModel.(color.Palette); ok {
			bpp = 1
		} else {
			bpp = 8
		}
	}
	switch format {
	case "png":
		bpp *= 2
	case "jpeg":
		bpp *= 3
	}
	w, h := int64(cfg.Width), int64(cfg.Height)
	if w > math.MaxInt64/h/bpp {
		return math.MaxInt64
	}
	return w * h * bpp
}

// Decode reads a PNG or JPEG image from the bytes b within
// DefaultMaxBytes (see DecodeLimit).
func Decode(b []byte) (image.Image, error) { return DecodeLimit(b, 0) }

// DecodeLimit reads a PNG or JPEG image from the bytes b (the format is
// taken from the content, not the name). It reads the header first and
// returns an error naming the size, the estimate and the budget, without
// decoding, when DecodedBytes exceeds maxBytes (0 means DefaultMaxBytes; a
// negative value means no budget).
func DecodeLimit(b []byte, maxBytes int64) (image.Image, error) {
	cfg, f, err := DecodeConfig(b)
	if err != nil {
		return nil, err
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	if need := DecodedBytes(cfg, f); maxBytes > 0 && need > maxBytes {
		return nil, fmt.Errorf("%s image of %dx%d pixels would take about %d bytes to decode, over the budget of %d bytes", f, cfg.Width, cfg.Height, need, maxBytes)
	}
	if f == "png" {
		return png.Decode(bytes.NewReader(b))
	}
	return jpeg.Decode(bytes.NewReader(b))
}

// Load reads and decodes the image file at path within DefaultMaxBytes;
// errors name the file.
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

// Layout is how an image maps onto a tensor shape (NHWC, batch 1).
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

// Channels is the number of colour channels of img: 1 for a gray image
// (Gray, Gray16, or a palette of gray entries only), 3 otherwise. Alpha is
// not a channel: it is dropped.
func Channels(img image.Image) int {
	switch im := img.(type) {
	case *image.Gray, *image.Gray16:
		return 1
	case *image.Paletted:
		for _, c := range im.Palette {
			r, g, b, _ := c.RGBA()
			if r != g || g != b {
				return 3
			}
		}
		return 1
	}
	return 3
}

// ChannelError is Convert's error for an image whose channel count is not
// the input's, when Options.ConvertChannels is off.
type ChannelError struct {
	// Image and Input are the channel counts of the image and the input.
	Image, Input int
	Shape        []int
}

// Error names both channel counts and the conversion that would apply.
func (e *ChannelError) Error() string {
	kind := map[int]string{1: "gray", 3: "colour"}
	return fmt.Sprintf("the image has %d channel(s) (%s), the input %v takes %d: convert the image first, or ask for the conversion (%s)",
		e.Image, kind[e.Image], e.Shape, e.Input, map[int]string{1: "colour to gray by luma", 3: "gray replicated to R, G, B"}[e.Input])
}

// Resize says how Convert fits an image of another size to the input.
type Resize int

const (
	// ResizeNone refuses an image whose size is not the input's.
	ResizeNone Resize = iota
	// ResizeBilinear resamples like tf.image.resize(method="bilinear"):
	// half-pixel centres, no antialiasing, interpolation in float32.
	ResizeBilinear
	// ResizeNearest resamples like tf.image.resize(method="nearest"):
	// source index floor((i + 0.5) * in / out), clamped.
	ResizeNearest
)

// ParseResize reads a Resize from its name: "none", "bilinear" or
// "nearest".
func ParseResize(s string) (Resize, error) {
	switch s {
	case "none", "":
		return ResizeNone, nil
	case "bilinear":
		return ResizeBilinear, nil
	case "nearest":
		return ResizeNearest, nil
	}
	return 0, fmt.Errorf("unknown resize mode %q (want none, bilinear or nearest)", s)
}

// Normalization is a per-channel affine map of pixel values (0..255):
// value = (pixel - Mean[c]) / Std[c]. Mean and Std each hold one value for
// every channel or one for all, as TensorFlow Lite Metadata's
// NormalizationOptions do.
type Normalization struct {
	Mean, Std []float32
}

// Options control Convert; the zero value is strict (see the package doc).
type Options struct {
	// Resize fits an image of another size; ResizeNone refuses it.
	Resize Resize
	// ConvertChannels converts colour to gray (luma) for a 1-channel
	// input and gray to colour for a 3-channel one; without it a channel
	// mismatch is a *ChannelError.
	ConvertChannels bool
	// Normalization, when not nil, replaces the default pixel / 255.
	Normalization *Normalization
	// RawPixels stores the 8-bit pixel values themselves in a uint8
	// input, whatever its quantisation says: the TensorFlow Lite Task
	// Library's rule for uint8 image inputs, whose metadata normalisation
	// and quantisation cancel out. It applies to uint8 inputs only and
	// excludes Normalization.
	RawPixels bool
}

// ToTensor is Convert with ConvertChannels on and nothing else: the exact
// size, the default scaling (see the package doc).
func ToTensor(img image.Image, typ ops.DataType, shape []int, quant *ops.Quantization) ([]byte, error) {
	return Convert(img, typ, shape, quant, Options{ConvertChannels: true})
}

// Convert converts img to the bytes of a tensor of type typ, shape shape
// and quantisation quant (nil for none), little-endian, C order (row by
// row, channels innermost). shape must read as [1,H,W,C], [1,H,W], [H,W,C]
// or [H,W] with C 1 or 3. typ must be float32, or int8 / uint8 / int16
// with a per-tensor quantisation (uint8 may have none unless normalised).
// The conversion is described in the package doc; errors name what does
// not fit (shape, size, channels, type, quantisation, normalisation).
func Convert(img image.Image, typ ops.DataType, shape []int, quant *ops.Quantization, opts Options) ([]byte, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("image is empty (%dx%d)", w, h)
	}
	cands := layouts(shape)
	if len(cands) == 0 {
		return nil, fmt.Errorf("input shape %v is not an image shape ([1,H,W,C], [1,H,W], [H,W,C] or [H,W] with C = 1 or 3)", shape)
	}
	lay, found := cands[0], false
	for _, c := range cands {
		if c.Height == h && c.Width == w {
			lay, found = c, true
			break
		}
	}
	if !found && opts.Resize == ResizeNone {
		return nil, fmt.Errorf("image is %dx%d (width x height), the input %v needs %dx%d", w, h, shape, cands[0].Width, cands[0].Height)
	}
	if lay.Height <= 0 || lay.Width <= 0 {
		return nil, fmt.Errorf("input shape %v has no pixels to fill", shape)
	}
	if ic := Channels(img); ic != lay.Channels && !opts.ConvertChannels {
		return nil, &ChannelError{Image: ic, Input: lay.Channels, Shape: shape}
	}
	if opts.RawPixels && (typ != ops.Uint8 || opts.Normalization != nil) {
		return nil, fmt.Errorf("raw pixels apply to a uint8 input without normalisation, not to a %s input%s", typ, map[bool]string{true: " with normalisation"}[opts.Normalization != nil])
	}
	q := quant
	if opts.RawPixels {
		q = nil
	}
	put, err := encoder(typ, q, opts.Normalization, lay.Channels)
	if err != nil {
		return nil, err
	}
	n := lay.Height * lay.Width * lay.Channels
	out := make([]byte, n*typ.Size())
	src := sampler{img: img, gray: lay.Channels == 1, x0: b.Min.X, y0: b.Min.Y}
	i := 0
	switch {
	case found:
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := src.at(x, y)
				for c := 0; c < lay.Channels; c++ {
					put(out, i, c, float32(v[c]))
					i++
				}
			}
		}
	case opts.Resize == ResizeNearest:
		xs, ys := nearestIndex(w, lay.Width), nearestIndex(h, lay.Height)
		for _, y := range ys {
			for _, x := range xs {
				v := src.at(x, y)
				for c := 0; c < lay.Channels; c++ {
					put(out, i, c, float32(v[c]))
					i++
				}
			}
		}
	default:
		xs, ys := bilinearTaps(w, lay.Width), bilinearTaps(h, lay.Height)
		for _, ty := range ys {
			for _, tx := range xs {
				tl, tr := src.at(tx.lo, ty.lo), src.at(tx.hi, ty.lo)
				bl, br := src.at(tx.lo, ty.hi), src.at(tx.hi, ty.hi)
				for c := 0; c < lay.Channels; c++ {
					top := float32(tl[c]) + (float32(tr[c])-float32(tl[c]))*tx.frac
					bot := float32(bl[c]) + (float32(br[c])-float32(bl[c]))*tx.frac
					put(out, i, c, top+(bot-top)*ty.frac)
					i++
				}
			}
		}
	}
	return out, nil
}

// nearestIndex maps each of out output positions to a source index, as
// TensorFlow's nearest-neighbour resize with half-pixel centres does.
func nearestIndex(in, out int) []int {
	idx := make([]int, out)
	scale := float32(in) / float32(out)
	for i := range idx {
		idx[i] = min(int(math.Floor(float64((float32(i)+0.5)*scale))), in-1)
	}
	return idx
}

// tap is one output position of a bilinear resize: its two source
// indices and the weight of the second.
type tap struct {
	lo, hi int
	frac   float32
}

// bilinearTaps computes TensorFlow's half-pixel bilinear source
// positions: in = (i + 0.5) * scale - 0.5, lo = max(floor(in), 0),
// hi = min(ceil(in), in_size - 1), frac = in - floor(in).
func bilinearTaps(in, out int) []tap {
	taps := make([]tap, out)
	scale := float32(in) / float32(out)
	for i := range taps {
		pos := (float32(i)+0.5)*scale - 0.5
		fl := float32(math.Floor(float64(pos)))
		taps[i] = tap{
			lo:   max(int(fl), 0),
			hi:   min(int(math.Ceil(float64(pos))), in-1),
			frac: pos - fl,
		}
	}
	return taps
}

// sampler reads 8-bit pixels from an image, as R, G, B or as one gray
// value (luma), at coordinates relative to the bounds' origin.
type sampler struct {
	img    image.Image
	gray   bool
	x0, y0 int
}

func (s *sampler) at(x, y int) [3]uint8 {
	r, g, b := rgb8(s.img, s.x0+x, s.y0+y)
	if s.gray {
		return [3]uint8{luma(r, g, b)}
	}
	return [3]uint8{r, g, b}
}

// encoder returns the function that stores the value v (a pixel value in
// 0..255, fractional after a bilinear resize) of channel c as element i
// of a tensor of type typ.
func encoder(typ ops.DataType, quant *ops.Quantization, norm *Normalization, channels int) (func(dst []byte, i, c int, v float32), error) {
	var mean, std []float64
	if norm != nil {
		var err error
		if mean, std, err = norm.perChannel(channels); err != nil {
			return nil, err
		}
	}
	switch typ {
	case ops.Float32:
		if norm == nil {
			return func(dst []byte, i, c int, v float32) {
				binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(float32(float64(v)/255)))
			}, nil
		}
		m32, inv := make([]float32, channels), make([]float32, channels)
		for c := range m32 {
			m32[c], inv[c] = float32(mean[c]), 1/float32(std[c])
		}
		return func(dst []byte, i, c int, v float32) {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(inv[c]*(v-m32[c])))
		}, nil
	case ops.Int8, ops.Uint8, ops.Int16:
	default:
		return nil, fmt.Errorf("cannot feed an image to a %s input (supported: float32, int8, uint8, int16)", typ)
	}
	lo, hi, _ := ops.TypeRange(typ)
	store := func(dst []byte, i int, q float64) {
		q = max(float64(lo), min(float64(hi), q))
		if typ == ops.Int16 {
			binary.LittleEndian.PutUint16(dst[2*i:], uint16(int16(q)))
		} else {
			dst[i] = byte(int32(q))
		}
	}
	if quant == nil || len(quant.Scale) == 0 {
		if typ != ops.Uint8 {
			return nil, fmt.Errorf("the %s input has no quantisation parameters, so pixel values cannot be mapped to it", typ)
		}
		if norm != nil {
			return nil, errors.New("the uint8 input has no quantisation parameters, so normalised values cannot be stored in it (it takes raw pixels)")
		}
		return func(dst []byte, i, c int, v float32) { store(dst, i, math.RoundToEven(float64(v))) }, nil
	}
	if len(quant.Scale) != 1 {
		return nil, fmt.Errorf("the %s input is quantised per channel (%d scales); only per-tensor quantisation is supported for images", typ, len(quant.Scale))
	}
	scale := float64(quant.Scale[0])
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("the %s input has an invalid scale %v", typ, quant.Scale[0])
	}
	var zp float64
	if len(quant.ZeroPoint) > 0 {
		zp = float64(quant.ZeroPoint[0])
	}
	if norm == nil {
		return func(dst []byte, i, c int, v float32) {
			store(dst, i, math.RoundToEven((float64(v)/255)/scale)+zp)
		}, nil
	}
	return func(dst []byte, i, c int, v float32) {
		store(dst, i, math.RoundToEven(((float64(v)-mean[c])/std[c])/scale)+zp)
	}, nil
}

// perChannel expands Mean and Std to one value per channel, checking
// their counts and values.
func (n *Normalization) perChannel(channels int) (mean, std []float64, err error) {
	expand := func(name string, v []float32) ([]float64, error) {
		if len(v) != 1 && len(v) != channels {
			return nil, fmt.Errorf("normalisation %s has %d values, the input has %d channel(s) (give 1 or %d)", name, len(v), channels, channels)
		}
		out := make([]float64, channels)
		for c := range out {
			x := v[0]
			if len(v) > 1 {
				x = v[c]
			}
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("normalisation %s %v is not finite", name, x)
			}
			out[c] = float64(x)
		}
		return out, nil
	}
	if mean, err = expand("mean", n.Mean); err != nil {
		return nil, nil, err
	}
	if std, err = expand("std", n.Std); err != nil {
		return nil, nil, err
	}
	for _, s := range std {
		if math.Abs(s) < float32Epsilon { // the Task Library's limit
			return nil, nil, fmt.Errorf("normalisation std %v is zero or too close to it", s)
		}
	}
	return mean, std, nil
}

// float32Epsilon is C++'s numeric_limits<float>::epsilon(), 2^-23.
const float32Epsilon = 1.0 / (1 << 23)

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
		i := int(im.ColorIndexAt(x, y))
		if i >= len(im.Palette) {
			return 0, 0, 0 // an index past the palette (only a hand-made image has one)
		}
		if c, ok := im.Palette[i].(color.NRGBA); ok {
			return c.R, c.G, c.B
		}
		c := color.NRGBAModel.Convert(im.Palette[i]).(color.NRGBA)
		return c.R, c.G, c.B
	}
	// Everything else (RGBA, RGBA64, CMYK, palette entries in RGBA, ...)
	// goes through the NRGBA model, which undoes premultiplication.
	c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
	return c.R, c.G, c.B
}
