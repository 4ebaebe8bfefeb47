package perception

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// MaxPoolingWithArgmax2DName is the custom code of MediaPipe's max
// pooling with argmax.
const MaxPoolingWithArgmax2DName = "MaxPoolingWithArgmax2D"

// MaxPoolingWithArgmax2D is the kernel of MediaPipe's
// MaxPoolingWithArgmax2D custom operator
// (mediapipe/util/tflite/operations/max_pool_argmax.cc): MAX_POOL_2D that
// also outputs where in its window each maximum was.
//
// Input 0: float32 [batch, H, W, C]. Outputs: 0 the maxima, 1 the argmax
// indices, both float32 [batch, outH, outW, C].
//
// custom_options are the raw bytes of a C TfLitePoolParams; the first six
// little-endian int32 fields are read (24 bytes; fewer are refused, the
// rest ignored): padding (1 SAME, 2 VALID; others refused), stride_width,
// stride_height, filter_width, filter_height (each in [1, 32767]) and the
// fused activation (NONE, RELU, RELU_N1_TO_1, RELU6). The output size is
// ⌈in/stride⌉ with SAME and ⌊(in − f + stride)/stride⌋ with VALID (it
// must be positive), the leading padding TFLite's ComputePadding.
//
// Each window is clipped to the image and scanned in raster order from a
// running maximum of −FLT_MAX; a value replaces it only if strictly
// greater, so ties keep the first position and NaNs never win. The
// maximum is clamped to the activation's range (with NONE to ±FLT_MAX, so
// +Inf comes out as FLT_MAX). The index is the position in the filter
// window, not in the image: fy·filter_width + fx + 0.1 as float32 (the
// 0.1 makes MaxUnpooling2D's truncation to an integer safe); a window
// whose values are all −Inf or NaN gets index 0.1 (fy = fx = 0).
type MaxPoolingWithArgmax2D struct {
	p          poolParams
	padT, padL int
	lo, hi     float32
	inShape    [4]int
	outH, outW int

	rowsFn   func(worker, lo, hi int) // k.rows, made once at Prepare
	x, o, ix []float32                // the tensors' data during Eval
}

// NewMaxPoolingWithArgmax2D returns a kernel for one node.
func NewMaxPoolingWithArgmax2D() ops.Kernel { return &MaxPoolingWithArgmax2D{} }

func init() { register(MaxPoolingWithArgmax2DName, NewMaxPoolingWithArgmax2D) }

// Prepare checks the node, decodes the options and sets both outputs'
// shapes.
func (k *MaxPoolingWithArgmax2D) Prepare(n *ops.Node) error {
	*k = MaxPoolingWithArgmax2D{}
	if err := n.CheckIO(1, 1, 2); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out, idx := n.Output(0), n.Output(1)
	if out == nil || idx == nil {
		return errors.New("outputs 0 and 1 are required")
	}
	if k.p, err = decodePoolParams(n.CustomOptions); err != nil {
		return err
	}
	p := &k.p
	if p.padding != padSame && p.padding != padValid {
		return fmt.Errorf("custom_options: padding %d, need 1 (SAME) or 2 (VALID)", p.padding)
	}
	if err := checkPositive("strides and filter (width, height, width, height)", p.strideW, p.strideH, p.filterW, p.filterH); err != nil {
		return err
	}
	if k.lo, k.hi, err = floatActivationRange(p.activation); err != nil {
		return err
	}
	if err := check4D(in, ops.Float32, "input 0"); err != nil {
		return err
	}
	if out.Type != ops.Float32 || idx.Type != ops.Float32 {
		return fmt.Errorf("outputs: types %s and %s, need float32 (MediaPipe's indices are float32)", out.Type, idx.Type)
	}
	h, w := in.Shape[1], in.Shape[2]
	size := func(in, f, s int) int {
		if p.padding == padSame {
			return (in + s - 1) / s
		}
		return (in - f + s) / s
	}
	k.outH, k.outW = size(h, p.filterH, p.strideH), size(w, p.filterW, p.strideW)
	shape, err := outShape4("output 0", in.Shape[0], k.outH, k.outW, in.Shape[3], ops.Float32)
	if err != nil {
		return err
	}
	k.padT = computePadding(p.strideH, h, p.filterH, k.outH)
	k.padL = computePadding(p.strideW, w, p.filterW, k.outW)
	copy(k.inShape[:], in.Shape)
	out.Shape = shape
	idx.Shape = append([]int(nil), shape...)
	k.rowsFn = k.rows
	return nil
}

// Eval pools every window.
func (k *MaxPoolingWithArgmax2D) Eval(n *ops.Node) error {
	in, out, idx := n.Input(0), n.Output(0), n.Output(1)
	if k.outH == 0 || in == nil || out == nil || idx == nil {
		return errors.New(MaxPoolingWithArgmax2DName + ": Eval before a successful Prepare")
	}
	if err := checkData(in, out, idx); err != nil {
		return fmt.Errorf("%s: %w", MaxPoolingWithArgmax2DName, err)
	}
	k.x, k.o, k.ix = in.Float32s(), out.Float32s(), idx.Float32s()
	rows := k.inShape[0] * k.outH
	n.Parallel(rows, rows*k.outW*k.inShape[3]*k.p.filterH*k.p.filterW, k.rowsFn)
	k.x, k.o, k.ix = nil, nil, nil
	return nil
}

// rows pools output rows [lo, hi) (row r of batch element r / outH); the
// rows write disjoint outputs, so any split gives the same result.
func (k *MaxPoolingWithArgmax2D) rows(_, lo, hi int) {
	h, w, c := k.inShape[1], k.inShape[2], k.inShape[3]
	x, o, ix := k.x, k.o, k.ix
	p := &k.p
	lowest := float32(-math.MaxFloat32)
	for r := lo; r < hi; r++ {
		b, oy := r/k.outH, r%k.outH
		img := x[b*h*w*c : (b+1)*h*w*c]
		y0 := oy*p.strideH - k.padT
		fy0, fy1 := max(0, -y0), min(p.filterH, h-y0)
		for ox := 0; ox < k.outW; ox++ {
			x0 := ox*p.strideW - k.padL
			fx0, fx1 := max(0, -x0), min(p.filterW, w-x0)
			at := ((b*k.outH+oy)*k.outW + ox) * c
			m, mi := o[at:at+c], ix[at:at+c]
			if fy1-fy0 == 2 && fx1-fx0 == 2 {
				k.window2x2(m, mi, img, ((y0+fy0)*w+x0+fx0)*c, w*c, fy0*p.filterW+fx0)
				continue
			}
			// Per channel, the running maximum lives in m and the
			// window index of its position in mi; channels are
			// independent, so scanning channels innermost keeps each
			// channel's raster order over the window.
			for ch := range m {
				m[ch] = lowest
				mi[ch] = 0.1
			}
			for fy := fy0; fy < fy1; fy++ {
				row := img[((y0+fy)*w+x0+fx0)*c:]
				for fx := fx0; fx < fx1; fx++ {
					px := row[(fx-fx0)*c : (fx-fx0+1)*c]
					pos := float32(fy*p.filterW+fx) + 0.1
					for ch, v := range px {
						if v > m[ch] {
							m[ch] = v
							mi[ch] = pos
						}
					}
				}
			}
			for ch, v := range m {
				m[ch] = min(max(v, k.lo), k.hi)
			}
		}
	}
}

// window2x2 is the pooling of one window of exactly 2×2 pixels (the
// clipped window starts at image offset at, rows ld apart, window
// position pos0 = fy0·filter_width + fx0): the four values of each channel
// compared in raster order in registers, each position's channels read
// contiguously.
func (k *MaxPoolingWithArgmax2D) window2x2(m, mi, img []float32, at, ld, pos0 int) {
	c := len(m)
	a0, a1 := img[at:at+c], img[at+c:at+2*c]
	b0, b1 := img[at+ld:at+ld+c], img[at+ld+c:at+ld+2*c]
	fw := k.p.filterW
	p00, p01 := float32(pos0)+0.1, float32(pos0+1)+0.1
	p10, p11 := float32(pos0+fw)+0.1, float32(pos0+fw+1)+0.1
	mi = mi[:c]
	lo, hi := k.lo, k.hi
	for ch := range m {
		best, pos := float32(-math.MaxFloat32), float32(0.1)
		if v := a0[ch]; v > best {
			best, pos = v, p00
		}
		if v := a1[ch]; v > best {
			best, pos = v, p01
		}
		if v := b0[ch]; v > best {
			best, pos = v, p10
		}
		if v := b1[ch]; v > best {
			best, pos = v, p11
		}
		m[ch] = min(max(best, lo), hi)
		mi[ch] = pos
	}
}
