package perception

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
)

// Convolution2DTransposeBiasName is the custom code of MediaPipe's
// transposed convolution with bias.
const Convolution2DTransposeBiasName = "Convolution2DTransposeBias"

// Convolution2DTransposeBias is the kernel of MediaPipe's
// Convolution2DTransposeBias custom operator
// (mediapipe/util/tflite/operations/transpose_conv_bias.cc), the
// transposed convolution of its segmentation models' decoders: TFLite's
// TRANSPOSE_CONV with a bias input, the output shape computed from the
// options instead of read from an input, and no activation.
//
// Inputs: 0 input [batch, inH, inW, inC]; 1 weights [outC, fH, fW, inC]
// (OHWI); 2 bias [outC]; all float32 (the only type MediaPipe's kernel
// takes). Output 0: float32 [batch, outH, outW, outC].
//
// custom_options are the raw bytes of a C TfLiteTransposeConvParams, of
// which MediaPipe reads the first three little-endian int32 fields:
// padding (1 SAME, 2 VALID), stride_width, stride_height. Fewer than 12
// bytes are refused; bytes after them are ignored, as upstream. Per
// spatial dimension, with SAME the total padding is
// p = max(0, f − (in−1) mod stride − 1), otherwise 0; the output size is
// stride·(in−1) + f − p and the leading padding ⌊p/2⌋. Then
//
//	out[b, y, x, c] = bias[c] + Σ in[b, iy, ix, i]·w[c, fy, fx, i]
//	  over iy·strideH − padT + fy = y, ix·strideW − padL + fx = x.
//
// Upstream treats any padding other than SAME as VALID; this kernel
// refuses values other than 1 and 2, and strides outside [1, 32767]
// (upstream divides by them).
//
// The products run on TRANSPOSE_CONV's float engine (builtin.DeconvF32,
// with AnyOrder: a GEMM per tile of input pixels and the col2im scatter).
// Each output starts at its bias and accumulates the input pixels in
// raster order, as MediaPipe's loop; within a pixel the inC products are
// one dot product (MediaPipe adds them into the output one at a time).
// Where the taps do not overlap and a filter row's products are a
// multiple of 8 wide, the GEMM writes the output rows itself and adds the
// bias after the dot product. Results differ from MediaPipe's only in
// the rounding of those sums (the tests hold them within 1e-5).
type Convolution2DTransposeBias struct {
	d       *builtin.DeconvF32
	batches int
	outC    int
	inH     int
	work    int // multiply-adds of one image
	constW  bool
	colIDs  []int // one product scratch per thread (none when ColLen is 0)

	// During Eval, for the threads of an Apart engine: the current image
	// and each worker's scratch.
	rowsFn func(worker, lo, hi int)
	curOut []float32
	curIn  []float32
	cols   [][]float32
}

// NewConvolution2DTransposeBias returns a kernel for one node.
func NewConvolution2DTransposeBias() ops.Kernel { return &Convolution2DTransposeBias{} }

func init() { register(Convolution2DTransposeBiasName, NewConvolution2DTransposeBias) }

// transposeConvGeometry is MediaPipe's output size and leading padding of
// one spatial dimension.
func transposeConvGeometry(same bool, in, filter, stride int) (out, pad int) {
	total := 0
	if same {
		total = max(0, filter-(in-1)%stride-1)
	}
	return stride*(in-1) + filter - total, total / 2
}

// Prepare checks the node, decodes the options, sets the output shape and
// lays out constant weights.
func (k *Convolution2DTransposeBias) Prepare(n *ops.Node) error {
	*k = Convolution2DTransposeBias{}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	w, err := n.RequireInput(1)
	if err != nil {
		return fmt.Errorf("%v (weights)", err)
	}
	bias, err := n.RequireInput(2)
	if err != nil {
		return fmt.Errorf("%v (bias)", err)
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	v, err := rawInt32s(n.CustomOptions, 3, "TfLiteTransposeConvParams: padding, stride_width, stride_height")
	if err != nil {
		return err
	}
	padding, strideW, strideH := v[0], int(v[1]), int(v[2])
	if padding != padSame && padding != padValid {
		return fmt.Errorf("custom_options: padding %d, need 1 (SAME) or 2 (VALID)", padding)
	}
	if err := checkPositive("strides (width, height)", strideW, strideH); err != nil {
		return err
	}
	if err := check4D(in, ops.Float32, "input 0"); err != nil {
		return err
	}
	if err := check4D(w, ops.Float32, "input 1 (weights)"); err != nil {
		return err
	}
	if bias.Type != ops.Float32 || len(bias.Shape) != 1 {
		return fmt.Errorf("input 2 (bias): %s %v, need a float32 vector", bias.Type, bias.Shape)
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, need float32", out.Type)
	}
	outC, fH, fW, inC := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	if bias.Shape[0] != outC {
		return fmt.Errorf("input 2 (bias): %d elements, the weights have %d output channels", bias.Shape[0], outC)
	}
	if in.Shape[3] != inC {
		return fmt.Errorf("input 1 (weights): %d input channels, input 0 has %d", inC, in.Shape[3])
	}
	same := padding == padSame
	outH, padT := transposeConvGeometry(same, in.Shape[1], fH, strideH)
	outW, padL := transposeConvGeometry(same, in.Shape[2], fW, strideW)
	shape, err := outShape4("output 0", in.Shape[0], outH, outW, outC, ops.Float32)
	if err != nil {
		return err
	}
	k.d, err = builtin.NewDeconvF32(builtin.DeconvShape{
		InH: in.Shape[1], InW: in.Shape[2], InC: inC,
		OutH: outH, OutW: outW, OutC: outC,
		FH: fH, FW: fW, StrideH: strideH, StrideW: strideW,
		PadT: padT, PadL: padL,
		AnyOrder: true, // MediaPipe's order is its own scalar loop's
	})
	if err != nil {
		return err
	}
	k.batches, k.outC, k.inH = in.Shape[0], outC, in.Shape[1]
	k.work = in.Shape[1] * in.Shape[2] * fH * fW * outC * inC
	threads := 1
	if k.d.Apart() {
		// Input rows write disjoint outputs: they may run on every
		// thread, each with its own scratch.
		threads = n.Threads()
	}
	if colLen := k.d.ColLen(); colLen > 0 {
		for t := 0; t < threads; t++ {
			k.colIDs = append(k.colIDs, n.RequestScratch(4*colLen))
		}
	}
	k.cols = make([][]float32, threads)
	k.rowsFn = k.rows
	out.Shape = shape
	k.constW = w.IsConstant()
	if k.constW {
		k.d.LoadWeights(w.Float32s())
	}
	return nil
}

// Eval computes the transposed convolution.
func (k *Convolution2DTransposeBias) Eval(n *ops.Node) error {
	in, w, bias, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if k.d == nil || in == nil || w == nil || bias == nil || out == nil {
		return errors.New(Convolution2DTransposeBiasName + ": Eval before a successful Prepare")
	}
	if err := checkData(in, w, bias, out); err != nil {
		return fmt.Errorf("%s: %w", Convolution2DTransposeBiasName, err)
	}
	if colLen := k.d.ColLen(); colLen > 0 {
		for t, id := range k.colIDs {
			if id >= len(n.Scratch) || len(n.Scratch[id]) < 4*colLen {
				return errors.New(Convolution2DTransposeBiasName + ": scratch buffer missing")
			}
			k.cols[t] = ops.View[float32](n.Scratch[id])[:colLen]
		}
	}
	if !k.constW {
		k.d.LoadWeights(w.Float32s())
	}
	x, o, bv := in.Float32s(), out.Float32s(), bias.Float32s()[:k.outC]
	inImg, outImg := k.d.InLen(), k.d.OutLen()
	for b := 0; b < k.batches; b++ {
		ob, xb := o[b*outImg:(b+1)*outImg], x[b*inImg:(b+1)*inImg]
		if !k.d.Apart() || n.Threads() > len(k.cols) {
			k.d.Image(ob, xb, k.cols[0], bv)
			continue
		}
		k.d.SetBias(bv)
		k.curOut, k.curIn = ob, xb
		n.Parallel(k.inH, k.work, k.rowsFn)
	}
	k.curOut, k.curIn = nil, nil
	return nil
}

// rows computes input rows [lo, hi) of the current image with worker's
// scratch (an Apart engine: the rows' outputs are disjoint).
func (k *Convolution2DTransposeBias) rows(worker, lo, hi int) {
	k.d.ImageRows(k.curOut, k.curIn, k.cols[worker], lo, hi)
}
