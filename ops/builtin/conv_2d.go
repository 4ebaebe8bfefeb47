package builtin

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Conv2D is the kernel of TFLite's CONV_2D operator: a 2-D convolution
// over NHWC images.
//
// Inputs: 0 input [batch, inH, inW, inC]; 1 filter [outC, fH, fW,
// filterInC] where inC is a multiple of filterInC (inC/filterInC groups,
// outC a multiple of the group count); 2 bias [outC] (TFLite requires it;
// tflrun also accepts it omitted, meaning zeros, as TFLite Micro does).
// Output 0 is [batch, outH, outW, outC] with outH, outW from the padding
// (SAME: ceil(in/stride); VALID: floor((in-effective_filter)/stride)+1,
// effective_filter = (f-1)·dilation+1).
//
// Type paths, matching TFLite's builtin kernel (conv.cc, generic optimised
// variant) on x86:
//   - float32 input, filter, bias and output; fused NONE, RELU,
//     RELU_N1_TO_1 or RELU6;
//   - int8 input and output, int8 filter (symmetric, per-tensor or
//     per-output-channel scales along dimension 0), int32 bias: TFLite's
//     optimised ConvPerChannel, im2col and a GEMM that TFLite's x86 build
//     hands to ruy, each accumulator rescaled with its channel's multiplier
//     as ruy's x86 kernels apply it (arch.MultiplyByQuantizedMultiplierUp:
//     the final rounding shift breaks ties upward). Grouped int8
//     convolutions take TFLite's reference loop and its
//     MultiplyByQuantizedMultiplier (ties away from zero);
//   - uint8 input, filter and output (any zero points, per-tensor scales),
//     int32 bias: TFLite's uint8 Conv (gemmlowp), one multiplier, ties
//     away from zero;
//   - hybrid: float32 input, bias and output with an int8 filter (dynamic
//     range quantisation). With one filter scale (or all equal) each batch
//     image is quantised symmetrically to int8 (TFLite's EvalHybrid); with
//     differing per-channel scales asymmetrically with a zero point
//     (EvalHybridPerChannel). The int32 products are scaled back to float.
//     A uint8 filter (the older dynamic-range form) is read as TFLite
//     reads it: its bytes as int8 values with the first scale, zero point
//     ignored, through EvalHybrid;
//   - int16x8: int16 input and output, int8 filter, int32 or int64 bias
//     (conv_2d_int16.go).
//
// The float and int8 paths run as im2col plus a matrix product through
// package arch (a 1×1 filter with stride 1 and no padding skips im2col);
// integer accumulation is exact, so the order does not change results.
// Grouped convolutions use a direct loop, as TFLite's reference kernel.
// Int4 filters and grouped hybrid convolutions are not supported;
// Prepare says so.
type Conv2D struct {
	opts Conv2DOptions
	// fused: the float GEMM may fuse multiply-adds (ops.Node.FusedFloat,
	// arch.GemmF32TileFused).
	fused     bool
	path      convPath
	batches   int
	inC, outC int
	groups    int
	pixels    int // output pixels per image
	col       im2col
	k         int // patch length fH·fW·filterInC
	direct    bool
	tile      int // output pixels per im2col tile
	colID     int
	accID     int
	wID       int
	fMin      float32
	fMax      float32
	q         convQuant
	w8        []int8 // uint8 filter re-centred to int8 (constant filters on the matVec path)
	// w8Packed: a constant uint8 filter packed straight into packed8
	// with its row sums taken at Prepare; Eval reads neither the filter
	// nor a re-centred copy.
	w8Packed  bool
	rowSums   []int32
	rowSumsOK bool
	seed      []int32 // per-channel accumulator start (bias and zero-point terms)
	accTileID int     // integer paths: accumulators of one tile
	// Integer paths: the filter (re-centred for uint8) packed for
	// arch.GemmInt8 (constant filters; else packed into scratch pack8ID
	// at every Eval), the requantisation for arch.RequantizeChannels, and
	// (uint8) the per-pixel input sums of a tile.
	packed8 []int8
	pack8ID int
	cq      *arch.ChannelRequant
	xsumID  int
	// Hybrid path: per-channel filter scales that differ (TFLite's
	// EvalHybridPerChannel), else one filter scale (EvalHybrid).
	hybridPerChannel bool
	filterScale      float32
	qID, sfID, offID int
	// csID and corrID hold, per image, each channel's output scale and
	// zero-point correction of the hybrid epilogue.
	csID, corrID int
	// Float path: the filter packed for arch.GemmF32 (constant filters,
	// else packed into scratch packID at every Eval) and a zero bias for
	// an omitted bias.
	packedF  []float32
	packID   int
	zeroBias []float32
	// Indirect float path (arch.GemmF32Indirect): the GEMM reads every
	// output pixel's window in place, from the input or, when the
	// convolution pads, from a zero-padded copy of it (srcH×srcW pixels
	// per image, scratch padID) made once per Eval; runs are the offsets
	// of the window's contiguous runs (filter rows, or taps when dilated
	// along the width) of runLen values, rowOffs each worker's window
	// offsets. im2col's scratch stays for levels without the kernel.
	indirect   bool
	padded     bool
	padID      int
	srcH, srcW int
	runs       []int
	runLen     int
	rowOffs    []int
	// Int16x8 path (conv_2d_int16.go): int64 sums (else wrapping int32)
	// and the scratch of one pixel's patch.
	acc64   bool
	patchID int
	gemm16  bool // ungrouped: through arch.GemmInt8 (col2ID: int8 halves)
	col2ID  int
	// matVec: run one arch.MatVecMulAcc(Int8) per output pixel instead
	// of the GEMMs, where the level in use has assembly only for those
	// (arch.GemmPreferred).
	matVec bool
	// Threading (ops.Node.Parallel): the tiles of every image are the
	// units, independent of the thread count, so every count computes
	// the same products; each thread has its own stretch of the tile
	// scratch (im2col, accumulators, input sums), colStride etc. apart.
	threads   int
	tilesPer  int // tiles per image
	colStride int // elements of one thread's im2col tile
	accStride int // int32s of one thread's accumulator tile
	sumStride int // int32s of one thread's input sums
	tilesFn   func(worker, lo, hi int)
	// Hybrid path: the current Eval's state and the tile function
	// (conv_2d_hybrid.go).
	hyb      hybridRun
	hybridFn func(worker, lo, hi int)
	run      convRun
	// chBlocks splits the output channels too, in blocks of multiples of
	// arch.GemmBlock (the last one takes the rest, at least a block),
	// when there are too few tiles for the threads (a small feature map
	// with many channels). A unit is then a tile and a channel block;
	// each output keeps its place in the GEMM's channel order, so the
	// sums are those of one block. cqs are the blocks' requantisations.
	chBlocks int
	cqs      []*arch.ChannelRequant
}

// chRange returns the output channels [j0, j1) of channel block b.
func (k *Conv2D) chRange(b int) (j0, j1 int) {
	if k.chBlocks <= 1 {
		return 0, k.outC
	}
	per := k.outC / arch.GemmBlock
	j0 = b * per / k.chBlocks * arch.GemmBlock
	j1 = (b + 1) * per / k.chBlocks * arch.GemmBlock
	if b == k.chBlocks-1 {
		j1 = k.outC
	}
	return j0, j1
}

// splitChannels sets chBlocks (and cqs) for the threads at Prepare.
func (k *Conv2D) splitChannels() error {
	k.chBlocks = 1
	units := k.batches * k.tilesPer
	// Units per thread to reach: 2, or 4 for a direct convolution, whose
	// channel blocks cost nothing more (no im2col per block), so that a
	// worker that joins late still gets its share (4 tiles on 2 threads
	// left it one of them).
	per := 2
	if k.direct {
		per = 4
	}
	if k.threads <= 1 || k.matVec || units >= per*k.threads || k.outC < 2*arch.GemmBlock {
		return nil
	}
	if k.path != convFloat && k.path != convInt8 && k.path != convUint8 {
		return nil
	}
	k.chBlocks = min(k.outC/arch.GemmBlock, (per*k.threads+units-1)/units)
	if k.path == convFloat {
		return nil
	}
	k.cqs = make([]*arch.ChannelRequant, k.chBlocks)
	for b := range k.cqs {
		j0, j1 := k.chRange(b)
		var err error
		if k.path == convInt8 {
			k.cqs[b], err = arch.NewChannelRequantUp(k.q.mult[j0:j1], k.q.shift[j0:j1])
		} else {
			k.cqs[b], err = arch.NewChannelRequant(k.q.mult[j0:j1], k.q.shift[j0:j1])
		}
		if err != nil {
			return fmt.Errorf("output 0: %v", err)
		}
	}
	return nil
}

// convRun is what the tile function of one Eval reads: views of the
// tensors and scratch, cleared when Eval returns (kernels keep no tensor
// data between calls).
type convRun struct {
	xf, of, bias, packedF, filterF []float32
	colF                           []float32
	src                            []float32 // indirect path: the (padded) input
	x8, w, packed8, col8           []int8
	out                            *ops.Tensor
	accTile, xsum                  []int32
	padByte                        int8
	wzp                            int32
}

// threadStride rounds a per-thread scratch length up to a whole number
// of 64-byte lines (elem bytes per value), so no two threads write the
// same cache line.
func threadStride(count, elem int) int {
	per := 64 / elem
	return (count + per - 1) / per * per
}

// convForceMatVec makes Prepare choose the per-pixel matrix-vector path
// (tests: the path arm64 takes).
var convForceMatVec bool

// convForceIm2col makes Prepare keep the float path on im2col tiles
// instead of the indirect GEMM (tests: both give the same bits).
var convForceIm2col bool

// convTileBytes bounds the im2col tile so that it stays in the L2 cache.
const convTileBytes = 64 << 10

// convAccTileBytes bounds the int32 accumulators of one tile on the
// integer paths that store them (the per-pixel path, the hybrid GEMM).
const convAccTileBytes = 16 << 10

// NewConv2D returns a CONV_2D kernel for one node.
func NewConv2D() ops.Kernel { return &Conv2D{} }

// Conv2DOptions is TFLite's Conv2DOptions. Dilation factors default to 1.
type Conv2DOptions struct {
	Padding                          ops.Padding
	StrideW, StrideH                 int
	DilationWFactor, DilationHFactor int
	Activation                       ops.Activation
	// QuantizedBiasType is the bias type of an int16 convolution (Float32
	// = 0 means "the default for the input type").
	QuantizedBiasType ops.DataType
	// ExplicitPad is padding {top, bottom, left, right} added around the
	// input with Padding VALID, the input zero point for integer types
	// (0 for float): the convolution of a PAD folded into it (the
	// interpreter's fusion of PAD → CONV_2D; TFLite's flatbuffer has no
	// such field). Only the float32, int8 and uint8 paths take it.
	ExplicitPad [4]int
}

// String prints the options as Go's %+v does, without ExplicitPad when
// it is zero (always, in a model: only the interpreter's fusion sets it).
func (o Conv2DOptions) String() string {
	type fields Conv2DOptions // no methods: %+v prints the fields
	return withoutZeroPad(fmt.Sprintf("%+v", fields(o)), o.ExplicitPad)
}

// withoutZeroPad drops the last field, ExplicitPad, from s (a struct
// printed with %+v) when pad is zero.
func withoutZeroPad(s string, pad [4]int) string {
	if pad != [4]int{} {
		return s
	}
	if t, ok := strings.CutSuffix(s, " ExplicitPad:[0 0 0 0]}"); ok {
		return t + "}"
	}
	return s
}

func init() {
	// TFLite registers 1-8. Every version is taken, and Prepare refuses the
	// type combinations this kernel lacks (int4 filters),
	// naming them: converters have stamped versions loosely (TensorFlow's
	// own float DS-CNN conversion says CONV_2D v2, nominally the hybrid
	// version) and TFLite runs such models because its kernels, too,
	// dispatch on the tensor types.
	register(ops.OpConv2D, NewConv2D, [2]int{1, 8})
	registerOptions(schema.BuiltinOptionsConv2DOptions, decodeConv2DOptions)
}

// decodeConv2DOptions decodes TFLite's Conv2DOptions table.
func decodeConv2DOptions(t ops.OptionsTable) (any, error) {
	var o schema.Conv2DOptions
	initTable(&o, t)
	return &Conv2DOptions{
		Padding:           ops.Padding(o.Padding()),
		StrideW:           int(o.StrideW()),
		StrideH:           int(o.StrideH()),
		DilationWFactor:   int(o.DilationWFactor()),
		DilationHFactor:   int(o.DilationHFactor()),
		Activation:        ops.Activation(o.FusedActivationFunction()),
		QuantizedBiasType: ops.DataType(o.QuantizedBiasType()),
	}, nil
}

// Prepare validates the node, sets the output shape, derives the
// quantisation parameters and requests scratch.
func (k *Conv2D) Prepare(n *ops.Node) error {
	*k = Conv2D{fused: n.FusedFloat}
	if o, ok := n.Options.(*Conv2DOptions); ok && o != nil {
		k.opts = *o
	} else {
		return fmt.Errorf("options: have %T, need *Conv2DOptions", n.Options)
	}
	if err := checkActivation(k.opts.Activation); err != nil {
		return fmt.Errorf("options: %v", err)
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
	case in.Type == ops.Int16 && filter.Type == ops.Int8:
		k.path = convInt16
	case in.Type == ops.Float32 && (filter.Type == ops.Int8 || filter.Type == ops.Uint8):
		k.path = convHybrid
	default:
		return fmt.Errorf("input 1 (filter): type %s not supported with input type %s (supported: float32/float32, float32/int8, float32/uint8, int8/int8, uint8/uint8, int16/int8)", filter.Type, in.Type)
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
	k.batches, k.inC = in.Shape[0], in.Shape[3]
	k.outC = filter.Shape[0]
	fH, fW, filterInC := filter.Shape[1], filter.Shape[2], filter.Shape[3]
	if filterInC <= 0 {
		return fmt.Errorf("input 1 (filter): %d input channels, need > 0", filterInC)
	}
	if k.inC%filterInC != 0 {
		return fmt.Errorf("input 0: %d channels is not a multiple of the filter's %d input channels", k.inC, filterInC)
	}
	k.groups = k.inC / filterInC
	if k.groups == 0 || k.outC%k.groups != 0 {
		return fmt.Errorf("input 1 (filter): %d output channels are not divisible into %d groups", k.outC, k.groups)
	}
	if bias != nil {
		if bias.NumElements() != k.outC {
			return fmt.Errorf("input 2 (bias): %d elements, need %d (output channels)", bias.NumElements(), k.outC)
		}
		if (k.path == convFloat || k.path == convHybrid) && bias.Type != ops.Float32 {
			return fmt.Errorf("input 2 (bias): type %s, need float32", bias.Type)
		}
	}
	if k.col.h, k.col.w, err = convWindows(k.opts.Padding, k.opts.ExplicitPad, k.path, in, fH, fW, k.opts.StrideH, k.opts.StrideW, k.opts.DilationHFactor, k.opts.DilationWFactor); err != nil {
		return err
	}
	outShape := []int{k.batches, k.col.h.out, k.col.w.out, k.outC}
	if _, err := ops.ShapeElements(outShape, in.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = outShape
	k.pixels = k.col.h.out * k.col.w.out
	k.col.depth, k.col.inC, k.col.inRowStride = filterInC, k.inC, in.Shape[2]*k.inC
	if _, err := ops.ShapeElements([]int{fH, fW, filterInC, max(k.pixels, 1)}, 4); err != nil {
		return fmt.Errorf("input 1 (filter): im2col buffer %v", err)
	}
	k.k = k.col.k()
	if err := reserveConv2D(n, k.outC, k.k, filter.NumElements()); err != nil {
		return err
	}
	if k.path == convInt16 {
		return k.prepareInt16(n, in, filter, bias, out)
	}

	switch k.path {
	case convFloat:
		k.fMin, k.fMax = gemmRangeF32(k.opts.Activation)
	case convHybrid:
		k.fMin, k.fMax = ActivationRangeFloat(k.opts.Activation)
		if err := k.prepareHybrid(filter); err != nil {
			return err
		}
	default:
		if err := k.q.prepare(in, filter, bias, out, k.opts.Activation, k.outC, 0, true); err != nil {
			return err
		}
		// CONV_2D requantises through arch.ChannelRequant (and the
		// grouped path through q.mult/q.shift), never requantRow: its
		// 32 bytes per channel need not stay.
		k.q.chans = nil
	}
	if k.opts.Activation == ops.ActTanh || k.opts.Activation == ops.ActSignBit {
		return fmt.Errorf("options: fused activation %s is not supported by CONV_2D", k.opts.Activation)
	}
	if k.groups > 1 {
		if k.path == convHybrid {
			return errors.New("input 1 (filter): grouped hybrid convolution is not supported")
		}
		return nil // direct loop, no scratch
	}
	k.direct = fH == 1 && fW == 1 && k.opts.StrideH == 1 && k.opts.StrideW == 1 &&
		k.col.h.pad == 0 && k.col.w.pad == 0 && k.col.h.out == k.col.h.in && k.col.w.out == k.col.w.in && k.path != convUint8
	gemmF32, gemmI8 := arch.GemmPreferred()
	k.matVec = convForceMatVec || k.path == convFloat && !gemmF32 || k.path != convFloat && !gemmI8
	elem := in.Type.Size()
	if k.path == convHybrid {
		elem = 1 // patches of the quantised input
	}
	k.threads = n.Threads()
	k.tile = max(1, min(k.pixels, convTileBytes/max(1, k.k*elem)))
	indirect := k.path == convFloat && !k.direct && !k.matVec && !convForceIm2col && arch.GemmF32IndirectFast(k.outC)
	if indirect && k.tile > 8 && k.tile < k.pixels {
		k.tile &^= 7 // the indirect kernel computes 8 rows at a time
	}
	switch {
	case (k.path == convInt8 || k.path == convUint8) && !k.matVec:
		// The requantising GEMM keeps its sums in registers: the tile
		// only bounds the im2col patches, in whole blocks of the
		// kernels' 8 rows (a tile of 4, 7 or 10 pixels, as an
		// accumulator bound on wide layers made, wastes rows).
		if k.tile > 8 {
			k.tile &^= 7
		}
	case k.path == convInt8 || k.path == convUint8 || k.path == convHybrid && !k.matVec:
		// The accumulators of a whole tile stay in L1 too.
		k.tile = max(1, min(k.tile, convAccTileBytes/(4*max(1, k.outC)))) // outC 0: an empty output
		k.accStride = threadStride(k.tile*k.outC, 4)
		k.accTileID = n.RequestScratch(4 * k.threads * k.accStride)
	}
	switch k.path {
	case convInt8:
		// TFLite's x86 build runs the int8 GEMM through ruy, whose
		// kernels round ties of the final shift upward.
		if k.cq, err = arch.NewChannelRequantUp(k.q.mult, k.q.shift); err != nil {
			return fmt.Errorf("output 0: %v", err)
		}
	case convUint8:
		// The uint8 GEMM runs through gemmlowp: ties away from zero.
		if k.cq, err = arch.NewChannelRequant(k.q.mult, k.q.shift); err != nil {
			return fmt.Errorf("output 0: %v", err)
		}
	}
	if k.path == convFloat && k.direct {
		// The GEMM reads the input in place: tiles only split the work.
		k.tile = max(1, min(k.pixels, convTileBytes/max(1, 4*k.outC)))
	}
	k.tilesPer = (k.pixels + k.tile - 1) / k.tile
	if err := k.splitChannels(); err != nil {
		return err
	}
	if !k.direct {
		k.colStride = threadStride(k.tile*k.k, elem)
		k.colID = n.RequestScratch(k.threads * k.colStride * elem)
	}
	if indirect {
		k.prepareIndirect(n, in)
	}
	switch k.path {
	case convFloat:
		k.tilesFn = k.floatTiles
	case convInt8, convUint8:
		k.tilesFn = k.quantTiles
	case convHybrid:
		k.hybridFn = k.hybridTiles
	}
	if k.path == convFloat && !k.matVec {
		size := arch.PackedGemmF32Len(k.outC, k.k)
		if filter.IsConstant() {
			k.packedF = make([]float32, size)
			arch.PackGemmF32(k.packedF, filter.Float32s(), k.outC, k.k)
		} else {
			k.packID = n.RequestScratch(4 * size)
		}
	}
	if k.path == convFloat && bias == nil {
		k.zeroBias = make([]float32, k.outC)
	}
	if k.path != convFloat {
		k.accID = n.RequestScratch(4 * k.outC)
		k.rowSums = make([]int32, k.outC)
		k.seed = make([]int32, k.outC)
		if k.path == convHybrid {
			k.qID = n.RequestScratch(in.NumElements())
			k.sfID = n.RequestScratch(4 * k.batches)
			k.offID = n.RequestScratch(4 * k.batches)
			k.csID = n.RequestScratch(4 * k.outC)
			k.corrID = n.RequestScratch(4 * k.outC)
		}
		constFilter := filter.Kind == ops.ConstTensor && len(filter.Data) >= filter.Bytes()
		if k.path == convUint8 {
			if constFilter && !k.matVec {
				// The GEMM reads only packed8 and the row sums, both
				// made here from the filter's bytes: no re-centred
				// copy stays beside the packed one.
				arch.PackGemmUint8(k.packed8Make(), filter.Data, k.outC, k.k)
				rowSumsRecentred(k.rowSums, filter.Data, k.outC, k.k)
				k.rowSumsOK, k.w8Packed = true, true
			} else if constFilter {
				k.w8 = make([]int8, filter.NumElements())
				recentreUint8(k.w8, filter.Data)
			} else {
				k.wID = n.RequestScratch(filter.NumElements())
			}
			k.sumStride = threadStride(k.tile, 4)
			k.xsumID = n.RequestScratch(4 * k.threads * k.sumStride)
		}
		if constFilter && k.path == convInt8 {
			// Taken once here, so Eval does not read the filter again
			// (the interpreter drops its mapped pages after Prepare).
			arch.RowSumsInt8(k.rowSums, filter.Int8s(), k.outC, k.k)
			k.rowSumsOK = true
		}
		if !k.matVec && !k.w8Packed {
			size := arch.PackedGemmInt8Len(k.outC, k.k)
			if constFilter {
				w := k.w8
				if k.path != convUint8 {
					w = ops.View[int8](filter.Data)[:filter.NumElements()] // int8, or a hybrid uint8 filter's bits
				}
				k.packed8 = make([]int8, size)
				arch.PackGemmInt8(k.packed8, w, k.outC, k.k)
			} else {
				k.pack8ID = n.RequestScratch(size)
			}
		}
	}
	return nil
}

// convWindows is the height and width geometry of a CONV_2D or
// DEPTHWISE_CONV_2D over input in: from the padding, or, when explicit
// (a folded PAD, VALID only), from the explicit padding, which only the
// float32, int8 and uint8 paths take.
func convWindows(p ops.Padding, explicit [4]int, path convPath, in *ops.Tensor, fH, fW, sH, sW, dH, dW int) (h, w window, err error) {
	if explicit == [4]int{} {
		if h, err = newWindow(p, in.Shape[1], fH, sH, dH, "height"); err != nil {
			return h, w, err
		}
		w, err = newWindow(p, in.Shape[2], fW, sW, dW, "width")
		return h, w, err
	}
	if p != ops.PaddingValid {
		return h, w, fmt.Errorf("options: explicit padding with padding %s, need VALID", p)
	}
	if path != convFloat && path != convInt8 && path != convUint8 {
		return h, w, fmt.Errorf("options: explicit padding is supported for float32, int8 and uint8 inputs, have %s", in.Type)
	}
	if h, err = newWindowPadded(in.Shape[1], fH, sH, dH, explicit[0], explicit[1], "height"); err != nil {
		return h, w, err
	}
	w, err = newWindowPadded(in.Shape[2], fW, sW, dW, explicit[2], explicit[3], "width")
	return h, w, err
}

// packed8Make allocates packed8 for the constant filter's GEMM form.
func (k *Conv2D) packed8Make() []int8 {
	k.packed8 = make([]int8, arch.PackedGemmInt8Len(k.outC, k.k))
	return k.packed8
}

// rowSumsRecentred sets dst[r] to Σ (u - 128) over row r of the rows×cols
// uint8 matrix u: arch.RowSumsInt8 of the re-centred filter, taken once
// at Prepare.
func rowSumsRecentred(dst []int32, u []uint8, rows, cols int) {
	for r := range rows {
		s := int32(0)
		for _, v := range u[r*cols : r*cols+cols] {
			s += int32(v)
		}
		dst[r] = s - 128*int32(cols)
	}
}

// recentreUint8 maps uint8 values v to int8 v-128, so the int8 matrix
// primitives can multiply uint8 data (zero points move by -128 too).
func recentreUint8(dst []int8, src []uint8) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = int8(v ^ 0x80)
	}
}

// Eval computes the convolution.
func (k *Conv2D) Eval(n *ops.Node) error {
	in, filter, bias, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if in == nil || filter == nil || out == nil {
		return errors.New("CONV_2D: input, filter or output missing at Eval")
	}
	f := filter
	if k.packedF != nil {
		f = nil // packed at Prepare; the interpreter may have freed it
	}
	if err := checkData(in, f, bias, out); err != nil {
		return err
	}
	if k.batches*k.pixels*k.outC == 0 {
		return nil
	}
	if k.path == convInt16 {
		return k.evalInt16(n, in, filter, bias, out)
	}
	if k.groups > 1 {
		k.evalGrouped(in, filter, bias, out)
		return nil
	}
	switch k.path {
	case convFloat:
		return k.evalFloat(n, in, filter, bias, out)
	case convHybrid:
		return k.evalHybrid(n, in, filter, bias, out)
	}
	return k.evalQuant(n, in, filter, bias, out)
}

// PackedInputs implements ops.PackingKernel: a constant float filter
// packed at Prepare (packedF) is not read at Eval.
func (k *Conv2D) PackedInputs() []int {
	if k.packedF != nil {
		return []int{1}
	}
	return nil
}

func (k *Conv2D) evalFloat(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	r := &k.run
	if !k.direct {
		var err error
		if r.colF, err = scratchFloat32(n, k.colID, k.threads*k.colStride); err != nil {
			return err
		}
	}
	r.packedF = k.packedF
	if r.packedF == nil && !k.matVec {
		var err error
		if r.packedF, err = scratchFloat32(n, k.packID, arch.PackedGemmF32Len(k.outC, k.k)); err != nil {
			return err
		}
		arch.PackGemmF32(r.packedF, filter.Float32s(), k.outC, k.k)
	}
	r.xf, r.of = in.Float32s(), out.Float32s()
	if k.matVec {
		r.filterF = filter.Float32s()
	}
	r.src = r.xf
	if k.padded {
		var err error
		if r.src, err = scratchFloat32(n, k.padID, k.batches*k.srcH*k.srcW*k.inC); err != nil {
			return err
		}
		k.padInput(r.src, r.xf)
	}
	r.bias = k.zeroBias
	if bias != nil {
		r.bias = bias.Float32s()[:k.outC]
	}
	n.Parallel(k.batches*k.tilesPer*max(k.chBlocks, 1), k.batches*k.pixels*k.outC*k.k, k.tilesFn)
	k.run = convRun{}
	return nil
}

// floatTiles computes the float tiles [lo, hi) (tile t of image
// t/tilesPer) with worker's im2col scratch.
func (k *Conv2D) floatTiles(worker, lo, hi int) {
	r := &k.run
	var col []float32
	if !k.direct {
		col = r.colF[worker*k.colStride : worker*k.colStride+k.tile*k.k]
	}
	inImage := k.col.h.in * k.col.inRowStride
	blocks := max(k.chBlocks, 1)
	for u := lo; u < hi; u++ {
		t, cb := u/blocks, u%blocks
		batch, p0 := t/k.tilesPer, t%k.tilesPer*k.tile
		xb := r.xf[batch*inImage : (batch+1)*inImage]
		ob := r.of[batch*k.pixels*k.outC : (batch+1)*k.pixels*k.outC]
		cnt := min(k.tile, k.pixels-p0)
		var src []float32
		if k.indirect {
			j0, j1 := k.chRange(cb)
			k.tileIndirect(worker, batch, p0, cnt, j0, j1, ob[p0*k.outC:(p0+cnt)*k.outC], col)
			continue
		}
		if k.direct {
			src = xb[p0*k.k : (p0+cnt)*k.k]
		} else {
			im2colFill(&k.col, col, xb, p0, cnt, 0)
			src = col[:cnt*k.k]
		}
		dst := ob[p0*k.outC : (p0+cnt)*k.outC]
		if k.matVec {
			fillBias(dst, r.bias, k.outC)
			arch.MatBatchVecMulAcc(dst, r.filterF, k.outC, k.k, src, cnt)
			if k.opts.Activation != ops.ActNone {
				clampRowF32(dst, k.fMin, k.fMax)
			}
			continue
		}
		// One GEMM over all images' pixels, as TFLite's im2col (the order
		// of a sum depends on the row's place in it); a channel block is
		// its columns [j0, j1), whose sums are the same.
		j0, j1 := k.chRange(cb)
		tile := arch.GemmF32Tile
		if k.fused {
			tile = arch.GemmF32TileFused
		}
		tile(dst[j0:], k.outC, src, k.k, r.packedF[arch.PackedGemmF32Len(j0, k.k):], r.bias[j0:j1], cnt, j1-j0, k.k, k.fMin, k.fMax, batch*k.pixels+p0, k.batches*k.pixels)
	}
}

// prepareIndirect sets up the indirect float path: the padded source's
// size (the input's, grown by the leading padding and by whatever the
// last windows read past the input), the runs of a window and the row
// offset scratch.
func (k *Conv2D) prepareIndirect(n *ops.Node, in *ops.Tensor) {
	h, w := k.col.h, k.col.w
	inH, inW := in.Shape[1], in.Shape[2]
	k.srcH = max(inH+h.pad, (h.out-1)*h.stride+(h.filter-1)*h.dilation+1)
	k.srcW = max(inW+w.pad, (w.out-1)*w.stride+(w.filter-1)*w.dilation+1)
	k.padded = k.srcH != inH || k.srcW != inW
	if k.padded {
		k.padID = n.RequestScratch(4 * k.batches * k.srcH * k.srcW * k.inC)
	}
	row := k.srcW * k.inC
	k.runs = k.runs[:0]
	if w.dilation == 1 {
		k.runLen = w.filter * k.inC
		for fy := range h.filter {
			k.runs = append(k.runs, fy*h.dilation*row)
		}
	} else {
		k.runLen = k.inC
		for fy := range h.filter {
			for fx := range w.filter {
				k.runs = append(k.runs, fy*h.dilation*row+fx*w.dilation*k.inC)
			}
		}
	}
	k.rowOffs = make([]int, k.threads*k.tile)
	k.indirect = true
}

// padInput writes every image of x into dst with k.col's leading
// padding and zeros around it (srcH×srcW pixels per image).
func (k *Conv2D) padInput(dst, x []float32) {
	inH, inW, c := k.col.h.in, k.col.w.in, k.inC
	top, left := k.col.h.pad, k.col.w.pad
	row := k.srcW * c
	for b := range k.batches {
		img := dst[b*k.srcH*row : (b+1)*k.srcH*row]
		xi := x[b*inH*inW*c : (b+1)*inH*inW*c]
		clear(img[:top*row])
		clear(img[(top+inH)*row:])
		for y := range inH {
			r := img[(top+y)*row : (top+y+1)*row]
			clear(r[:left*c])
			copy(r[left*c:], xi[y*inW*c:(y+1)*inW*c])
			clear(r[(left+inW)*c:])
		}
	}
}

// tileIndirect computes output channels [j0, j1) of cnt pixels from p0
// of image batch through arch.GemmF32Indirect, the windows read in place
// (col is the gathering scratch of levels without the kernel).
func (k *Conv2D) tileIndirect(worker, batch, p0, cnt, j0, j1 int, dst, col []float32) {
	r := &k.run
	h, w := k.col.h, k.col.w
	c, outW := k.inC, w.out
	step, rowStep := w.stride*c, h.stride*k.srcW*c
	img := batch * k.srcH * k.srcW * c
	offs := k.rowOffs[worker*k.tile : worker*k.tile+cnt]
	oy, ox := p0/outW, p0%outW
	for i := 0; i < cnt; {
		run := min(cnt-i, outW-ox) // pixels of this output row
		off := img + oy*rowStep + ox*step
		for j := range offs[i : i+run] {
			offs[i+j] = off
			off += step
		}
		i, ox, oy = i+run, 0, oy+1
	}
	indirect := arch.GemmF32Indirect
	if k.fused {
		indirect = arch.GemmF32IndirectFused
	}
	indirect(dst[j0:], k.outC, r.src, offs, k.runs, k.runLen, r.packedF[arch.PackedGemmF32Len(j0, k.k):], r.bias[j0:j1], cnt, j1-j0, k.fMin, k.fMax, batch*k.pixels+p0, k.batches*k.pixels, col)
}

// gemmRangeF32 is the clamp range of a fused activation for arch.GemmF32
// and arch.DepthwiseConvF32: ActivationRangeFloat's, except that no
// activation clamps nothing (±Inf, so an infinite sum stays infinite).
func gemmRangeF32(a ops.Activation) (lo, hi float32) {
	if a == ops.ActNone {
		return float32(math.Inf(-1)), float32(math.Inf(1))
	}
	return ActivationRangeFloat(a)
}

// fillBias sets every row of length c in dst to b (zeros when b is nil).
// After the first row it doubles the filled prefix with each copy, so a
// tile of many short rows costs a few memmoves instead of one per row.
func fillBias(dst, b []float32, c int) {
	if b == nil {
		clear(dst)
		return
	}
	rows := len(dst) / c
	if rows == 0 {
		return
	}
	dst = dst[:rows*c]
	copy(dst[:c], b)
	for filled := c; filled < len(dst); filled *= 2 {
		copy(dst[filled:], dst[:filled])
	}
}

// filterInt8 returns the filter as int8 values: the tensor itself for
// int8, the re-centred copy for uint8.
func (k *Conv2D) filterInt8(n *ops.Node, filter *ops.Tensor) ([]int8, error) {
	switch {
	case k.path == convInt8:
		return filter.Int8s(), nil
	case k.w8 != nil:
		return k.w8, nil
	case k.w8Packed:
		return nil, nil // the GEMM reads packed8 and the row sums only
	}
	w, err := scratchInt8(n, k.wID, filter.NumElements())
	if err != nil {
		return nil, err
	}
	recentreUint8(w, filter.Data)
	return w, nil
}

func (k *Conv2D) evalQuant(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	r := &k.run
	var err error
	if k.matVec {
		if r.accTile, err = scratchInt32(n, k.accTileID, k.threads*k.accStride); err != nil {
			return err
		}
	}
	w, err := k.filterInt8(n, filter)
	if err != nil {
		return err
	}
	r.w = w
	if !k.direct {
		if r.col8, err = scratchInt8(n, k.colID, k.threads*k.colStride); err != nil {
			return err
		}
	}
	if !k.rowSumsOK || filter.Kind != ops.ConstTensor || k.path == convUint8 && k.w8 == nil && !k.w8Packed {
		arch.RowSumsInt8(k.rowSums, w, k.outC, k.k)
		k.rowSumsOK = true
	}
	// Zero points in the int8 domain the products are taken in: input
	// and filter values v stand for v - zp. Σ (w - wzp)(x - xzp) + bias =
	// Σ w·x + (bias - xzp·Σw + K·wzp·xzp) - wzp·Σx; the bracket is the
	// same for every pixel and seeds the accumulators.
	xzp, wzp := -k.q.inOffset, int32(0)
	if k.path == convUint8 {
		xzp, wzp = xzp-128, -k.q.wOffset-128
	}
	r.wzp = wzp
	constant := int32(k.k) * wzp * xzp
	for c := range k.seed {
		v := constant - xzp*k.rowSums[c]
		if bias != nil {
			v += bias.Int32s()[c]
		}
		k.seed[c] = v
	}
	if k.path == convInt8 {
		r.x8 = in.Int8s()
		r.padByte = int8(xzp)
	} else {
		r.x8 = ops.View[int8](in.Data)
		r.padByte = int8(uint8(-k.q.inOffset)) // raw uint8 zero point, re-centred below
	}
	r.packed8 = k.packed8
	if r.packed8 == nil && !k.matVec {
		if r.packed8, err = scratchInt8(n, k.pack8ID, arch.PackedGemmInt8Len(k.outC, k.k)); err != nil {
			return err
		}
		arch.PackGemmInt8(r.packed8, w, k.outC, k.k)
	}
	if wzp != 0 && k.matVec {
		if r.xsum, err = scratchInt32(n, k.xsumID, k.threads*k.sumStride); err != nil {
			return err
		}
	}
	r.out = out
	n.Parallel(k.batches*k.tilesPer*max(k.chBlocks, 1), k.batches*k.pixels*k.outC*k.k, k.tilesFn)
	k.run = convRun{}
	return nil
}

// quantTiles computes the int8 or uint8 tiles [lo, hi) (tile t of image
// t/tilesPer) with worker's scratch.
func (k *Conv2D) quantTiles(worker, lo, hi int) {
	r := &k.run
	q := &k.q
	var col []int8
	if !k.direct {
		col = r.col8[worker*k.colStride : worker*k.colStride+k.tile*k.k]
	}
	inImage := k.col.h.in * k.col.inRowStride
	blocks := max(k.chBlocks, 1)
	for u := lo; u < hi; u++ {
		t, cb := u/blocks, u%blocks
		batch, p0 := t/k.tilesPer, t%k.tilesPer*k.tile
		xb := r.x8[batch*inImage : (batch+1)*inImage]
		cnt := min(k.tile, k.pixels-p0)
		var src []int8
		if k.direct {
			src = xb[p0*k.k : (p0+cnt)*k.k]
		} else {
			im2colFill(&k.col, col, xb, p0, cnt, r.padByte)
			src = col[:cnt*k.k]
			if k.path == convUint8 {
				flipSigns(src)
			}
		}
		off := (batch*k.pixels + p0) * k.outC
		if !k.matVec {
			// Sums, the filter zero point's term and the
			// requantisation in one pass.
			j0, j1 := k.chRange(cb)
			cq, packed := k.cq, r.packed8[arch.PackedGemmInt8Len(j0, k.k):]
			if k.chBlocks > 1 {
				cq = k.cqs[cb]
			}
			end := off + (cnt-1)*k.outC + j1
			if k.path == convInt8 {
				arch.GemmInt8RequantizeInt8(r.out.Int8s()[off+j0:end], k.outC, src, k.k, packed, k.seed[j0:j1], r.wzp, cq, cnt, j1-j0, k.k, q.outOffset, q.actMin, q.actMax)
			} else {
				arch.GemmInt8RequantizeUint8(r.out.Data[off+j0:end], k.outC, src, k.k, packed, k.seed[j0:j1], r.wzp, cq, cnt, j1-j0, k.k, q.outOffset, q.actMin, q.actMax)
			}
			continue
		}
		// The per-pixel matrix-vector path: int32 sums in a tile; a
		// filter zero point adds the per-pixel term -wzp·Σx before
		// the requantisation.
		accT := r.accTile[worker*k.accStride : worker*k.accStride+cnt*k.outC]
		copy(accT[:k.outC], k.seed)
		for filled := k.outC; filled < len(accT); filled *= 2 {
			copy(accT[filled:], accT[:filled])
		}
		for i := 0; i < cnt; i++ {
			arch.MatVecMulAccInt8(accT[i*k.outC:(i+1)*k.outC], r.w, k.outC, k.k, src[i*k.k:(i+1)*k.k])
		}
		if r.wzp != 0 {
			xsum := r.xsum[worker*k.sumStride : worker*k.sumStride+cnt]
			arch.RowSumsInt8(xsum, src, cnt, k.k)
			for i, s := range xsum {
				corr := r.wzp * s
				acc := accT[i*k.outC : (i+1)*k.outC]
				for c := range acc {
					acc[c] -= corr
				}
			}
		}
		if k.path == convInt8 {
			arch.RequantizeChannelsInt8(r.out.Int8s()[off:off+len(accT)], accT, k.cq, q.outOffset, q.actMin, q.actMax)
		} else {
			arch.RequantizeChannelsUint8(r.out.Data[off:off+len(accT)], accT, k.cq, q.outOffset, q.actMin, q.actMax)
		}
	}
}

// flipSigns maps uint8 values v, stored in int8 slots, to int8 v-128 (the
// re-centring of recentreUint8), eight bytes at a time.
func flipSigns(v []int8) {
	words := len(v) / 8
	if uintptr(unsafe.Pointer(unsafe.SliceData(v)))%8 != 0 {
		words = 0 // (unaligned 64-bit access faults on some 32-bit ARMs)
	}
	if words > 0 {
		u := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), words)
		for i := range u {
			u[i] ^= 0x8080808080808080
		}
	}
	for i := words * 8; i < len(v); i++ {
		v[i] ^= -128
	}
}

// evalGrouped is TFLite's reference convolution, used (as in TFLite) for
// grouped convolutions: each output channel reads only its group's input
// channels.
func (k *Conv2D) evalGrouped(in, filter, bias, out *ops.Tensor) {
	g := &k.col
	filterInC := g.depth
	perGroup := k.outC / k.groups
	fH, fW := g.h.filter, g.w.filter
	xf, wf, x8, w8, xu, wu := in.Float32s(), filter.Float32s(), in.Int8s(), filter.Int8s(), in.Data, filter.Data
	for batch := 0; batch < k.batches; batch++ {
		for oy := 0; oy < g.h.out; oy++ {
			yOrigin, fyLo, fyHi := g.h.span(oy)
			for ox := 0; ox < g.w.out; ox++ {
				xOrigin, fxLo, fxHi := g.w.span(ox)
				for oc := 0; oc < k.outC; oc++ {
					icBase := (oc / perGroup) * filterInC
					var facc float32
					var acc int32
					for fy := fyLo; fy < fyHi; fy++ {
						iy := yOrigin + fy*g.h.dilation
						for fx := fxLo; fx < fxHi; fx++ {
							ix := xOrigin + fx*g.w.dilation
							xi := ((batch*g.h.in+iy)*g.w.in+ix)*k.inC + icBase
							wi := ((oc*fH+fy)*fW + fx) * filterInC
							for ic := 0; ic < filterInC; ic++ {
								switch k.path {
								case convFloat:
									facc += xf[xi+ic] * wf[wi+ic]
								case convInt8:
									acc += int32(w8[wi+ic]) * (int32(x8[xi+ic]) + k.q.inOffset)
								default:
									acc += (int32(wu[wi+ic]) + k.q.wOffset) * (int32(xu[xi+ic]) + k.q.inOffset)
								}
							}
						}
					}
					oi := ((batch*g.h.out+oy)*g.w.out+ox)*k.outC + oc
					switch k.path {
					case convFloat:
						if bias != nil {
							facc += bias.Float32s()[oc]
						}
						out.Float32s()[oi] = clampF32(facc, k.fMin, k.fMax)
					default:
						if bias != nil {
							acc += bias.Int32s()[oc]
						}
						v := k.q.requantize(acc, oc)
						if k.path == convInt8 {
							out.Int8s()[oi] = int8(v)
						} else {
							out.Data[oi] = uint8(v)
						}
					}
				}
			}
		}
	}
}
