package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// DepthwiseConv2D is the kernel of TFLite's DEPTHWISE_CONV_2D operator:
// each input channel ic is convolved with depth_multiplier filters of its
// own, giving output channels ic·depth_multiplier + m.
//
// Inputs: 0 input [batch, inH, inW, inC]; 1 filter [1, fH, fW, outC];
// 2 bias [outC] (optional, zeros when omitted). outC must be a multiple of
// inC; as in TFLite the depth multiplier is outC/inC, whatever the options
// say. Output 0 is [batch, outH, outW, outC], sized as CONV_2D's.
//
// Type paths, matching TFLite's builtin kernel (depthwise_conv.cc, generic
// optimised variant, which on x86 requantises with the away-from-zero
// double rounding of MultiplyByQuantizedMultiplier):
//   - float32 input, filter, bias, output; fused NONE, RELU, RELU_N1_TO_1,
//     RELU6;
//   - int8 input and output, int8 filter with per-tensor or per-channel
//     scales (channels along dimension 3; filter zero points are ignored,
//     as TFLite does), int32 bias;
//   - uint8 input, filter and output with per-tensor scales and any zero
//     points, int32 bias.
//
// A depth multiplier m > 1 with at most dwMultMaxC output channels
// takes the multiplier path on amd64 (depthwise_conv_2d_mult.go: the input read unrepeated,
// eight output pixels in flight whatever the band's shape), integer
// filters of more than dwMultQ8Taps taps the byte path below if it
// applies.
//
// On AVX-512 with VNNI and VBMI the int8 and uint8 paths with a constant
// filter take the byte path of depthwise_conv_2d_q8.go (integer dot
// products over interleaved input rows, no conversion). Otherwise the
// float path, and the integer paths while their tap sums stay exact in
// float32, run through arch.DepthwiseConvF32 / DepthwiseConvF32Int32
// ("rect mode"): the output image is split at Prepare into rectangles
// whose pixels all see the same filter taps (the interior, and the border
// bands where padding cuts taps off), one kernel call each. A depth
// multiplier m > 1 first repeats every input channel m times (output
// channel c reads input channel c/m). The integer paths convert the input
// to float32 values x + input offset and the filter to w + filter offset:
// every product is an integer below 2^16 in magnitude and every partial
// sum below 2^24 (checked at Prepare from the tap count), so float32
// holds them exactly and the sums equal TFLite's int32 ones. Integer
// filters too large for that take a per-pixel int32 loop. The hybrid
// (float input, int8 filter, version 6) and int16x8 paths have files of
// their own (depthwise_conv_2d_hybrid.go, depthwise_conv_2d_int16.go);
// int4 filters are not supported.
type DepthwiseConv2D struct {
	opts      DepthwiseConv2DOptions
	path      convPath
	batches   int
	inC, outC int
	mult      int // depth multiplier
	h, w      window
	accID     int
	fMin      float32
	fMax      float32
	q         convQuant
	// Rect mode.
	rect     bool
	rowBands []dwBand
	colBands []dwBand
	wF       []float32 // integer paths: constant filter as w + offset
	wfID     int       // integer paths, filter not constant: wF in scratch
	xfID     int       // per-thread bands of converted / repeated input rows
	colsID   int       // float: per-thread tiles of narrow bands (depthwise_conv_2d_cols.go), or -1
	// Input moving (inputMoved): rectRows takes its output rows
	// blockRows at a time, first converting (or repeating) the input
	// rows the block reads into its thread's band of bandLen floats.
	blockRows, bandLen int
	zeroBiasF          []float32
	zeroBiasI          []int32
	// Pixel packing (width stride 1, outC = 1, 2, 4 or 8, constant
	// filter): pack = 16/outC neighbouring output pixels share one
	// 16-lane vector, the kernel seeing them as one pixel of 16 channels
	// (their inputs are contiguous too). wPack is the filter with every
	// tap's weights repeated pack times, cqPack the requantisation of 16
	// channels, biasF/biasI the bias repeated (filled at Eval).
	pack       int
	wPack      []float32
	cqPack     *arch.ChannelRequant
	biasF      [16]float32
	biasI      [16]int32
	cq         *arch.ChannelRequant
	inputMoved bool // the kernel reads the xfID scratch, not the input
	// Int16x8 path (depthwise_conv_2d_int16.go): the int64 sums of one
	// pixel. Hybrid path (depthwise_conv_2d_hybrid.go): the quantised
	// input (qID), the int32 sums of one pixel (accID) and each output
	// channel's filter scale.
	acc64ID   int
	qID       int
	chanScale []float32
	// Threading (ops.Node.Parallel): one image's output rows are split
	// over the threads (rows are independent: the same taps in the same
	// order whatever the split). Each thread moves the input rows its
	// blocks read into its own band, so that no pass over the whole
	// converted image, and no barrier between two passes, is needed.
	rowsFn func(worker, lo, hi int)
	run    dwRun
	// Byte path (depthwise_conv_2d_q8.go), nil when not taken.
	q8 *dwQ8
	// Multiplier path (depthwise_conv_2d_mult.go), nil when not taken.
	dm *dwMult
}

// dwRun is what one image's row functions read, cleared when Eval
// returns.
type dwRun struct {
	o       rectOut
	x, w    []float32
	bf      []float32
	bi      []int32
	xf      []float32 // the threads' bands (inputMoved)
	cols    []float32 // the threads' narrow-band tiles (colsID)
	acc     []int32   // the threads' int32 tiles (multiplier path)
	srcF    []float32 // one image of the input, by type
	src8    []int8
	srcU    []uint8
	rowSize int // input values per input row
}

// dwBand is a run of output rows (or columns) whose windows keep the same
// filter taps [lo, hi): outputs o0..o0+n-1, the first reading input
// coordinate first (its tap lo).
type dwBand struct {
	o0, n  int
	lo, hi int
	first  int
}

// dwBands splits the outputs of w into bands.
func dwBands(w *window) []dwBand {
	var bands []dwBand
	for o := 0; o < w.out; o++ {
		origin, lo, hi := w.span(o)
		if hi < lo {
			hi = lo
		}
		if nb := len(bands); nb > 0 && bands[nb-1].lo == lo && bands[nb-1].hi == hi {
			bands[nb-1].n++
			continue
		}
		bands = append(bands, dwBand{o0: o, n: 1, lo: lo, hi: hi, first: origin + lo*w.dilation})
	}
	return bands
}

// dwBandTarget is the size (in float32 values) a thread's band of moved
// input rows aims at: the rows stay in the core's cache between being
// converted and being read by the kernel.
const dwBandTarget = 64 << 10

// dwBlock returns how many output rows of the row window h a block
// takes and the floats of the largest band of input rows (of rowLen
// values) one block reads. A block is at least long enough that the
// input rows two consecutive blocks both read (moved twice) stay under a
// quarter of the rows moved, and longer while its band fits
// dwBandTarget.
func dwBlock(h *window, rowLen int) (blockRows, bandLen int) {
	span := (h.filter-1)*h.dilation + 1
	rows := func(b int) int { return min((b-1)*h.stride+span, h.in) }
	s := max(h.stride, 1)
	b := max(1, (4*(span-s)+s-1)/s)
	for b < h.out && rows(b+1)*rowLen <= dwBandTarget {
		b++
	}
	b = min(b, max(h.out, 1))
	return b, rows(b) * rowLen
}

// inputRows is the range [i0, i1) of input rows that the output rows
// [lo, hi) read (empty when they read none).
func (k *DepthwiseConv2D) inputRows(lo, hi int) (i0, i1 int) {
	i0 = k.h.in
	for o := lo; o < hi; o++ {
		origin, tlo, thi := k.h.span(o)
		if thi > tlo {
			i0 = min(i0, origin+tlo*k.h.dilation)
			i1 = max(i1, origin+(thi-1)*k.h.dilation+1)
		}
	}
	if i1 <= i0 {
		return 0, 0
	}
	return i0, i1
}

// maxRectTaps bounds the filter taps of integer rect mode: every partial
// sum of taps products of magnitude ≤ 255·255 stays below 2^24.
const maxRectTaps = (1<<24 - 1) / (255 * 255)

// NewDepthwiseConv2D returns a DEPTHWISE_CONV_2D kernel for one node.
func NewDepthwiseConv2D() ops.Kernel { return &DepthwiseConv2D{} }

// DepthwiseConv2DOptions is TFLite's DepthwiseConv2DOptions. TFLite
// derives the depth multiplier from the tensor shapes for float, uint8 and
// int8 inputs; DepthMultiplier is kept for reference.
type DepthwiseConv2DOptions struct {
	Padding                          ops.Padding
	StrideW, StrideH                 int
	DepthMultiplier                  int
	DilationWFactor, DilationHFactor int
	Activation                       ops.Activation
	// ExplicitPad is padding {top, bottom, left, right} added around the
	// input with Padding VALID (see Conv2DOptions.ExplicitPad): a PAD
	// folded into the convolution. Only the float32, int8 and uint8
	// paths take it.
	ExplicitPad [4]int
}

// String prints the options as Go's %+v does, without ExplicitPad when
// it is zero (see Conv2DOptions.String).
func (o DepthwiseConv2DOptions) String() string {
	type fields DepthwiseConv2DOptions
	return withoutZeroPad(fmt.Sprintf("%+v", fields(o)), o.ExplicitPad)
}

func init() {
	// TFLite registers 1-7. Every version is taken (see conv_2d.go); Prepare
	// refuses int4 filters.
	register(ops.OpDepthwiseConv2D, NewDepthwiseConv2D, [2]int{1, 7})
	registerOptions(schema.BuiltinOptionsDepthwiseConv2DOptions, decodeDepthwiseConv2DOptions)
}

// decodeDepthwiseConv2DOptions decodes TFLite's DepthwiseConv2DOptions table.
func decodeDepthwiseConv2DOptions(t ops.OptionsTable) (any, error) {
	var o schema.DepthwiseConv2DOptions
	initTable(&o, t)
	return &DepthwiseConv2DOptions{
		Padding:         ops.Padding(o.Padding()),
		StrideW:         int(o.StrideW()),
		StrideH:         int(o.StrideH()),
		DepthMultiplier: int(o.DepthMultiplier()),
		DilationWFactor: int(o.DilationWFactor()),
		DilationHFactor: int(o.DilationHFactor()),
		Activation:      ops.Activation(o.FusedActivationFunction()),
	}, nil
}

// Prepare validates the node, sets the output shape and derives the
// quantisation parameters.
func (k *DepthwiseConv2D) Prepare(n *ops.Node) error {
	*k = DepthwiseConv2D{colsID: -1}
	if o, ok := n.Options.(*DepthwiseConv2DOptions); ok && o != nil {
		k.opts = *o
	} else {
		return fmt.Errorf("options: have %T, need *DepthwiseConv2DOptions", n.Options)
	}
	if err := checkActivation(k.opts.Activation); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	if k.opts.Activation == ops.ActTanh || k.opts.Activation == ops.ActSignBit {
		return fmt.Errorf("options: fused activation %s is not supported by DEPTHWISE_CONV_2D", k.opts.Activation)
	}
	if err := n.CheckIO(2, 3, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	filter, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	bias := n.Input(2)
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := check4D(in, "input 0"); err != nil {
		return err
	}
	if err := check4D(filter, "input 1 (filter)"); err != nil {
		return err
	}
	switch {
	case in.Type == ops.Float32 && filter.Type == ops.Float32:
		k.path = convFloat
	case in.Type == ops.Int8 && filter.Type == ops.Int8:
		k.path = convInt8
	case in.Type == ops.Uint8 && filter.Type == ops.Uint8:
		k.path = convUint8
	case in.Type == ops.Float32 && filter.Type == ops.Int8:
		k.path = convHybrid
	case in.Type == ops.Int16 && filter.Type == ops.Int8:
		k.path = convInt16
	default:
		return fmt.Errorf("input 1 (filter): type %s not supported with input type %s (supported: float32/float32, float32/int8, int8/int8, uint8/uint8, int16/int8)", filter.Type, in.Type)
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	if _, err := numElementsChecked(filter, "input 1 (filter)"); err != nil {
		return err
	}
	if filter.Shape[0] != 1 {
		return fmt.Errorf("input 1 (filter): shape %v, need [1, height, width, channels]", filter.Shape)
	}
	k.batches, k.inC, k.outC = in.Shape[0], in.Shape[3], filter.Shape[3]
	if k.inC == 0 {
		return errors.New("input 0: 0 channels")
	}
	if k.outC%k.inC != 0 {
		return fmt.Errorf("input 1 (filter): %d output channels is not a multiple of the %d input channels", k.outC, k.inC)
	}
	k.mult = k.outC / k.inC
	if bias != nil {
		if bias.Rank() != 1 || bias.Shape[0] != k.outC {
			return fmt.Errorf("input 2 (bias): shape %v, need [%d]", bias.Shape, k.outC)
		}
		if k.path == convFloat && bias.Type != ops.Float32 {
			return fmt.Errorf("input 2 (bias): type %s, need float32", bias.Type)
		}
	}
	if k.h, k.w, err = convWindows(k.opts.Padding, k.opts.ExplicitPad, k.path, in, filter.Shape[1], filter.Shape[2], k.opts.StrideH, k.opts.StrideW, k.opts.DilationHFactor, k.opts.DilationWFactor); err != nil {
		return err
	}
	outShape := []int{k.batches, k.h.out, k.w.out, k.outC}
	if _, err := ops.ShapeElements(outShape, in.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = outShape
	if err := reserveDepthwise(n, filter.Shape[1], filter.Shape[2], k.outC); err != nil {
		return err
	}
	switch k.path {
	case convInt16:
		return k.prepareInt16(n, in, filter, bias, out)
	case convHybrid:
		return k.prepareHybrid(n, in, filter, bias)
	}
	if k.path == convFloat {
		k.fMin, k.fMax = ActivationRangeFloat(k.opts.Activation)
	} else {
		if err := k.q.prepare(in, filter, bias, out, k.opts.Activation, k.outC, 3, false); err != nil {
			return err
		}
		if k.path == convInt8 {
			k.q.wOffset = 0
		}
	}
	if out.NumElements() == 0 {
		// Eval returns at once: no bands, packing or scratch, whose
		// sizes follow the declared (possibly huge) image and filter.
		return nil
	}
	if k.path != convFloat {
		if k.cq, err = arch.NewChannelRequant(k.q.mult, k.q.shift); err != nil {
			return fmt.Errorf("output 0: %v", err)
		}
	}
	manyTaps := k.h.filter*k.w.filter > dwMultQ8Taps && dwMultUse == 0
	if k.path != convFloat && manyTaps && k.prepareQ8(n, filter) {
		return nil
	}
	if k.prepareMult(n, filter, bias) {
		return nil
	}
	if k.path != convFloat && !manyTaps {
		if k.prepareQ8(n, filter) {
			return nil
		}
	}
	taps := k.h.filter * k.w.filter
	k.rect = k.path == convFloat || taps <= maxRectTaps
	if !k.rect {
		if k.path != convFloat {
			k.accID = n.RequestScratch(4 * k.outC)
		}
		return nil
	}
	k.rowBands, k.colBands = dwBands(&k.h), dwBands(&k.w)
	k.rowsFn = k.rectRows
	// The kernels read a float32 input with outC channels per pixel:
	// the input itself (float, multiplier 1) or a converted / repeated
	// copy of the rows a block of output rows reads.
	k.inputMoved = k.path != convFloat || k.mult > 1
	if k.inputMoved {
		k.blockRows, k.bandLen = dwBlock(&k.h, k.w.in*k.outC)
		k.xfID = n.RequestScratch(4 * k.bandLen * n.Threads())
	}
	if k.path == convFloat {
		if bias == nil {
			k.zeroBiasF = make([]float32, k.outC)
		}
		k.preparePacking(filter)
		k.prepareCols(n)
		return nil
	}
	if filter.IsConstant() {
		k.wF = make([]float32, taps*k.outC)
		k.convertFilter(k.wF, filter)
	} else {
		k.wfID = n.RequestScratch(4 * taps * k.outC)
	}
	if bias == nil {
		k.zeroBiasI = make([]int32, k.outC)
	}
	k.preparePacking(filter)
	return nil
}

// preparePacking sets up pixel packing when it applies.
func (k *DepthwiseConv2D) preparePacking(filter *ops.Tensor) {
	C := k.outC
	if k.w.stride != 1 || C == 0 || C > 8 || 16%C != 0 || !filter.IsConstant() {
		return
	}
	k.pack = 16 / C
	taps := k.h.filter * k.w.filter
	w := k.wF
	if k.path == convFloat {
		w = filter.Float32s()[:taps*C]
	}
	k.wPack = make([]float32, taps*16)
	for t := 0; t < taps; t++ {
		for l := 0; l < 16; l++ {
			k.wPack[t*16+l] = w[t*C+l%C]
		}
	}
	if k.path != convFloat {
		mult, shift := make([]int32, 16), make([]int, 16)
		for l := range mult {
			mult[l], shift[l] = k.q.mult[l%C], k.q.shift[l%C]
		}
		k.cqPack, _ = arch.NewChannelRequant(mult, shift) // same parameters as k.cq
	}
}

// convertFilter sets dst to the integer filter's values plus the filter
// offset, as float32.
func (k *DepthwiseConv2D) convertFilter(dst []float32, filter *ops.Tensor) {
	if k.path == convInt8 {
		for i, v := range filter.Int8s()[:len(dst)] {
			dst[i] = float32(v)
		}
		return
	}
	for i, v := range filter.Data[:len(dst)] {
		dst[i] = float32(int32(v) + k.q.wOffset)
	}
}

// Eval computes the depthwise convolution.
func (k *DepthwiseConv2D) Eval(n *ops.Node) error {
	in, filter, bias, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if in == nil || filter == nil || out == nil {
		return errors.New("DEPTHWISE_CONV_2D: input, filter or output missing at Eval")
	}
	if err := checkData(in, filter, bias, out); err != nil {
		return err
	}
	if k.batches*k.h.out*k.w.out*k.outC == 0 {
		return nil
	}
	switch k.path {
	case convInt16:
		return k.evalInt16(n, in, filter, bias, out)
	case convHybrid:
		return k.evalHybrid(n, in, filter, bias, out)
	}
	if k.dm != nil {
		return k.evalMult(n, in, filter, bias, out)
	}
	if k.q8 != nil {
		return k.evalQ8(n, in, bias, out)
	}
	if k.rect {
		return k.evalRect(n, in, filter, bias, out)
	}
	acc, err := scratchInt32(n, k.accID, k.outC)
	if err != nil {
		return err
	}
	k.evalQuant(acc, in, filter, bias, out)
	return nil
}

// evalRect runs rect mode (see DepthwiseConv2D) one batch image at a time.
func (k *DepthwiseConv2D) evalRect(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	C := k.outC
	inImage, outImage := k.h.in*k.w.in*k.inC, k.h.out*k.w.out*C
	r := &k.run
	defer func() { k.run = dwRun{} }()
	r.rowSize = k.w.in * k.inC
	if k.inputMoved {
		var err error
		if r.xf, err = scratchFloat32(n, k.xfID, k.bandLen*n.Threads()); err != nil {
			return err
		}
	}
	taps := k.h.filter * k.w.filter
	work := k.h.out * k.w.out * C * taps // per image
	if k.path == convFloat {
		if k.colsID >= 0 {
			var err error
			if r.cols, err = scratchFloat32(n, k.colsID, dwColsTile*n.Threads()); err != nil {
				return err
			}
		}
		x, o := in.Float32s(), out.Float32s()
		r.w, r.bf = filter.Float32s(), k.zeroBiasF
		if bias != nil {
			r.bf = bias.Float32s()[:C]
		}
		k.fillPackedBias()
		for batch := 0; batch < k.batches; batch++ {
			r.x = x[batch*inImage : (batch+1)*inImage]
			if k.inputMoved {
				r.srcF, r.x = r.x, nil
			}
			r.o = rectOut{f: o[batch*outImage : (batch+1)*outImage]}
			n.Parallel(k.h.out, work, k.rowsFn)
		}
		return nil
	}
	r.w = k.wF
	if r.w == nil {
		var err error
		if r.w, err = scratchFloat32(n, k.wfID, k.h.filter*k.w.filter*C); err != nil {
			return err
		}
		k.convertFilter(r.w, filter)
	}
	r.bi = k.zeroBiasI
	if bias != nil {
		r.bi = bias.Int32s()[:C]
	}
	k.fillPackedBias()
	for batch := 0; batch < k.batches; batch++ {
		if k.path == convInt8 {
			r.src8 = in.Int8s()[batch*inImage : (batch+1)*inImage]
			r.o = rectOut{i8: out.Int8s()[batch*outImage : (batch+1)*outImage]}
		} else {
			r.srcU = in.Data[batch*inImage : (batch+1)*inImage]
			r.o = rectOut{u8: out.Data[batch*outImage : (batch+1)*outImage]}
		}
		n.Parallel(k.h.out, work, k.rowsFn)
	}
	return nil
}

// moveRows converts (integer) or repeats (multiplier > 1) the input rows
// [lo, hi) of the current image into dst.
func (k *DepthwiseConv2D) moveRows(dst []float32, lo, hi int) {
	r := &k.run
	a, b := lo*r.rowSize, hi*r.rowSize
	dst = dst[:(b-a)*k.mult]
	switch {
	case r.srcF != nil:
		repeatChannels(dst, r.srcF[a:b], k.inC, k.mult)
	case r.src8 != nil:
		offsetRepeat(dst, r.src8[a:b], k.inC, k.mult, k.q.inOffset)
	default:
		offsetRepeat(dst, r.srcU[a:b], k.inC, k.mult, k.q.inOffset)
	}
}

// rectOut is the output image of one rect-mode pass: float32, int8 or
// uint8 (the integer paths requantise in the kernel).
type rectOut struct {
	f  []float32
	i8 []int8
	u8 []uint8
}

// fillPackedBias repeats the bias over the 16 lanes of pixel packing.
func (k *DepthwiseConv2D) fillPackedBias() {
	if k.pack <= 1 {
		return
	}
	C := k.outC
	for l := range 16 {
		if k.run.bi == nil {
			k.biasF[l] = k.run.bf[l%C]
		} else {
			k.biasI[l] = k.run.bi[l%C]
		}
	}
}

// rectRows runs the kernel over the output rows [lo, hi) of the current
// image (k.run). With inputMoved it goes blockRows output rows at a
// time, first moving the input rows the block reads into the worker's
// band.
func (k *DepthwiseConv2D) rectRows(worker, lo, hi int) {
	r := &k.run
	if !k.inputMoved {
		k.rectBlock(worker, lo, hi, r.x, 0)
		return
	}
	band := r.xf[worker*k.bandLen : (worker+1)*k.bandLen]
	inRow := k.w.in * k.outC
	for a := lo; a < hi; a += k.blockRows {
		b := min(a+k.blockRows, hi)
		i0, i1 := k.inputRows(a, b)
		if i1 > i0 {
			k.moveRows(band, i0, i1)
		}
		k.rectBlock(worker, a, b, band[:(i1-i0)*inRow], i0)
	}
}

// rectBlock runs the kernel over the output rows [lo, hi): the part of
// every band rectangle in those rows, float output with bias bf, or
// requantised integer output of the int32 sums plus bias bi. x holds the
// input rows from x0 on, outC channels per pixel (every row the output
// rows read); w is the filter [taps][outC].
func (k *DepthwiseConv2D) rectBlock(worker, lo, hi int, x []float32, x0 int) {
	r := &k.run
	o, w, bf, bi := r.o, r.w, r.bf, r.bi
	C := k.outC
	f := k.pack
	inRow := k.w.in * C
	for _, rb := range k.rowBands {
		r0, r1 := max(rb.o0, lo), min(rb.o0+rb.n, hi)
		if r0 >= r1 {
			continue
		}
		skip := r0 - rb.o0
		for _, cb := range k.colBands {
			g := arch.DepthwiseGeom{
				Rows: r1 - r0, Cols: cb.n, C: C,
				TapRows: rb.hi - rb.lo, TapCols: cb.hi - cb.lo,
				XRowStep: k.h.stride * inRow, XColStep: k.w.stride * C,
				XTapRow: k.h.dilation * inRow, XTapCol: k.w.dilation * C,
				DstRowStep: k.w.out * C, WTapRow: k.w.filter * C,
			}
			xo, wo := (rb.first+skip*k.h.stride-x0)*inRow+cb.first*C, (rb.lo*k.w.filter+cb.lo)*C
			d := (r0*k.w.out + cb.o0) * C
			if f > 1 && cb.n >= f {
				// Groups of f pixels as pixels of 16 channels.
				gp := g
				gp.Cols, gp.C, gp.XColStep, gp.WTapRow = cb.n/f, 16, 16, k.w.filter*16
				k.runRect(o, d, x, xo, k.wPack, (rb.lo*k.w.filter+cb.lo)*16, k.biasF[:], k.biasI[:], k.cqPack, gp)
				done := gp.Cols * f
				g.Cols -= done
				xo += done * C
				d += done * C
				if g.Cols == 0 {
					continue
				}
			}
			if k.narrowCols(o, g) {
				k.runRectCols(r.cols[worker*dwColsTile:(worker+1)*dwColsTile], o.f[d:], x[xo:], w[wo:], bf, g)
				continue
			}
			k.runRect(o, d, x, xo, w, wo, bf, bi, k.cq, g)
		}
	}
}

// runRect runs the kernel on one rectangle g whose first output is at d,
// first input at xo and first weight at wo.
func (k *DepthwiseConv2D) runRect(o rectOut, d int, x []float32, xo int, w []float32, wo int, bf []float32, bi []int32, cq *arch.ChannelRequant, g arch.DepthwiseGeom) {
	xs, ws := x[:0], w[:0]
	if g.TapRows > 0 && g.TapCols > 0 {
		xs, ws = x[xo:], w[wo:]
	}
	q := &k.q
	switch {
	case o.f != nil:
		arch.DepthwiseConvF32(o.f[d:], xs, ws, bf, g, k.fMin, k.fMax)
	case o.i8 != nil:
		arch.DepthwiseConvRequantizeInt8(o.i8[d:], xs, ws, bi, g, cq, q.outOffset, q.actMin, q.actMax)
	default:
		arch.DepthwiseConvRequantizeUint8(o.u8[d:], xs, ws, bi, g, cq, q.outOffset, q.actMin, q.actMax)
	}
}

// repeatChannels copies the image src (inC channels per pixel) to dst
// with every value repeated mult times.
func repeatChannels(dst, src []float32, inC, mult int) {
	dst = dst[:len(src)*mult]
	if mult == 1 {
		copy(dst, src)
		return
	}
	arch.RepeatF32(dst, src, mult)
}

// offsetRepeat sets dst to the integer image src plus offset as float32,
// every value repeated mult times: converted into the tail of dst, then
// repeated in place (arch.RepeatF32 allows it).
func offsetRepeat[T int8 | uint8](dst []float32, src []T, inC, mult int, offset int32) {
	dst = dst[:len(src)*mult]
	tail := dst[len(dst)-len(src):]
	switch s := any(src).(type) {
	case []int8:
		arch.Int8ToF32(tail, s, offset)
	case []uint8:
		arch.Uint8ToF32(tail, s, offset)
	}
	if mult > 1 {
		arch.RepeatF32(dst, tail, mult)
	}
}

func (k *DepthwiseConv2D) evalQuant(acc []int32, in, filter, bias, out *ops.Tensor) {
	var b []int32
	if bias != nil {
		b = bias.Int32s()[:k.outC]
	}
	inC, outC, fW := k.inC, k.outC, k.w.filter
	inOff, wOff := k.q.inOffset, k.q.wOffset
	x8, w8, o8 := in.Int8s(), filter.Int8s(), out.Int8s()
	oi := 0
	for batch := 0; batch < k.batches; batch++ {
		base := batch * k.h.in * k.w.in * inC
		for oy := 0; oy < k.h.out; oy++ {
			yOrigin, fyLo, fyHi := k.h.span(oy)
			for ox := 0; ox < k.w.out; ox++ {
				xOrigin, fxLo, fxHi := k.w.span(ox)
				if b != nil {
					copy(acc, b)
				} else {
					clear(acc)
				}
				for fy := fyLo; fy < fyHi; fy++ {
					iy := yOrigin + fy*k.h.dilation
					for fx := fxLo; fx < fxHi; fx++ {
						ix := xOrigin + fx*k.w.dilation
						xo := base + (iy*k.w.in+ix)*inC
						wo := (fy*fW + fx) * outC
						if k.path == convInt8 {
							accumulateInt8(acc, x8[xo:xo+inC], w8[wo:wo+outC], k.mult, inOff)
						} else {
							accumulateUint8(acc, in.Data[xo:xo+inC], filter.Data[wo:wo+outC], k.mult, inOff, wOff)
						}
					}
				}
				q := &k.q
				if k.path == convInt8 {
					requantRow(o8[oi:oi+outC], acc, q.chans, q.outOffset, q.actMin, q.actMax)
				} else {
					requantRow(out.Data[oi:oi+outC], acc, q.chans, q.outOffset, q.actMin, q.actMax)
				}
				oi += outC
			}
		}
	}
}

// accumulateInt8 adds one filter tap of an int8 depthwise convolution:
// acc[ic·mult+m] += w[ic·mult+m]·(x[ic] + inOff).
func accumulateInt8(acc []int32, x, w []int8, mult int, inOff int32) {
	if mult == 1 {
		w = w[:len(x)]
		acc = acc[:len(x)]
		for c, v := range x {
			acc[c] += int32(w[c]) * (int32(v) + inOff)
		}
		return
	}
	for ic, v := range x {
		xv := int32(v) + inOff
		ws := w[ic*mult : (ic+1)*mult]
		as := acc[ic*mult : (ic+1)*mult]
		for m, wv := range ws {
			as[m] += int32(wv) * xv
		}
	}
}

// accumulateUint8 is accumulateInt8 for uint8 data with a filter offset.
func accumulateUint8(acc []int32, x, w []uint8, mult int, inOff, wOff int32) {
	for ic, v := range x {
		xv := int32(v) + inOff
		ws := w[ic*mult : (ic+1)*mult]
		as := acc[ic*mult : (ic+1)*mult]
		for m, wv := range ws {
			as[m] += (int32(wv) + wOff) * xv
		}
	}
}
