package perception

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// MaxPoolWithArgmaxName is the custom code of LiteRT's max pooling with
// argmax.
const MaxPoolWithArgmaxName = "MaxPoolWithArgmax"

// MaxPoolWithArgmax is the kernel of LiteRT's MaxPoolWithArgmax custom
// operator (tflite/kernels/perception/max_pool_with_argmax.cc;
// TensorFlow's tf.nn.max_pool_with_argmax with include_batch_in_index
// false), whose indices LiteRT's MaxUnpooling2D reads.
//
// Input 0: float32 [batch, H, W, C]. Outputs: 0 the maxima, float32; 1
// the indices, int32; both [batch, outH, outW, C].
//
// custom_options are a FlexBuffer map: padding ("SAME" or "VALID"),
// ksize and strides (int vectors [1, h, w, 1]; each h, w in [1, 32767])
// and include_batch_in_index (must be false, as upstream requires). The
// output size and leading padding are TFLite's ComputePaddingHeightWidth
// (⌈in/stride⌉ with SAME, ⌊(in − f + stride)/stride⌋ with VALID, which
// must be positive).
//
// Each window is clipped to the image and scanned in raster order from a
// running maximum of −FLT_MAX, replaced only by a strictly greater value
// (ties keep the first, NaN never wins); the index is the flattened
// position of the maximum in its batch element's [H, W, C] image,
// (y·W + x)·C + c, with (y, x) = (0, 0) when nothing beat −FLT_MAX.
type MaxPoolWithArgmax struct {
	filterH, filterW, strideH, strideW int
	padT, padL                         int
	inShape                            [4]int
	outH, outW                         int
}

// NewMaxPoolWithArgmax returns a kernel for one node.
func NewMaxPoolWithArgmax() ops.Kernel { return &MaxPoolWithArgmax{} }

func init() { register(MaxPoolWithArgmaxName, NewMaxPoolWithArgmax) }

// windowVector reads the map's int vector key, [1, h, w, 1], and returns
// h and w.
func windowVector(m flexbuffers.Map, key string) (h, w int, err error) {
	v, err := m.Get(key)
	if err != nil {
		return 0, 0, fmt.Errorf("custom_options: %s: %v", key, err)
	}
	vec, err := v.AsVector()
	if err != nil {
		return 0, 0, fmt.Errorf("custom_options: %s: %v", key, err)
	}
	if vec.Len() != 4 {
		return 0, 0, fmt.Errorf("custom_options: %s has %d elements, need 4 ([1, h, w, 1])", key, vec.Len())
	}
	var e [4]int64
	for i := range e {
		x, err := vec.At(i)
		if err == nil {
			e[i], err = x.AsInt()
		}
		if err != nil {
			return 0, 0, fmt.Errorf("custom_options: %s[%d]: %v", key, i, err)
		}
	}
	if e[0] != 1 || e[3] != 1 {
		return 0, 0, fmt.Errorf("custom_options: %s %v, need [1, h, w, 1]", key, e)
	}
	if e[1] < 1 || e[1] > maxWindow || e[2] < 1 || e[2] > maxWindow {
		return 0, 0, fmt.Errorf("custom_options: %s %v, need h and w in [1, %d]", key, e, maxWindow)
	}
	return int(e[1]), int(e[2]), nil
}

// Prepare decodes the options, checks the node and sets both outputs'
// shapes.
func (k *MaxPoolWithArgmax) Prepare(n *ops.Node) error {
	*k = MaxPoolWithArgmax{}
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
	if len(n.CustomOptions) == 0 {
		return errors.New("custom_options are missing (a FlexBuffer map of padding, ksize, strides)")
	}
	m, err := flexbuffers.RootMap(n.CustomOptions)
	if err != nil {
		return fmt.Errorf("custom_options: %v", err)
	}
	batchIdx, err := m.Bool("include_batch_in_index")
	if err != nil {
		return fmt.Errorf("custom_options: %v", err)
	}
	if batchIdx {
		return errors.New("custom_options: include_batch_in_index is true; LiteRT's kernel supports only false")
	}
	pv, err := m.Get("padding")
	if err != nil {
		return fmt.Errorf("custom_options: padding: %v", err)
	}
	padding, _ := pv.AsString()
	if padding != "SAME" && padding != "VALID" {
		return fmt.Errorf("custom_options: padding %q, need \"SAME\" or \"VALID\"", padding)
	}
	if k.filterH, k.filterW, err = windowVector(m, "ksize"); err != nil {
		return err
	}
	if k.strideH, k.strideW, err = windowVector(m, "strides"); err != nil {
		return err
	}
	if err := check4D(in, ops.Float32, "input 0"); err != nil {
		return err
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, need float32", out.Type)
	}
	if idx.Type != ops.Int32 {
		return fmt.Errorf("output 1 (indices): type %s, need int32", idx.Type)
	}
	h, w := in.Shape[1], in.Shape[2]
	size := func(in, f, s int) int {
		if padding == "SAME" {
			return (in + s - 1) / s
		}
		return (in - f + s) / s
	}
	k.outH, k.outW = size(h, k.filterH, k.strideH), size(w, k.filterW, k.strideW)
	shape, err := outShape4("output 0", in.Shape[0], k.outH, k.outW, in.Shape[3], ops.Float32)
	if err != nil {
		return err
	}
	if h*w*in.Shape[3] > math.MaxInt32 {
		return fmt.Errorf("input 0: shape %v, the int32 indices cannot address its %d-element images", in.Shape, h*w*in.Shape[3])
	}
	k.padT = computePadding(k.strideH, h, k.filterH, k.outH)
	k.padL = computePadding(k.strideW, w, k.filterW, k.outW)
	copy(k.inShape[:], in.Shape)
	out.Shape = shape
	idx.Shape = append([]int(nil), shape...)
	return nil
}

// Eval pools every window.
func (k *MaxPoolWithArgmax) Eval(n *ops.Node) error {
	in, out, idx := n.Input(0), n.Output(0), n.Output(1)
	if k.outH == 0 || in == nil || out == nil || idx == nil {
		return errors.New(MaxPoolWithArgmaxName + ": Eval before a successful Prepare")
	}
	if err := checkData(in, out, idx); err != nil {
		return fmt.Errorf("%s: %w", MaxPoolWithArgmaxName, err)
	}
	batches, h, w, c := k.inShape[0], k.inShape[1], k.inShape[2], k.inShape[3]
	x, o, ix := in.Float32s(), out.Float32s(), idx.Int32s()
	lowest := float32(-math.MaxFloat32)
	for b := 0; b < batches; b++ {
		img := x[b*h*w*c : (b+1)*h*w*c]
		for oy := 0; oy < k.outH; oy++ {
			y0 := oy*k.strideH - k.padT
			fy0, fy1 := max(0, -y0), min(k.filterH, h-y0)
			for ox := 0; ox < k.outW; ox++ {
				x0 := ox*k.strideW - k.padL
				fx0, fx1 := max(0, -x0), min(k.filterW, w-x0)
				at := ((b*k.outH+oy)*k.outW + ox) * c
				m, mi := o[at:at+c], ix[at:at+c]
				for ch := range m {
					m[ch] = lowest
					mi[ch] = int32(ch) // (y, x) = (0, 0)
				}
				// Channels innermost: each channel still scans its
				// window in raster order.
				for y := y0 + fy0; y < y0+fy1; y++ {
					for xx := x0 + fx0; xx < x0+fx1; xx++ {
						p := (y*w + xx) * c
						px := img[p : p+c]
						for ch, v := range px {
							if v > m[ch] {
								m[ch] = v
								mi[ch] = int32(p + ch)
							}
						}
					}
				}
				// ActivationFunctionWithMinMax with NONE's range.
				for ch, v := range m {
					m[ch] = min(max(v, lowest), math.MaxFloat32)
				}
			}
		}
	}
	return nil
}
