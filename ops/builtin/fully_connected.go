package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// FullyConnected is the kernel of TFLite's FULLY_CONNECTED operator:
// output[b, u] = act(Σ_c weights[u, c]·input[b, c] + bias[u]).
//
// Inputs: 0 input (any rank ≥ 1; its elements are read as
// [batch, input_size] rows, batch = elements / input_size), 1 weights
// [units, input_size], 2 bias [units] (optional). Output 0 is
// [batch, units], or the input's shape with its last dimension replaced
// by units when KeepNumDims is set (the last input dimension must then be
// input_size).
//
// Type paths, matching TFLite's builtin (generic optimised) kernel on x86:
//   - float32 input/weights/bias/output, fused NONE, RELU, RELU_N1_TO_1 or
//     RELU6;
//   - int8 input and weights, int32 bias, int8 output, per-tensor or
//     per-channel weight scales: TFLite's x86 build hands the product to
//     ruy, and the accumulator is rescaled as ruy's x86 kernels do
//     (ops.MultiplyByQuantizedMultiplierUp: the saturating rounding
//     doubling high multiply, then a rounding right shift whose ties go
//     upward). Neither ruy's portable reference (one rounding) nor TFLite's
//     own MultiplyByQuantizedMultiplier (ties away from zero) is what it
//     computes: with the latter, negative values halfway between two
//     steps came out one step low (the DTLN model two steps after its
//     LSTMs);
//   - uint8 input and weights (asymmetric, any zero points), int32 bias,
//     uint8 or int16 output: gemmlowp's double-rounding multiplier;
//   - int16 input with int8 weights (int32 or int64 bias, per-tensor or
//     per-channel) or int16 weights, int16 output: with all zero points 0
//     and an int32 (or no) bias through ruy as for int8 (ties upward),
//     otherwise TFLite's reference arithmetic (rounding acc·scale computed
//     in double);
//   - hybrid: float32 input and output, int8 symmetric weights (per-tensor
//     or per-channel scales), float32 bias; each batch row of the input is
//     quantised to int8 (symmetric, or asymmetric when
//     AsymmetricQuantizeInputs is set) with its own scale, as TFLite's
//     BatchQuantizeFloats; any fused activation.
//
// Prepare errors name the offending input ("input 1 (weights): type int16
// not supported with input type int8"). Int4 weights (constant, packed two
// to a byte, zero points 0) are unpacked to int8 at Prepare as TFLite
// unpacks them at every Eval, and then take the int8 paths
// (fully_connected_int4.go); blockwise-quantised int4 weights with float
// input take TFLite's EvalBlockwise4Bit (fully_connected_blockwise.go).
// Shuffled 4x16 uint8 weights (weights_format SHUFFLED4x16INT8, version
// 2) take TFLite's ShuffledFullyConnected (fully_connected_shuffled.go);
// sparse constant weights (version 8) take TFLite's sparse kernels
// (fully_connected_sparse.go). Int2 weights are not supported.
type FullyConnected struct {
	opts      FullyConnectedOptions
	path      fcPath
	batch     int
	units     int
	cols      int
	zeroCols  bool
	actMin    int32
	actMax    int32
	fActMin   float32
	fActMax   float32
	inOffset  int32 // -input zero point
	wOffset   int32 // -weights zero point
	outOffset int32 // output zero point
	mult      int32
	shift     int
	chanMult  []int32
	chanShift []int
	// Reference int16 path: per-channel (or one) double-precision scales.
	effScale  []float64
	bias64    bool
	rowSums   []int32
	rowSumsOK bool
	// w4 is int4 weights unpacked to one int8 per value (nil otherwise).
	w4 []int8
	// Blockwise int4 weights (fully_connected_blockwise.go): the scale of
	// each block of each row, and the block length.
	blockScales []float32 // [blocks, units]
	blockSize   int
	blockW      []int8    // unpacked weights, block-major: [blocks, units, blockSize]
	blockKfsum  []float32 // per unit: Σ_blocks scale·float(Σw)
	zeroCorr    []int32
	// packed is the constant float weights in arch's packed layout
	// (arch.PackMatrix), nil when they are not packed (see fcPackMaxCols).
	packed []float32
	// sp is the block structure of sparse weights
	// (fully_connected_sparse.go), nil for dense weights.
	sp *fcSparse
	// roundAway rescales int8 results with TFLite's
	// MultiplyByQuantizedMultiplier (ties away from zero) instead of
	// ruy's rounding: its sparse int8 kernel's arithmetic.
	roundAway bool
	// Scratch indices.
	accScratch, qScratch, sfScratch, offScratch int
	// Hybrid path: per-batch zero-point corrections and scales of the
	// output step (scratch), and the zeros it adds without a bias.
	hybCorr, hybScale int
	zeroBias          []float32
	// Threading (ops.Node.Parallel) of the float and int8 paths: the
	// units are blocks of fcRowBlock output rows of each batch row
	// (block boundaries do not depend on the thread count, so every
	// count runs the same products); int8 keeps an accumulator row per
	// thread.
	threads int
	blocks  int // row blocks per batch row
	rowsFn  func(worker, lo, hi int)
	run     fcRun
	// gemm runs an int8 batch as one GEMM (fully_connected_gemm.go), nil
	// for the row path.
	gemm *fcGemm
}

// fcRowBlock is the number of output rows in one unit of threaded work:
// four whole blocks of arch's packed layout, which the AVX-512 packed
// product streams at once (a unit is one product call, so the grouping,
// and with it every sum, is the same at every thread count).
const fcRowBlock = 4 * arch.PackedBlock

// fcRun is what the row functions of one Eval read, cleared when Eval
// returns.
type fcRun struct {
	xf, mf, of, bf []float32
	x8, m8, o8     []int8
	acc, rowSums   []int32
	b32            []int32
}

type fcPath uint8

const (
	fcFloat fcPath = iota
	fcInt8
	fcUint8
	fcInt16Gemm
	fcInt16Ref
	fcHybrid
	fcShuffled // fully_connected_shuffled.go
)

const (
	fcInput   = "input 0 (input)"
	fcWeights = "input 1 (weights)"
	fcBias    = "input 2 (bias)"
	fcOutput  = "output 0"
)

// NewFullyConnected returns a FULLY_CONNECTED kernel for one node.
func NewFullyConnected() ops.Kernel { return &FullyConnected{} }

// FullyConnectedOptions is TFLite's FullyConnectedOptions.
type FullyConnectedOptions struct {
	Activation ops.Activation
	// WeightsFormat is 0 (DEFAULT) or 1 (SHUFFLED4x16INT8).
	WeightsFormat int8
	// KeepNumDims keeps the input's leading dimensions in the output
	// instead of flattening them into one batch dimension.
	KeepNumDims bool
	// AsymmetricQuantizeInputs selects asymmetric input quantisation in
	// the hybrid (float input, int8 weights) path.
	AsymmetricQuantizeInputs bool
	// QuantizedBiasType is the bias type of a quantised FC (Float32 = 0
	// means "the default for the input type").
	QuantizedBiasType ops.DataType
}

func init() {
	// TFLite registers 1-14: 2 is the shuffled weights format, 8 sparse
	// weights.
	register(ops.OpFullyConnected, NewFullyConnected, [2]int{1, 14})
	registerOptions(schema.BuiltinOptionsFullyConnectedOptions, decodeFullyConnectedOptions)
}

// decodeFullyConnectedOptions decodes TFLite's FullyConnectedOptions table.
func decodeFullyConnectedOptions(t ops.OptionsTable) (any, error) {
	var o schema.FullyConnectedOptions
	initTable(&o, t)
	return &FullyConnectedOptions{
		Activation:               ops.Activation(o.FusedActivationFunction()),
		WeightsFormat:            int8(o.WeightsFormat()),
		KeepNumDims:              o.KeepNumDims(),
		AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
		QuantizedBiasType:        ops.DataType(o.QuantizedBiasType()),
	}, nil
}

// Prepare validates the node, sets the output shape and derives the
// quantised multipliers and activation range.
func (k *FullyConnected) Prepare(n *ops.Node) error {
	*k = FullyConnected{}
	if o, ok := n.Options.(*FullyConnectedOptions); ok && o != nil {
		k.opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *FullyConnectedOptions", n.Options)
	}
	shuffled := k.opts.WeightsFormat == fcShuffled4x16
	if k.opts.WeightsFormat != 0 && !shuffled {
		return fmt.Errorf("options: weights format %d, need 0 (DEFAULT) or 1 (SHUFFLED4x16INT8)", k.opts.WeightsFormat)
	}
	if err := checkActivation(k.opts.Activation); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	// The shuffled format has a second output: the workspace TFLite
	// writes the sign-flipped input into.
	outputs := 1
	if shuffled {
		outputs = 2
	}
	if err := n.CheckIO(2, 3, outputs); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	w, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	bias := n.Input(2)
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := k.choosePath(in, w, bias, out); err != nil {
		return err
	}
	if shuffled && (in.Type != ops.Uint8 || w.Type != ops.Uint8 || out.Type != ops.Int16) {
		return fmt.Errorf("options: the shuffled 4x16 weights format needs uint8 input and weights and int16 output, have %s, %s and %s", in.Type, w.Type, out.Type)
	}
	if w.Sparsity != nil && (shuffled || w.Blockwise != nil) {
		return fmt.Errorf("%s: sparse weights cannot also be shuffled or blockwise-quantized", fcWeights)
	}
	if k.path != fcHybrid && k.opts.Activation != ops.ActNone && k.opts.Activation != ops.ActRelu &&
		k.opts.Activation != ops.ActReluN1To1 && k.opts.Activation != ops.ActRelu6 {
		return fmt.Errorf("options: fused activation %s is only supported on the hybrid path", k.opts.Activation)
	}

	// Shapes.
	if w.Rank() != 2 {
		return fmt.Errorf("%s: rank %d, need 2 ([units, input_size])", fcWeights, w.Rank())
	}
	if in.Rank() < 1 {
		return fmt.Errorf("%s: rank 0, need at least 1", fcInput)
	}
	inElems, err := numElementsChecked(in, fcInput)
	if err != nil {
		return err
	}
	if _, err := numElementsChecked(w, fcWeights); err != nil {
		return err
	}
	k.units, k.cols = w.Shape[0], w.Shape[1]
	if k.cols == 0 {
		// TFLite sizes the output without dividing by zero and fills it
		// with zeros at Eval.
		k.zeroCols = true
		k.batch = 1
		for _, d := range in.Shape[:in.Rank()-1] {
			k.batch *= d
		}
	} else {
		if inElems%k.cols != 0 {
			return fmt.Errorf("%s: %d elements are not a whole number of rows of input_size %d (weights %v)", fcInput, inElems, k.cols, w.Shape)
		}
		k.batch = inElems / k.cols
	}
	if bias != nil {
		if bias.NumElements() != k.units {
			return fmt.Errorf("%s: %d elements, need units = %d", fcBias, bias.NumElements(), k.units)
		}
	}
	var outShape []int
	if k.opts.KeepNumDims {
		if !k.zeroCols && in.Shape[in.Rank()-1] != k.cols {
			return fmt.Errorf("%s: last dimension %d must equal input_size %d when keep_num_dims is set", fcInput, in.Shape[in.Rank()-1], k.cols)
		}
		outShape = copyShape(in.Shape)
		outShape[len(outShape)-1] = k.units
	} else {
		outShape = []int{k.batch, k.units}
	}
	if _, err := ops.ShapeElements(outShape, out.Type.Size()); err != nil {
		return fmt.Errorf("%s: %v", fcOutput, err)
	}
	out.Shape = outShape
	if err := reserveFullyConnected(n, k.units, k.cols); err != nil {
		return err
	}

	if w.Blockwise != nil {
		if err := k.prepareBlockwise(n, in, w, bias); err != nil {
			return err
		}
		return nil
	}
	if err := k.prepareQuant(in, w, bias, out); err != nil {
		return err
	}
	if shuffled {
		return k.prepareShuffled(n, in, w, bias)
	}
	if w.Sparsity != nil {
		if err := k.prepareSparse(n, in, w, out); err != nil || k.sp != nil {
			return err
		}
		// Sparse int8 weights take the dense int8 product (see
		// fully_connected_sparse.go) with TFLite's sparse rounding.
	}
	if w.Type == ops.Int4 || w.Type == ops.Int2 {
		if err := k.prepareInt4(n, in, w); err != nil {
			return err
		}
	}
	k.threads = n.Threads()
	k.blocks = (k.units + fcRowBlock - 1) / fcRowBlock
	switch k.path {
	case fcFloat:
		if w.Kind == ops.ConstTensor && len(w.Data) >= w.Bytes() && !k.zeroCols && fcPacks(k.units, k.cols) {
			k.packed = arch.PackMatrix(w.Float32s(), k.units, k.cols)
		}
		k.rowsFn = k.floatRows
	case fcInt8:
		k.accScratch = n.RequestScratch(4 * k.threads * k.units)
		k.rowSums = make([]int32, k.units)
		k.rowsFn = k.int8Rows
		if err := k.prepareGemm(out); err != nil {
			return err
		}
	case fcInt16Gemm:
		k.accScratch = n.RequestScratch(4 * k.units)
		k.rowSums = make([]int32, k.units)
	case fcHybrid:
		k.qScratch = n.RequestScratch(k.batch * k.cols)
		k.sfScratch = n.RequestScratch(4 * k.batch)
		k.offScratch = n.RequestScratch(4 * k.batch)
		k.accScratch = n.RequestScratch(4 * k.units)
		k.hybCorr = n.RequestScratch(4 * k.units)
		k.hybScale = n.RequestScratch(4 * k.units)
		k.rowSums = make([]int32, k.units)
		k.zeroBias = make([]float32, k.units)
	}
	return nil
}

// choosePath picks the arithmetic from the (input, weights, output) types
// and checks the bias type, naming what does not fit.
func (k *FullyConnected) choosePath(in, w, bias, out *ops.Tensor) error {
	switch {
	case in.Type == ops.Float32 && w.Type == ops.Float32:
		k.path = fcFloat
	case in.Type == ops.Float32 && (w.Type == ops.Int8 || w.Type == ops.Int4 || w.Type == ops.Int2):
		k.path = fcHybrid
	case in.Type == ops.Int8 && (w.Type == ops.Int8 || w.Type == ops.Int4 || w.Type == ops.Int2):
		k.path = fcInt8
	case in.Type == ops.Uint8 && w.Type == ops.Uint8:
		k.path = fcUint8
	case in.Type == ops.Int16 && (w.Type == ops.Int8 || w.Type == ops.Int4 || w.Type == ops.Int2 || w.Type == ops.Int16):
		k.path = fcInt16Ref // refined in prepareQuant
	default:
		return fmt.Errorf("%s: type %s not supported with input type %s", fcWeights, w.Type, in.Type)
	}
	switch k.path {
	case fcFloat, fcHybrid:
		if out.Type != ops.Float32 {
			return fmt.Errorf("%s: type %s, need float32 for %s input with %s weights", fcOutput, out.Type, in.Type, w.Type)
		}
		if bias != nil && bias.Type != ops.Float32 {
			return fmt.Errorf("%s: type %s, need float32", fcBias, bias.Type)
		}
	case fcInt8:
		if out.Type != ops.Int8 {
			return fmt.Errorf("%s: type %s not supported with int8 input (need int8)", fcOutput, out.Type)
		}
		if bias != nil && bias.Type != ops.Int32 {
			return fmt.Errorf("%s: type %s, need int32 for int8 input", fcBias, bias.Type)
		}
	case fcUint8:
		if out.Type != ops.Uint8 && out.Type != ops.Int16 {
			return fmt.Errorf("%s: type %s not supported with uint8 input (need uint8 or int16)", fcOutput, out.Type)
		}
		if bias != nil && bias.Type != ops.Int32 {
			return fmt.Errorf("%s: type %s, need int32 for uint8 input", fcBias, bias.Type)
		}
	default:
		if out.Type != ops.Int16 {
			return fmt.Errorf("%s: type %s not supported with int16 input (need int16)", fcOutput, out.Type)
		}
		if bias != nil && bias.Type != ops.Int32 && bias.Type != ops.Int64 {
			return fmt.Errorf("%s: type %s, need int32 or int64 for int16 input", fcBias, bias.Type)
		}
	}
	return nil
}

// prepareQuant derives multipliers, offsets and the activation range.
func (k *FullyConnected) prepareQuant(in, w, bias, out *ops.Tensor) error {
	k.fActMin, k.fActMax = ActivationRangeFloat(k.opts.Activation)
	switch k.path {
	case fcFloat:
		return nil
	case fcHybrid:
		if !isQuantized(w) {
			return fmt.Errorf("%s: %s weights of a hybrid FULLY_CONNECTED need quantization parameters", fcWeights, w.Type)
		}
		if isPerChannel(w) {
			if _, err := channelScales(w, fcWeights, k.units); err != nil {
				return err
			}
		} else if _, _, err := perTensorQuant(w, fcWeights); err != nil {
			return err
		}
		for i, z := range w.Quant.ZeroPoint {
			if z != 0 {
				return fmt.Errorf("%s: zero point %d at %d; hybrid weights must be symmetric", fcWeights, z, i)
			}
		}
		return nil
	}

	inScale, inZP, err := perTensorQuant(in, fcInput)
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, fcOutput)
	if err != nil {
		return err
	}
	if !isQuantized(w) {
		return fmt.Errorf("%s: %s weights need quantization parameters", fcWeights, w.Type)
	}
	k.inOffset, k.outOffset = -inZP, outZP
	perChannel := isPerChannel(w)
	var wScales []float32
	if perChannel {
		if k.path == fcUint8 {
			return fmt.Errorf("%s: per-channel quantization needs int8 or int16 input, have uint8", fcWeights)
		}
		if wScales, err = channelScales(w, fcWeights, k.units); err != nil {
			return err
		}
		// Per-channel weights are symmetric by specification; TFLite
		// ignores their zero points.
		k.chanMult = make([]int32, k.units)
		k.chanShift = make([]int, k.units)
		for i, s := range wScales {
			eff := float64(inScale) * float64(s) / float64(outScale)
			k.chanMult[i], k.chanShift[i] = ops.QuantizeMultiplier(eff)
		}
	} else {
		wScale, wZP, err := perTensorQuant(w, fcWeights)
		if err != nil {
			return err
		}
		wScales = []float32{wScale}
		k.wOffset = -wZP
		// GetQuantizedConvolutionMultipler: the bias scale must be close to
		// input_scale·weights_scale, and the multiplier is the float32
		// product of the two scales over the output scale.
		prod := float64(inScale) * float64(wScale)
		if bias != nil {
			bs, _, err := perTensorQuant(bias, fcBias)
			if err != nil {
				return err
			}
			if math.Abs(prod-float64(bs))/float64(outScale) > 0.02 {
				return fmt.Errorf("%s: scale %g too far from input scale × weights scale = %g", fcBias, bs, prod)
			}
		}
		real := float64(inScale*wScale) / float64(outScale)
		k.mult, k.shift = ops.QuantizeMultiplier(real)
	}
	if k.actMin, k.actMax, err = ActivationRangeQuantized(k.opts.Activation, out); err != nil {
		return err
	}

	if k.path == fcInt16Ref {
		if inZP != 0 || outZP != 0 {
			return fmt.Errorf("%s: int16 FULLY_CONNECTED needs input and output zero points 0, have %d and %d", fcInput, inZP, outZP)
		}
		qbt := k.opts.QuantizedBiasType
		if qbt != ops.Float32 {
			if qbt != ops.Int32 && qbt != ops.Int64 {
				return fmt.Errorf("options: quantized_bias_type %s, need int32 or int64", qbt)
			}
			if bias != nil && bias.Type != qbt {
				return fmt.Errorf("%s: type %s differs from quantized_bias_type %s", fcBias, bias.Type, qbt)
			}
		}
		// TFLite routes int16 activations to its GEMM backend only for int8
		// weights with all zero points 0 and no int64 bias; everything else
		// goes through its reference loop.
		wZP := int32(0)
		if !perChannel {
			wZP = -k.wOffset
		}
		viaGemm := w.Type != ops.Int16 && wZP == 0 && (bias == nil || bias.Type == ops.Int32) && qbt != ops.Int64
		if viaGemm {
			k.path = fcInt16Gemm
		} else {
			k.bias64 = (bias != nil && bias.Type == ops.Int64) || (bias == nil && qbt != ops.Int32)
			k.effScale = make([]float64, len(wScales))
			for i, s := range wScales {
				k.effScale[i] = float64(inScale) * float64(s) / float64(outScale)
			}
			if !perChannel {
				k.chanMult = nil
			}
		}
	}
	return nil
}

// Eval computes the output.
func (k *FullyConnected) Eval(n *ops.Node) error {
	in, w, bias, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if in == nil || w == nil || out == nil {
		return errors.New("FULLY_CONNECTED: input, weights or output missing at Eval")
	}
	if err := checkData(in, w, bias, out); err != nil {
		return err
	}
	if k.batch*k.units == 0 {
		return nil
	}
	if k.zeroCols {
		clear(out.Data[:out.Bytes()])
		return nil
	}
	if k.sp != nil {
		return k.evalSparse(n, in, w, bias, out)
	}
	switch k.path {
	case fcShuffled:
		return k.evalShuffled(n, in, w, bias, out)
	case fcFloat:
		k.evalFloat(n, in, w, bias, out)
	case fcHybrid:
		if k.blockScales != nil {
			return k.evalBlockwise(n, in, w, bias, out)
		}
		return k.evalHybrid(n, in, w, bias, out)
	case fcInt8:
		return k.evalInt8(n, in, w, bias, out)
	case fcUint8:
		k.evalUint8(in, w, bias, out)
	case fcInt16Gemm:
		return k.evalInt16Gemm(n, in, w, bias, out)
	case fcInt16Ref:
		k.evalInt16Ref(in, w, bias, out)
	}
	return nil
}

// fcPackMaxCols is the widest constant float weight matrix Prepare
// copies into arch's packed layout. The packed product needs no
// horizontal sums, which dominate short rows (2.5× faster at 16 columns,
// 1.4× at 256), and streams the weights of four blocks of rows in order,
// which pays for wide rows too when the weights come from L3 (a batch-1
// 784→512→512 MLP, 2.6 MB of weights: CPU per invoke 41 → 34 µs with
// units of four blocks). The
// interpreter drops the file's pages of a constant a kernel copied at
// Prepare, so the copy replaces them in the resident set.
const fcPackMaxCols = 1 << 16

// fcPacks reports whether constant float weights of units×cols are
// packed at Prepare.
func fcPacks(units, cols int) bool {
	return units > 0 && (cols <= fcPackSmallCols || cols <= fcPackMaxCols && arch.PackedLen(units, cols) <= units*cols*5/4)
}

// fcPackSmallCols is the row length up to which the weights are packed
// whatever the number of rows; longer rows are packed only when the
// last block's zero rows add at most a quarter to the weights.
const fcPackSmallCols = 256

func (k *FullyConnected) evalFloat(n *ops.Node, in, w, bias, out *ops.Tensor) {
	r := &k.run
	r.xf, r.mf, r.of = in.Float32s(), w.Float32s(), out.Float32s()
	if bias != nil {
		r.bf = bias.Float32s()[:k.units]
	}
	n.Parallel(k.batch*k.blocks, k.batch*k.units*k.cols, k.rowsFn)
	k.run = fcRun{}
}

// floatRows computes the float row blocks [lo, hi) (block u of batch row
// u/blocks).
func (k *FullyConnected) floatRows(worker, lo, hi int) {
	r := &k.run
	units, cols := k.units, k.cols
	for u := lo; u < hi; u++ {
		b, u0 := u/k.blocks, u%k.blocks*fcRowBlock
		u1 := min(u0+fcRowBlock, units)
		row := r.of[b*units+u0 : b*units+u1]
		if r.bf != nil {
			copy(row, r.bf[u0:u1])
		} else {
			clear(row)
		}
		x := r.xf[b*cols : b*cols+cols]
		if k.packed != nil {
			arch.MatVecMulAccPacked(row, k.packed[u0*cols:], u1-u0, cols, x)
		} else {
			arch.MatVecMulAcc(row, r.mf[u0*cols:u1*cols], u1-u0, cols, x)
		}
		arch.VecClamp(row, k.fActMin, k.fActMax) // clampF32 on every value
	}
}

// weightRowSums returns Σ_c weights[u, c] for every unit, computing it once
// for constant weights (TFLite caches it the same way) and at every Eval
// otherwise.
func (k *FullyConnected) weightRowSums(w *ops.Tensor) []int32 {
	if !k.rowSumsOK || w.Kind != ops.ConstTensor {
		arch.RowSumsInt8(k.rowSums, k.weights8(w), k.units, k.cols)
		k.rowSumsOK = true
	}
	return k.rowSums
}

func (k *FullyConnected) evalInt8(n *ops.Node, in, w, bias, out *ops.Tensor) error {
	if k.gemm != nil {
		k.evalGemm(n, in, w, bias, out)
		return nil
	}
	r := &k.run
	var err error
	if r.acc, err = scratchInt32(n, k.accScratch, k.threads*k.units); err != nil {
		return err
	}
	r.x8, r.m8, r.o8 = in.Int8s(), k.weights8(w), out.Int8s()
	r.rowSums = k.weightRowSums(w)
	if bias != nil {
		r.b32 = bias.Int32s()
	}
	n.Parallel(k.batch*k.blocks, k.batch*k.units*k.cols, k.rowsFn)
	k.run = fcRun{}
	return nil
}

// int8Rows computes the int8 row blocks [lo, hi) (block u of batch row
// u/blocks) with worker's accumulator row: TFLite's wrapping int32 sums
// acc[u] = Σ_c (w[u,c] - wzp)(x[c] - xzp) + bias[u], requantised.
func (k *FullyConnected) int8Rows(worker, lo, hi int) {
	r := &k.run
	units, cols := k.units, k.cols
	accRow := r.acc[worker*units : (worker+1)*units]
	inOff, wOff := k.inOffset, k.wOffset
	constant := int32(cols) * wOff * inOff
	for u := lo; u < hi; u++ {
		b, u0 := u/k.blocks, u%k.blocks*fcRowBlock
		u1 := min(u0+fcRowBlock, units)
		x := r.x8[b*cols : b*cols+cols]
		acc := accRow[u0:u1]
		clear(acc)
		arch.MatVecMulAccInt8(acc, r.m8[u0*cols:u1*cols], u1-u0, cols, x)
		var xSum int32
		if wOff != 0 {
			for _, v := range x {
				xSum += int32(v)
			}
		}
		for i := range acc {
			a := acc[i] + inOff*r.rowSums[u0+i] + wOff*xSum + constant
			if r.b32 != nil {
				a += r.b32[u0+i]
			}
			acc[i] = a
		}
		row := r.o8[b*units+u0 : b*units+u1]
		if k.chanMult == nil && k.actMin >= -128 && k.actMax <= 127 && !k.roundAway {
			// Per-tensor: the same arithmetic, vectorised.
			arch.RequantizeInt8Up(row, acc, k.mult, k.shift, k.outOffset, k.actMin, k.actMax)
			continue
		}
		for i, a := range acc {
			mult, shift := k.mult, k.shift
			if k.chanMult != nil {
				mult, shift = k.chanMult[u0+i], k.chanShift[u0+i]
			}
			var v int32
			if k.roundAway {
				v = ops.MultiplyByQuantizedMultiplier(a, mult, shift)
			} else {
				v = ops.MultiplyByQuantizedMultiplierUp(a, mult, shift)
			}
			row[i] = int8(ops.ClampInt32(v+k.outOffset, k.actMin, k.actMax))
		}
	}
}

func (k *FullyConnected) evalUint8(in, w, bias, out *ops.Tensor) {
	x, m := in.Uint8s(), w.Uint8s()
	var b32 []int32
	if bias != nil {
		b32 = bias.Int32s()
	}
	var o16 []int16
	if out.Type == ops.Int16 {
		o16 = out.Int16s()
	}
	inOff, wOff := k.inOffset, k.wOffset
	for b := 0; b < k.batch; b++ {
		xr := x[b*k.cols : b*k.cols+k.cols]
		for u := 0; u < k.units; u++ {
			wr := m[u*k.cols : u*k.cols+k.cols]
			var acc int32
			for c, wv := range wr {
				acc += (int32(wv) + wOff) * (int32(xr[c]) + inOff)
			}
			if b32 != nil {
				acc += b32[u]
			}
			v := ops.MultiplyByQuantizedMultiplier(acc, k.mult, k.shift) + k.outOffset
			v = ops.ClampInt32(v, k.actMin, k.actMax)
			if o16 == nil {
				out.Data[b*k.units+u] = uint8(v)
			} else {
				o16[b*k.units+u] = int16(v)
			}
		}
	}
}

func (k *FullyConnected) evalInt16Gemm(n *ops.Node, in, w, bias, out *ops.Tensor) error {
	acc, err := scratchInt32(n, k.accScratch, k.units)
	if err != nil {
		return err
	}
	x, m, o := in.Int16s(), k.weights8(w), out.Int16s()
	var b32 []int32
	if bias != nil {
		b32 = bias.Int32s()
	}
	// No arch primitive multiplies int8 by int16; the loop lives here.
	for b := 0; b < k.batch; b++ {
		xr := x[b*k.cols : b*k.cols+k.cols]
		for u := range acc {
			wr := m[u*k.cols : u*k.cols+k.cols]
			var a int32
			for c, wv := range wr {
				a += int32(wv) * int32(xr[c])
			}
			if b32 != nil {
				a += b32[u]
			}
			acc[u] = a
		}
		row := o[b*k.units : b*k.units+k.units]
		for u, a := range acc {
			mult, shift := k.mult, k.shift
			if k.chanMult != nil {
				mult, shift = k.chanMult[u], k.chanShift[u]
			}
			v := ops.MultiplyByQuantizedMultiplierUp(a, mult, shift) + k.outOffset
			row[u] = int16(ops.ClampInt32(v, k.actMin, k.actMax))
		}
	}
	return nil
}

// evalInt16Ref is TFLite's reference int16 loop: the accumulator (int32
// or int64, as the bias) is scaled by the double-precision effective scale
// and rounded half away from zero.
func (k *FullyConnected) evalInt16Ref(in, w, bias, out *ops.Tensor) {
	x, o := in.Int16s(), out.Int16s()
	var w8 []int8
	var w16 []int16
	if w.Type != ops.Int16 {
		w8 = k.weights8(w)
	} else {
		w16 = w.Int16s()
	}
	wOff := int64(k.wOffset)
	if len(k.effScale) > 1 {
		wOff = 0
	}
	inOff := int64(k.inOffset)
	for b := 0; b < k.batch; b++ {
		xr := x[b*k.cols : b*k.cols+k.cols]
		for u := 0; u < k.units; u++ {
			var acc64 int64
			var acc32 int32
			base := u * k.cols
			for c := 0; c < k.cols; c++ {
				var wv int64
				if w8 != nil {
					wv = int64(w8[base+c])
				} else {
					wv = int64(w16[base+c])
				}
				p := (wv + wOff) * (int64(xr[c]) + inOff)
				acc64 += p
				acc32 += int32(p)
			}
			var accF float64
			if k.bias64 {
				if bias != nil {
					acc64 += bias.Int64s()[u]
				}
				accF = float64(acc64)
			} else {
				if bias != nil {
					acc32 += bias.Int32s()[u]
				}
				accF = float64(acc32)
			}
			eff := k.effScale[0]
			if len(k.effScale) > 1 {
				eff = k.effScale[u]
			}
			v := f64ToInt32(math.Round(accF*eff)) + k.outOffset
			o[b*k.units+u] = int16(ops.ClampInt32(v, k.actMin, k.actMax))
		}
	}
}

// evalHybrid is TFLite's EvalHybridDense: the output starts as the bias;
// an all-zero input skips the product; otherwise each batch row is
// quantised to int8 with its own scale (and zero point when asymmetric),
// multiplied with the int8 weights in int32, and the result scaled back to
// float and accumulated.
func (k *FullyConnected) evalHybrid(n *ops.Node, in, w, bias, out *ops.Tensor) error {
	x, o := in.Float32s(), out.Float32s()
	total := k.batch * k.units
	lo, hi, nan := arch.MinMaxF32(x[:k.batch*k.cols])
	if !nan && lo == 0 && hi == 0 {
		// An all-zero input (±0): TFLite skips the product, leaving the
		// bias (or zeros).
		if bias != nil {
			bv := bias.Float32s()[:k.units]
			for b := 0; b < k.batch; b++ {
				copy(o[b*k.units:b*k.units+k.units], bv)
			}
		} else {
			clear(o[:total])
		}
		applyActivationVector(o[:total], k.opts.Activation)
		return nil
	}
	q, err := scratchInt8(n, k.qScratch, k.batch*k.cols)
	if err != nil {
		return err
	}
	sf, err := scratchFloat32(n, k.sfScratch, k.batch)
	if err != nil {
		return err
	}
	offs, err := scratchInt32(n, k.offScratch, k.batch)
	if err != nil {
		return err
	}
	acc, err := scratchInt32(n, k.accScratch, k.units)
	if err != nil {
		return err
	}
	corr, err := scratchInt32(n, k.hybCorr, k.units)
	if err != nil {
		return err
	}
	scale, err := scratchFloat32(n, k.hybScale, k.units)
	if err != nil {
		return err
	}
	chanScale := quantizeHybridRows(x, q, sf, offs, k.batch, k.cols, k.opts.AsymmetricQuantizeInputs, w)
	bv := k.zeroBias
	if bias != nil {
		bv = bias.Float32s()[:k.units]
	}
	m := k.weights8(w)
	rowSums := k.weightRowSums(w)
	for b := 0; b < k.batch; b++ {
		clear(acc)
		arch.MatVecMulAccInt8(acc, m, k.units, k.cols, q[b*k.cols:b*k.cols+k.cols])
		for u := range corr {
			corr[u] = rowSums[u] * offs[b]
			if chanScale != nil {
				scale[u] = float32(sf[b] * chanScale[u])
			} else {
				scale[u] = sf[b]
			}
		}
		// bias + float(dot − Σw·zp)·scale, the product rounded before
		// the sum as TFLite's (bias first, then the scaled dot product
		// added to it; a zero bias without one).
		arch.DequantRowsF32(o[b*k.units:b*k.units+k.units], acc, 1, k.units, corr, scale, bv)
	}
	applyActivationVector(o[:total], k.opts.Activation)
	return nil
}

// quantizeHybridRows quantises each of the rows×cols float inputs x into
// q, asymmetrically (scale sf[r], zero point offs[r]) or symmetrically
// (offs[r] = 0), as TFLite's hybrid FULLY_CONNECTED does per batch row.
// With per-channel weights w it returns their scales; otherwise it folds
// w's one scale into every sf[r] and returns nil.
func quantizeHybridRows(x []float32, q []int8, sf []float32, offs []int32, rows, cols int, asym bool, w *ops.Tensor) []float32 {
	for r := 0; r < rows; r++ {
		xs, qs := x[r*cols:r*cols+cols], q[r*cols:r*cols+cols]
		if asym {
			sf[r], offs[r] = ops.AsymmetricQuantizeFloats(xs, qs)
		} else {
			sf[r] = ops.SymmetricQuantizeFloats(xs, qs)
			offs[r] = 0
		}
	}
	if isPerChannel(w) {
		return w.Quant.Scale
	}
	ws := w.Scale()
	for r := range sf[:rows] {
		sf[r] *= ws
	}
	return nil
}

// applyActivationVector applies a fused activation to floats in place as
// TFLite's ApplyActivationToVector: the clamping ones, TANH, and SIGN_BIT
// (1 for a set sign bit, else 0).
func applyActivationVector(v []float32, a ops.Activation) {
	switch a {
	case ops.ActRelu, ops.ActRelu6, ops.ActReluN1To1:
		lo, hi := ActivationRangeFloat(a)
		arch.VecClamp(v, lo, hi) // clampF32 bit for bit
	case ops.ActTanh:
		for i, x := range v {
			v[i] = tanhf(x)
		}
	case ops.ActSignBit:
		for i, x := range v {
			if math.Signbit(float64(x)) {
				v[i] = 1
			} else {
				v[i] = 0
			}
		}
	}
}
