package perception

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/tflrun/tflrun/ops"
)

// Custom codes of the max unpooling kernel: MaxUnpooling2DName is the one
// MediaPipe and LiteRT's perception library both register (each with its
// own kernel, told apart here by the indices' type);
// LiteRtMaxUnpooling2DName is the code LiteRT's own tests register its
// kernel under.
const (
	MaxUnpooling2DName       = "MaxUnpooling2D"
	LiteRtMaxUnpooling2DName = "LiteRtMaxUnpooling2D"
)

// MaxUnpooling2D is the kernel of the MaxUnpooling2D custom operator: the
// inverse of a max pooling with argmax, scattering each input value to
// where its argmax index says and zeros elsewhere. Two upstream kernels
// share the name, with different indices:
//
//   - MediaPipe's (mediapipe/util/tflite/operations/max_unpooling.cc),
//     pairing with MaxPoolingWithArgmax2D: float32 indices holding the
//     position in the pooling window (truncated to an integer idx:
//     fx = idx mod filter_width, fy = idx / filter_width, C's truncating
//     division). The output is [batch, H·filter_height, W·filter_width,
//     C]; input pixel (y, x) writes output pixel (y·stride_h − padT + fy,
//     x·stride_w − padL + fx) of its channel, with padT, padL TFLite's
//     ComputePadding of a window from the output to the input. The
//     options' padding and activation are not read.
//   - LiteRT's (tflite/kernels/perception/max_unpooling_2d.cc), pairing
//     with MaxPoolWithArgmax: int32 indices into the flattened [H', W',
//     C] output image of the same batch element. The output is [batch,
//     H·stride_h, W·stride_w, C] with SAME padding and [batch, (H−1)·
//     stride_h + filter_h, (W−1)·stride_w + filter_w, C] with VALID.
//
// Under LiteRtMaxUnpooling2DName only LiteRT's kernel is available
// (int32 indices).
//
// Inputs: 0 the values, float32 [batch, H, W, C]; 1 the indices, of the
// same shape. Output 0: float32. custom_options are the raw bytes of a C
// TfLitePoolParams, of which the first six int32 fields are read (24
// bytes; fewer are refused): padding, stride_width, stride_height,
// filter_width, filter_height (each used one in [1, 32767]), activation.
// LiteRT refuses padding other than SAME (1) or VALID (2).
//
// Inputs are written in raster order (batch, y, x, channel), so when two
// land on the same output position the later one wins, as upstream. An
// index that is not finite, or that puts an input outside the output
// (which upstream does not check: it writes out of bounds), is an error
// naming the operator, the input position and the index.
type MaxUnpooling2D struct {
	name       string
	liteRT     bool
	p          poolParams
	padT, padL int
	inShape    [4]int
	outShape   [4]int
}

// NewMaxUnpooling2D returns a MaxUnpooling2D kernel (MediaPipe's or
// LiteRT's, chosen at Prepare by the indices' type).
func NewMaxUnpooling2D() ops.Kernel { return &MaxUnpooling2D{name: MaxUnpooling2DName} }

// NewLiteRtMaxUnpooling2D returns a kernel of LiteRtMaxUnpooling2D:
// LiteRT's MaxUnpooling2D only.
func NewLiteRtMaxUnpooling2D() ops.Kernel {
	return &MaxUnpooling2D{name: LiteRtMaxUnpooling2DName, liteRT: true}
}

func init() {
	register(MaxUnpooling2DName, NewMaxUnpooling2D)
	register(LiteRtMaxUnpooling2DName, NewLiteRtMaxUnpooling2D)
}

// Prepare checks the node, decodes the options and sets the output shape.
func (k *MaxUnpooling2D) Prepare(n *ops.Node) error {
	name, onlyLiteRT := k.name, k.liteRT
	if name == "" {
		name = MaxUnpooling2DName
	}
	*k = MaxUnpooling2D{name: name}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	ind, err := n.RequireInput(1)
	if err != nil {
		return fmt.Errorf("%v (indices)", err)
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if k.p, err = decodePoolParams(n.CustomOptions); err != nil {
		return err
	}
	if err := check4D(in, ops.Float32, "input 0"); err != nil {
		return err
	}
	switch {
	case ind.Type == ops.Int32:
		k.liteRT = true
	case ind.Type == ops.Float32 && !onlyLiteRT:
	case onlyLiteRT:
		return fmt.Errorf("input 1 (indices): type %s, need int32 (LiteRT's MaxUnpooling2D)", ind.Type)
	default:
		return fmt.Errorf("input 1 (indices): type %s, need float32 (MediaPipe's MaxUnpooling2D) or int32 (LiteRT's)", ind.Type)
	}
	if err := check4D(ind, ind.Type, "input 1 (indices)"); err != nil {
		return err
	}
	if !ops.SameShape(in.Shape, ind.Shape) {
		return fmt.Errorf("input 1 (indices): shape %v differs from input 0's %v", ind.Shape, in.Shape)
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, need float32", out.Type)
	}
	p := &k.p
	h, w := in.Shape[1], in.Shape[2]
	var oh, ow int
	if k.liteRT {
		switch p.padding {
		case padSame:
			if err := checkPositive("strides (width, height)", p.strideW, p.strideH); err != nil {
				return err
			}
			oh, ow = h*p.strideH, w*p.strideW
		case padValid:
			if err := checkPositive("strides and filter (width, height, width, height)", p.strideW, p.strideH, p.filterW, p.filterH); err != nil {
				return err
			}
			oh, ow = (h-1)*p.strideH+p.filterH, (w-1)*p.strideW+p.filterW
		default:
			return fmt.Errorf("custom_options: padding %d, need 1 (SAME) or 2 (VALID)", p.padding)
		}
	} else {
		if err := checkPositive("strides and filter (width, height, width, height)", p.strideW, p.strideH, p.filterW, p.filterH); err != nil {
			return err
		}
		oh, ow = h*p.filterH, w*p.filterW
		k.padT = computePadding(p.strideH, oh, p.filterH, h)
		k.padL = computePadding(p.strideW, ow, p.filterW, w)
	}
	shape, err := outShape4("output 0", in.Shape[0], oh, ow, in.Shape[3], ops.Float32)
	if err != nil {
		return err
	}
	copy(k.inShape[:], in.Shape)
	copy(k.outShape[:], shape)
	out.Shape = shape
	return nil
}

// Eval scatters the inputs.
func (k *MaxUnpooling2D) Eval(n *ops.Node) error {
	in, ind, out := n.Input(0), n.Input(1), n.Output(0)
	if k.outShape[0] == 0 || in == nil || ind == nil || out == nil {
		return fmt.Errorf("%s: Eval before a successful Prepare", k.name)
	}
	if err := checkData(in, ind, out); err != nil {
		return fmt.Errorf("%s: %w", k.name, err)
	}
	o := out.Float32s()
	clear(o)
	if k.liteRT {
		return k.evalLiteRT(in.Float32s(), ind.Int32s(), o)
	}
	return k.evalMediaPipe(in.Float32s(), ind.Float32s(), o)
}

// evalLiteRT is LiteRT's kernel: flat indices within each batch element.
func (k *MaxUnpooling2D) evalLiteRT(x []float32, ind []int32, o []float32) error {
	inImg := k.inShape[1] * k.inShape[2] * k.inShape[3]
	outImg := k.outShape[1] * k.outShape[2] * k.outShape[3]
	for b := 0; b < k.inShape[0]; b++ {
		xb, ib, ob := x[b*inImg:(b+1)*inImg], ind[b*inImg:(b+1)*inImg], o[b*outImg:(b+1)*outImg]
		for i, idx := range ib {
			if idx < 0 || int(idx) >= outImg {
				return k.badIndex(b, i, strconv.Itoa(int(idx)), fmt.Sprintf("outside [0, %d) (the output image %d×%d×%d)", outImg, k.outShape[1], k.outShape[2], k.outShape[3]))
			}
			ob[idx] = xb[i]
		}
	}
	return nil
}

// evalMediaPipe is MediaPipe's kernel: window positions.
func (k *MaxUnpooling2D) evalMediaPipe(x, ind, o []float32) error {
	h, w, c := k.inShape[1], k.inShape[2], k.inShape[3]
	oh, ow := k.outShape[1], k.outShape[2]
	fw := k.p.filterW
	i := 0
	for b := 0; b < k.inShape[0]; b++ {
		for y := 0; y < h; y++ {
			y0 := y*k.p.strideH - k.padT
			for xx := 0; xx < w; xx++ {
				x0 := xx*k.p.strideW - k.padL
				for ch := 0; ch < c; ch, i = ch+1, i+1 {
					v := ind[i]
					// C's float-to-int conversion truncates; outside
					// int's range (and NaN) it is undefined.
					if !(v > math.MinInt32-1 && v < math.MaxInt32) {
						return k.badIndex(b, i, strconv.FormatFloat(float64(v), 'g', -1, 32), "not a finite int32")
					}
					idx := int(int32(v))
					oy, ox := y0+idx/fw, x0+idx%fw
					if oy < 0 || oy >= oh || ox < 0 || ox >= ow {
						return k.badIndex(b, i, strconv.FormatFloat(float64(v), 'g', -1, 32), fmt.Sprintf("puts input (%d, %d) at output (%d, %d), outside the %d×%d output", y, xx, oy, ox, oh, ow))
					}
					o[((b*oh+oy)*ow+ox)*c+ch] = x[i]
				}
			}
		}
	}
	return nil
}

// badIndex is the error of an index out of range at element i (of the
// whole input for MediaPipe's kernel, of batch b's image for LiteRT's).
func (k *MaxUnpooling2D) badIndex(b, i int, v, why string) error {
	return fmt.Errorf("%s: input 1 (indices): index %s at batch %d, element %d: %s", k.name, v, b, i, why)
}
