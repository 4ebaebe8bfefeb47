package ops

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/arch"
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
// The loops keep the channel dimension innermost (NHWC rows are
// contiguous), accumulating one output pixel at a time. Hybrid (float
// input, int8 filter) and int16 paths are not supported.
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
	// Row mode (depth multiplier 1, constant filter): each filter tap is
	// applied to a whole output row at once with arch.VecMulAcc, the tap's
	// weights repeated across the row (wRepF, [tap][outW·C]), so the inner
	// loops run over long contiguous spans. With a width stride s > 1 the
	// input row is first split into s phase rows (pixels ix ≡ r mod s), in
	// which the pixels one tap reads are contiguous again. The integer
	// paths use the same float32 machinery on the values w + filter offset
	// and x + input offset: every product is an integer below 2^16 in
	// magnitude and every partial sum below 2^24 (checked at Prepare from
	// the tap count), so float32 holds them exactly and the sums equal
	// TFLite's int32 ones.
	rowMode  bool
	wRepF    []float32
	phaseLen int // pixels per phase row, ceil(inW/s)
	phaseID  int // scratch for the phase rows (stride or depth multiplier > 1)
	xfID     int // integer paths: the input as float32 values x + offset
	accfID   int // integer paths: one row of float32 tap sums
	// Integer row mode: the per-channel requantisation tiled over a
	// whole output row, so one call requantises the row.
	chansRow []quantChannel
}

// maxRowModeWeights bounds the repeated-weight tables of row mode.
const maxRowModeWeights = 1 << 20

// NewDepthwiseConv2D returns a DEPTHWISE_CONV_2D kernel for one node.
func NewDepthwiseConv2D() Kernel { return &DepthwiseConv2D{} }

// Prepare validates the node, sets the output shape and derives the
// quantisation parameters.
func (k *DepthwiseConv2D) Prepare(n *Node) error {
	*k = DepthwiseConv2D{}
	if o, ok := n.Options.(*DepthwiseConv2DOptions); ok && o != nil {
		k.opts = *o
	} else {
		return fmt.Errorf("options: have %T, need *DepthwiseConv2DOptions", n.Options)
	}
	if err := checkActivation(k.opts.Activation); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	if k.opts.Activation == ActTanh || k.opts.Activation == ActSignBit {
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
	case in.Type == Float32 && filter.Type == Float32:
		k.path = convFloat
	case in.Type == Int8 && filter.Type == Int8:
		k.path = convInt8
	case in.Type == Uint8 && filter.Type == Uint8:
		k.path = convUint8
	case in.Type == Float32 && filter.Type == Int8:
		return errors.New("input 1 (filter): hybrid depthwise convolution (float32 input, int8 filter) is not supported")
	default:
		return fmt.Errorf("input 1 (filter): type %s not supported with input type %s (supported: float32/float32, int8/int8, uint8/uint8)", filter.Type, in.Type)
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
		if k.path == convFloat && bias.Type != Float32 {
			return fmt.Errorf("input 2 (bias): type %s, need float32", bias.Type)
		}
	}
	if k.h, err = newWindow(k.opts.Padding, in.Shape[1], filter.Shape[1], k.opts.StrideH, k.opts.DilationHFactor, "height"); err != nil {
		return err
	}
	if k.w, err = newWindow(k.opts.Padding, in.Shape[2], filter.Shape[2], k.opts.StrideW, k.opts.DilationWFactor, "width"); err != nil {
		return err
	}
	outShape := []int{k.batches, k.h.out, k.w.out, k.outC}
	if _, err := ShapeElements(outShape, in.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = outShape
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
	taps := k.h.filter * k.w.filter
	// Integer tap sums stay exact in float32 while taps·255·255 < 2^24.
	k.rowMode = filter.Kind == ConstTensor &&
		len(filter.Data) >= filter.Bytes() && taps*k.w.out*k.outC <= maxRowModeWeights &&
		(k.path == convFloat || taps*255*255 < 1<<24)
	if k.rowMode {
		row := k.w.out * k.outC
		k.wRepF = make([]float32, taps*row)
		for t := 0; t < taps; t++ {
			for c := 0; c < k.outC; c++ {
				var v float32
				switch k.path {
				case convFloat:
					v = filter.Float32s()[t*k.outC+c]
				case convInt8:
					v = float32(filter.Int8s()[t*k.outC+c])
				default:
					v = float32(int32(filter.Data[t*k.outC+c]) + k.q.wOffset)
				}
				for ox := 0; ox < k.w.out; ox++ {
					k.wRepF[t*row+ox*k.outC+c] = v
				}
			}
		}
	}
	if k.path != convFloat {
		if k.rowMode {
			// acc holds the bias tiled over one output row.
			k.accID = n.RequestScratch(4 * k.w.out * k.outC)
			k.accfID = n.RequestScratch(4 * k.w.out * k.outC)
			k.xfID = n.RequestScratch(4 * in.NumElements())
			k.chansRow = make([]quantChannel, k.w.out*k.outC)
			for i := range k.chansRow {
				k.chansRow[i] = k.q.chans[i%k.outC]
			}
		} else {
			k.accID = n.RequestScratch(4 * k.outC)
		}
	}
	if k.rowMode && (k.w.stride > 1 || k.mult > 1) {
		k.phaseLen = (k.w.in + k.w.stride - 1) / k.w.stride
		k.phaseID = n.RequestScratch(4 * k.w.stride * k.phaseLen * k.outC)
	}
	return nil
}

// Eval computes the depthwise convolution.
func (k *DepthwiseConv2D) Eval(n *Node) error {
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
	if k.path == convFloat {
		if k.rowMode {
			return k.evalFloatRows(n, in, bias, out)
		}
		k.evalFloat(in, filter, bias, out)
		return nil
	}
	if k.rowMode {
		return k.evalQuantRows(n, in, bias, out)
	}
	acc, err := scratchInt32(n, k.accID, k.outC)
	if err != nil {
		return err
	}
	k.evalQuant(acc, in, filter, bias, out)
	return nil
}

// tapRange returns, for filter column fx in row mode, the output columns
// [lo, hi) whose input column ox·s + fx·dilation - pad lies in the image,
// the phase r of those input columns (their index mod s) and the position
// in the phase row of the column read for lo.
func (k *DepthwiseConv2D) tapRange(fx int) (lo, hi, r, j int) {
	s := k.w.stride
	d := fx*k.w.dilation - k.w.pad
	lo = max(0, ceilDiv(-d, s))
	hi = min(k.w.out, floorDiv(k.w.in-1-d, s)+1)
	r = d - floorDiv(d, s)*s
	return lo, hi, r, lo + floorDiv(d, s)
}

// floorDiv and ceilDiv divide rounding toward -Inf and +Inf (b > 0).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }

// splitPhases copies input row src (inW pixels of inC elements) into s
// phase rows of phaseLen pixels: phase r holds pixels r, r+s, r+2s, ….
// With a depth multiplier mult > 1 every input value is repeated mult
// times, so a phase pixel has the inC·mult elements of an output pixel
// (output channel c reads input channel c/mult).
func splitPhases[T any](dst, src []T, s, phaseLen, inC, mult int) {
	inW := len(src) / inC
	C := inC * mult
	for r := 0; r < s; r++ {
		ph := dst[r*phaseLen*C:]
		for j, ix := 0, r; ix < inW; j, ix = j+1, ix+s {
			if mult == 1 {
				copyShort(ph[j*C:(j+1)*C], src[ix*C:(ix+1)*C])
				continue
			}
			px := ph[j*C : (j+1)*C]
			for ic, v := range src[ix*inC : (ix+1)*inC] {
				fillValue(px[ic*mult:(ic+1)*mult], v)
			}
		}
	}
}

// evalFloatRows is the float row mode: every output row starts at the
// bias, then the taps are added (products rounded before the add, as in
// the per-pixel loop, so both modes agree bit for bit).
func (k *DepthwiseConv2D) evalFloatRows(n *Node, in, bias, out *Tensor) error {
	phases, err := k.phaseRows(n)
	if err != nil {
		return err
	}
	x, o := in.Float32s(), out.Float32s()
	C, outW := k.outC, k.w.out
	var b []float32
	if bias != nil {
		b = bias.Float32s()[:C]
	}
	image := k.h.in * k.w.in * k.inC
	for batch := 0; batch < k.batches; batch++ {
		for oy := 0; oy < k.h.out; oy++ {
			orow := o[((batch*k.h.out+oy)*outW)*C:][:outW*C]
			fillBias(orow, b, C)
			k.addRowTaps(orow, x[batch*image:(batch+1)*image], oy, phases)
			if k.opts.Activation != ActNone {
				clampRowF32(orow, k.fMin, k.fMax)
			}
		}
	}
	return nil
}

// phaseRows returns the phase-row scratch (nil for width stride 1 and
// depth multiplier 1, which read the input rows directly).
func (k *DepthwiseConv2D) phaseRows(n *Node) ([]float32, error) {
	if k.w.stride == 1 && k.mult == 1 {
		return nil, nil
	}
	return scratchFloat32(n, k.phaseID, k.w.stride*k.phaseLen*k.outC)
}

// addRowTaps adds every filter tap's input·weight products for output row
// oy into dst (outW·C values), reading the image x (one batch, float32).
func (k *DepthwiseConv2D) addRowTaps(dst, x []float32, oy int, phases []float32) {
	C, fW, s := k.outC, k.w.filter, k.w.stride
	rowLen, inRowLen := k.w.out*C, k.w.in*k.inC
	usePhases := s > 1 || k.mult > 1
	yOrigin, fyLo, fyHi := k.h.span(oy)
	for fy := fyLo; fy < fyHi; fy++ {
		iy := yOrigin + fy*k.h.dilation
		src := x[iy*inRowLen:][:inRowLen]
		if usePhases {
			splitPhases(phases, src, s, k.phaseLen, k.inC, k.mult)
		}
		for fx := 0; fx < fW; fx++ {
			lo, hi, r, j := k.tapRange(fx)
			if lo >= hi {
				continue
			}
			if usePhases {
				src = phases[r*k.phaseLen*C:][:k.phaseLen*C]
			}
			wr := k.wRepF[(fy*fW+fx)*rowLen:][:rowLen]
			arch.VecMulAcc(dst[lo*C:hi*C], src[j*C:(j+hi-lo)*C], wr[lo*C:hi*C])
		}
	}
}

// evalQuantRows is the integer row mode: the input is converted once to
// float32 values x + input offset, each output row's tap sums are formed
// in float32 (exactly, see DepthwiseConv2D), then converted to int32, the
// bias added and the per-channel requantisation applied.
func (k *DepthwiseConv2D) evalQuantRows(n *Node, in, bias, out *Tensor) error {
	C, outW := k.outC, k.w.out
	rowLen := outW * C
	acc, err := scratchInt32(n, k.accID, rowLen)
	if err != nil {
		return err
	}
	accf, err := scratchFloat32(n, k.accfID, rowLen)
	if err != nil {
		return err
	}
	xf, err := scratchFloat32(n, k.xfID, in.NumElements())
	if err != nil {
		return err
	}
	phases, err := k.phaseRows(n)
	if err != nil {
		return err
	}
	q := &k.q
	off := float32(q.inOffset)
	if k.path == convInt8 {
		for i, v := range in.Int8s()[:len(xf)] {
			xf[i] = float32(v) + off
		}
	} else {
		for i, v := range in.Data[:len(xf)] {
			xf[i] = float32(v) + off
		}
	}
	// acc: the bias (or zeros) tiled over one output row.
	if bias != nil {
		b := bias.Int32s()[:C]
		for i := 0; i < rowLen; i += C {
			copy(acc[i:i+C], b)
		}
	} else {
		clear(acc)
	}
	image := k.h.in * k.w.in * k.inC
	for batch := 0; batch < k.batches; batch++ {
		for oy := 0; oy < k.h.out; oy++ {
			clear(accf)
			k.addRowTaps(accf, xf[batch*image:(batch+1)*image], oy, phases)
			orow := ((batch*k.h.out + oy) * outW) * C
			if k.path == convInt8 {
				requantRowF32(out.Int8s()[orow:orow+rowLen], accf, acc, k.chansRow, q.outOffset, q.actMin, q.actMax)
			} else {
				requantRowF32(out.Data[orow:orow+rowLen], accf, acc, k.chansRow, q.outOffset, q.actMin, q.actMax)
			}
		}
	}
	return nil
}

// requantRowF32 is requantRow for accumulators held as exact float32
// integers plus an int32 bias: dst[i] = requant(int32(accf[i]) + bias[i]).
func requantRowF32[T int8 | uint8](dst []T, accf []float32, bias []int32, chans []quantChannel, zp, lo, hi int32) {
	chans = chans[:len(accf)]
	bias = bias[:len(accf)]
	dst = dst[:len(accf)]
	for i, f := range accf {
		ch := &chans[i]
		a := int32(f) + bias[i]
		h := (int64(a<<(ch.left&31))*ch.mult + 1<<30) >> 31
		r := int32((h + ch.half + (h>>63)&ch.neg) >> (ch.right & 63))
		dst[i] = T(min(max(r+zp, lo), hi))
	}
}

func (k *DepthwiseConv2D) evalFloat(in, filter, bias, out *Tensor) {
	x, wt, o := in.Float32s(), filter.Float32s(), out.Float32s()
	var b []float32
	if bias != nil {
		b = bias.Float32s()[:k.outC]
	}
	inC, outC, fW := k.inC, k.outC, k.w.filter
	clamp := k.opts.Activation != ActNone
	oi := 0
	for batch := 0; batch < k.batches; batch++ {
		xb := x[batch*k.h.in*k.w.in*inC:]
		for oy := 0; oy < k.h.out; oy++ {
			yOrigin, fyLo, fyHi := k.h.span(oy)
			for ox := 0; ox < k.w.out; ox++ {
				xOrigin, fxLo, fxHi := k.w.span(ox)
				dst := o[oi : oi+outC]
				oi += outC
				if b != nil {
					copy(dst, b)
				} else {
					clear(dst)
				}
				for fy := fyLo; fy < fyHi; fy++ {
					iy := yOrigin + fy*k.h.dilation
					for fx := fxLo; fx < fxHi; fx++ {
						ix := xOrigin + fx*k.w.dilation
						src := xb[(iy*k.w.in+ix)*inC:][:inC]
						wr := wt[(fy*fW+fx)*outC:][:outC]
						if k.mult == 1 {
							if inC >= 32 {
								arch.VecMulAcc(dst, src, wr)
							} else {
								mulAddF32(dst, src, wr)
							}
							continue
						}
						for ic, v := range src {
							d := dst[ic*k.mult : (ic+1)*k.mult]
							ws := wr[ic*k.mult : (ic+1)*k.mult]
							for m := range d {
								d[m] += v * ws[m]
							}
						}
					}
				}
				if clamp {
					clampRowF32(dst, k.fMin, k.fMax)
				}
			}
		}
	}
}

// mulAddF32 adds a[i]·b[i] to dst[i] for every i < len(dst).
func mulAddF32(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		dst[i] += a[i] * b[i]
		dst[i+1] += a[i+1] * b[i+1]
		dst[i+2] += a[i+2] * b[i+2]
		dst[i+3] += a[i+3] * b[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] += a[i] * b[i]
	}
}

func (k *DepthwiseConv2D) evalQuant(acc []int32, in, filter, bias, out *Tensor) {
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
