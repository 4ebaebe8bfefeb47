package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// BatchMatMul is the kernel of TFLite's BATCH_MATMUL operator: a batch of
// matrix products with broadcasting of the batch dimensions,
//
//	out[..., i, j] = Σ_k x[..., i, k]·y[..., k, j],
//
// where x is input 0 ([..., A, B], or [..., B, A] read transposed when
// adj_x is set) and y input 1 ([..., B, C], or [..., C, B] with adj_y).
// Both have rank 2 to 5; the batch dimensions (all but the last two,
// aligned from the right) must be equal or 1, and a dimension of 1
// repeats. Output 0 is [broadcast batch dims..., A, C].
//
// Type paths, as TFLite's builtin kernel (batch_matmul.cc, which runs
// reference_ops::BatchMatMul):
//   - float32 × float32 → float32;
//   - int8 × int8 → int8: Σ (x − x_zp)(y − y_zp) requantised with the
//     double-rounding MultiplyByQuantizedMultiplier of x_scale·y_scale /
//     out_scale (per-tensor scales), plus the output zero point, clamped to
//     int8;
//   - int8 × int8 → int32: the plain sums Σ x·y (zero points ignored, as
//     TFLite's kernel ignores them);
//   - int16 × int16 and int16 × int8 → int16 (zero points 0): int64 sums
//     requantised with the 64-bit MultiplyByQuantizedMultiplier;
//   - on the requantising paths, input 1 with several (per-channel)
//     scales is read, as TFLite reads it, through its legacy per-tensor
//     parameters, scale 0 and zero point 0: the multiplier is 0 and every
//     output is the output zero point (TFLite's result for LiteRT's own
//     static_w8_a16 einsum test model);
//   - hybrid float32 × int8 → float32: every row of x (B values) is
//     quantised to int8 (symmetrically, or asymmetrically when
//     asymmetric_quantize_inputs is set) and the int32 sums scaled back by
//     the row's scale times y's scale (per tensor, or per output column
//     with one scale per column). The arithmetic is TFLite's float32
//     epilogue step for step, including its indexing of the row scales of
//     inputs with several batch dimensions by the sum of the batch indices
//     (reference_ops::BatchMatMul's hybrid form does so; reproduced).
//
// The products run through arch.GemmF32 and the int8 GEMMs of package
// arch; int16 operands are split into int8 halves whose products give the
// exact int64 sums. Integer results are TFLite's bit for bit. Versions
// 1-4, TFLite's register.cc range; the kernel dispatches on the tensor
// types, as TFLite's does, whatever version the model states (converters
// stamp int16 models version 1).
type BatchMatMul struct {
	opts BatchMatMulOptions
	path bmmPath

	a, b, c          int    // rows A, depth B, columns C of each product
	lDims, rDims     [3]int // batch dimensions, extended to three
	oDims            [3]int
	nL, nR           int // lhs and rhs matrices
	matVec           bool
	rhsConst         bool
	loaded           bool // rhs transposed and packed (constant rhs)
	lhsTID           int  // adj_x: one transposed lhs matrix (float/int8) or all (hybrid)
	aHiID, aLoID     int  // int16 lhs halves of one matrix
	p0ID, p1ID       int  // int16 paths: int32 products of one matrix
	p2ID, p3ID       int  // int16 × int16: the other two products
	qID, sfID, offID int  // hybrid: quantised lhs, row scales, row zero points

	// The rhs matrices transposed to [C][B] (int16 × int16: split into
	// high and low int8 halves; uint8 never occurs) and packed for the
	// GEMMs, with their row sums (int8 forms) and per-column seeds.
	rTF      []float32
	rT8      []int8 // int8 rhs, or the high halves of int16
	rT8lo    []int8 // int16 rhs: the low halves
	packedF  []float32
	packed8  []int8
	packedLo []int8
	rowSums  []int32 // per rhs matrix and column: Σ of the int8 form
	rowSumLo []int32
	colSum16 []int64 // int16 × int16: Σ_k y of every rhs column
	seed     []int32 // int8 path: per rhs matrix and column
	zeroSeed []int32
	zeroF    []float32

	mult       int32
	shift      int
	xZP, yZP   int32
	outZP      int32
	cq         *arch.ChannelRequant
	yScale     float32   // hybrid per-tensor scale of y
	chanScale  []float32 // hybrid per-column scales, nil for per-tensor
	outMatSize int

	// Threading (ops.Node.Parallel) of the float32 and int8 paths: the
	// units are blocks of rowBlock lhs rows of each output matrix
	// (whole matrices with adj_x, whose transposed lhs each thread keeps
	// in its own stretch of lhsTID), the same at every thread count.
	rowBlock, blocksPer int
	threads             int
	run                 bmmRun
	unitsFn             func(worker, lo, hi int)
}

// bmmRun is what the unit function of one Eval reads, cleared when Eval
// returns.
type bmmRun struct {
	x, out *ops.Tensor
	lhsT   []byte
}

// bmmRowBlock is the lhs rows of one unit of a threaded BATCH_MATMUL.
const bmmRowBlock = 64

// bmmPath is the arithmetic a BATCH_MATMUL node runs.
type bmmPath uint8

const (
	bmmFloat bmmPath = iota
	bmmInt8
	bmmInt8Int32
	bmmInt16
	bmmInt16Int8
	bmmHybrid
)

// BatchMatMulOptions is TFLite's BatchMatMulOptions.
type BatchMatMulOptions struct {
	AdjX, AdjY bool
	// AsymmetricQuantizeInputs makes the hybrid path quantise the float
	// input with a zero point (version 4).
	AsymmetricQuantizeInputs bool
}

// NewBatchMatMul returns a BATCH_MATMUL kernel for one node.
func NewBatchMatMul() ops.Kernel { return &BatchMatMul{} }

func init() {
	// TFLite registers 1-4 (2: int8, 3: int16, 4: asymmetric hybrid); all
	// are implemented.
	register(ops.OpBatchMatMul, NewBatchMatMul, [2]int{1, 4})
	registerOptions(schema.BuiltinOptionsBatchMatMulOptions, decodeBatchMatMulOptions)
}

// decodeBatchMatMulOptions decodes TFLite's BatchMatMulOptions table.
func decodeBatchMatMulOptions(t ops.OptionsTable) (any, error) {
	var o schema.BatchMatMulOptions
	initTable(&o, t)
	return &BatchMatMulOptions{AdjX: o.AdjX(), AdjY: o.AdjY(), AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs()}, nil
}

// extend3 returns the batch dimensions of shape (all but the last two),
// padded with leading ones to three.
func extend3(shape []int) [3]int {
	d := [3]int{1, 1, 1}
	nb := len(shape) - 2
	for i := 0; i < nb; i++ {
		d[3-nb+i] = shape[i]
	}
	return d
}

// Prepare validates the node, sets the output shape and packs a constant
// rhs.
func (k *BatchMatMul) Prepare(n *ops.Node) error {
	*k = BatchMatMul{}
	if o, ok := n.Options.(*BatchMatMulOptions); ok {
		if o != nil {
			k.opts = *o
		}
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *BatchMatMulOptions", n.Options)
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	x, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	y, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	switch {
	case x.Type == ops.Float32 && y.Type == ops.Float32:
		k.path = bmmFloat
	case x.Type == ops.Float32 && y.Type == ops.Int8:
		k.path = bmmHybrid
	case x.Type == ops.Int8 && y.Type == ops.Int8 && out.Type == ops.Int32:
		k.path = bmmInt8Int32
	case x.Type == ops.Int8 && y.Type == ops.Int8:
		k.path = bmmInt8
	case x.Type == ops.Int16 && y.Type == ops.Int16:
		k.path = bmmInt16
	case x.Type == ops.Int16 && y.Type == ops.Int8:
		k.path = bmmInt16Int8
	default:
		return fmt.Errorf("input 1: type %s not supported with input 0 type %s (supported: float32×float32, float32×int8, int8×int8, int16×int16, int16×int8)", y.Type, x.Type)
	}
	wantOut := x.Type
	if k.path == bmmInt8Int32 {
		wantOut = ops.Int32
	}
	if out.Type != wantOut {
		return fmt.Errorf("output 0: type %s, need %s for inputs %s and %s", out.Type, wantOut, x.Type, y.Type)
	}
	for i, t := range []*ops.Tensor{x, y} {
		if t.Rank() < 2 || t.Rank() > 5 {
			return fmt.Errorf("input %d: rank %d, need 2 to 5", i, t.Rank())
		}
		if _, err := numElementsChecked(t, fmt.Sprintf("input %d", i)); err != nil {
			return err
		}
	}
	// The output's shape, from the shapes as given.
	rank := max(x.Rank(), y.Rank())
	ext := func(s []int) []int {
		e := make([]int, rank)
		for i := range e {
			e[i] = 1
		}
		copy(e[rank-len(s):], s)
		return e
	}
	xe, ye := ext(x.Shape), ext(y.Shape)
	outShape := make([]int, rank)
	for i := 0; i < rank-2; i++ {
		if xe[i] != ye[i] && xe[i] != 1 && ye[i] != 1 {
			return fmt.Errorf("input 0/1: batch dimensions %v and %v do not broadcast (dimension %d: %d vs %d)", x.Shape, y.Shape, i, xe[i], ye[i])
		}
		outShape[i] = xe[i]
		if xe[i] == 1 {
			outShape[i] = ye[i]
		}
	}
	accX, accY := xe[rank-1], ye[rank-2]
	outShape[rank-2], outShape[rank-1] = xe[rank-2], ye[rank-1]
	if k.opts.AdjX {
		accX, outShape[rank-2] = xe[rank-2], xe[rank-1]
	}
	if k.opts.AdjY {
		accY, outShape[rank-1] = ye[rank-1], ye[rank-2]
	}
	if accX != accY {
		return fmt.Errorf("input 0/1: shapes %v and %v: depth %d of input 0 differs from %d of input 1 (adj_x %v, adj_y %v)", x.Shape, y.Shape, accX, accY, k.opts.AdjX, k.opts.AdjY)
	}
	if _, err := ops.ShapeElements(outShape, out.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}

	// TFLite folds an rhs batch dimension of 1 next to the matrix into
	// the lhs rows ([..., Q, R, S] × [..., 1, X, Y] → [..., Q·R, S] ×
	// [..., X, Y]), the same products; the hybrid path's scale indexing
	// depends on it.
	xs, ys := copyShape(x.Shape), copyShape(y.Shape)
	if !k.opts.AdjX && len(xs) > 2 && len(ys) > 2 && ys[len(ys)-3] == 1 {
		l := len(xs)
		xs = append(xs[:l-3:l-3], xs[l-3]*xs[l-2], xs[l-1])
		m := len(ys)
		ys = append(ys[:m-3:m-3], ys[m-2], ys[m-1])
	}
	k.lDims, k.rDims = extend3(xs), extend3(ys)
	for i := range k.oDims {
		k.oDims[i] = max(k.lDims[i], k.rDims[i])
		if k.lDims[i] == 0 || k.rDims[i] == 0 {
			k.oDims[i] = 0
		}
	}
	k.a, k.b = xs[len(xs)-2], xs[len(xs)-1]
	if k.opts.AdjX {
		k.a, k.b = k.b, k.a
	}
	k.c = ys[len(ys)-1]
	if k.opts.AdjY {
		k.c = ys[len(ys)-2]
	}
	k.nL = k.lDims[0] * k.lDims[1] * k.lDims[2]
	k.nR = k.rDims[0] * k.rDims[1] * k.rDims[2]
	k.outMatSize = k.a * k.c
	if err := k.prepareQuant(x, y, out); err != nil {
		return err
	}
	out.Shape = outShape
	if k.a == 0 || k.c == 0 || k.oDims[0]*k.oDims[1]*k.oDims[2] == 0 {
		return nil // nothing to compute
	}

	gemmF32, _ := arch.GemmPreferred()
	k.matVec = k.path == bmmFloat && (!gemmF32 || bmmForceMatVec)
	ab := k.a * k.b
	k.threads = n.Threads()
	k.unitsFn = k.units
	k.rowBlock = min(k.a, bmmRowBlock)
	if k.opts.AdjX {
		k.rowBlock = k.a
	}
	k.blocksPer = (k.a + k.rowBlock - 1) / k.rowBlock
	if k.opts.AdjX {
		switch k.path {
		case bmmFloat:
			k.lhsTID = n.RequestScratch(4 * ab * k.threads)
		case bmmInt8, bmmInt8Int32:
			k.lhsTID = n.RequestScratch(ab * k.threads)
		case bmmInt16, bmmInt16Int8:
			k.lhsTID = n.RequestScratch(2 * ab)
		case bmmHybrid:
			k.lhsTID = n.RequestScratch(4 * k.nL * ab)
		}
	}
	switch k.path {
	case bmmInt16, bmmInt16Int8:
		k.aHiID = n.RequestScratch(ab)
		k.aLoID = n.RequestScratch(ab)
		k.p0ID = n.RequestScratch(4 * k.outMatSize)
		k.p1ID = n.RequestScratch(4 * k.outMatSize)
		if k.path == bmmInt16 {
			k.p2ID = n.RequestScratch(4 * k.outMatSize)
			k.p3ID = n.RequestScratch(4 * k.outMatSize)
		}
	case bmmHybrid:
		k.qID = n.RequestScratch(k.nL * ab)
		k.sfID = n.RequestScratch(4 * k.nL * k.a)
		k.offID = n.RequestScratch(4 * k.nL * k.a)
		k.p0ID = n.RequestScratch(4 * k.outMatSize)
	}
	if k.b == 0 {
		return nil // every sum is 0; Eval writes what that requantises to
	}
	// The rhs in [C][B] form, packed.
	bc := k.b * k.c
	switch k.path {
	case bmmFloat:
		k.rTF = make([]float32, k.nR*bc)
		if !k.matVec {
			k.packedF = make([]float32, k.nR*arch.PackedGemmF32Len(k.c, k.b))
		}
		k.zeroF = make([]float32, k.c)
	default:
		k.rT8 = make([]int8, k.nR*bc)
		k.packed8 = make([]int8, k.nR*arch.PackedGemmInt8Len(k.c, k.b))
		k.rowSums = make([]int32, k.nR*k.c)
		k.zeroSeed = make([]int32, k.c)
		if k.path == bmmInt8 {
			k.seed = make([]int32, k.nR*k.c)
		}
		if k.path == bmmInt16 {
			k.rT8lo = make([]int8, k.nR*bc)
			k.packedLo = make([]int8, k.nR*arch.PackedGemmInt8Len(k.c, k.b))
			k.rowSumLo = make([]int32, k.nR*k.c)
			k.colSum16 = make([]int64, k.nR*k.c)
		}
	}
	k.rhsConst = y.IsConstant()
	if k.rhsConst {
		k.loadRHS(y)
	}
	return nil
}

// bmmForceMatVec makes BATCH_MATMUL's float path use the per-row
// matrix-vector products (tests: the path arm64 takes).
var bmmForceMatVec bool

// prepareQuant checks the quantisation of the integer and hybrid paths
// and derives the requantisation.
func (k *BatchMatMul) prepareQuant(x, y, out *ops.Tensor) error {
	switch k.path {
	case bmmFloat, bmmInt8Int32:
		return nil
	case bmmHybrid:
		fq := y.Quant
		if fq == nil || len(fq.Scale) == 0 {
			return errors.New("input 1: int8 input of a hybrid BATCH_MATMUL has no quantization parameters")
		}
		if len(fq.Scale) > 1 {
			// TFLite reads the scales by output column.
			colDim := y.Rank() - 1
			if k.opts.AdjY {
				colDim = y.Rank() - 2
			}
			if len(fq.Scale) != k.c || fq.QuantizedDimension != colDim {
				return fmt.Errorf("input 1: %d scales along dimension %d, need one per output column (%d) along dimension %d", len(fq.Scale), fq.QuantizedDimension, k.c, colDim)
			}
			k.chanScale = fq.Scale
		} else {
			k.yScale = fq.Scale[0]
		}
		if k.rDims[0] != 1 {
			// TFLite sums the rhs rows of the last two batch dimensions
			// only and then reads sums of matrices it did not sum.
			return fmt.Errorf("input 1: hybrid BATCH_MATMUL with %d matrices along the first of 5 dimensions is not supported (TFLite reads uninitialised row sums)", k.rDims[0])
		}
		return nil
	}
	xs, xzp, err := perTensorQuant(x, "input 0")
	if err != nil {
		return err
	}
	ys, yzp, err := perTensorQuant(y, "input 1")
	if err != nil {
		return err
	}
	if isPerChannel(y) {
		// TFLite's kernel reads the tensor's legacy per-tensor
		// parameters, which a quantisation with several scales leaves at
		// scale 0 and zero point 0 (GetLegacyQuantization): the
		// multiplier is 0 and every output is the output zero point.
		ys, yzp = 0, 0
	}
	os, ozp, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	if (k.path == bmmInt16 || k.path == bmmInt16Int8) && (xzp != 0 || yzp != 0 || ozp != 0) {
		return fmt.Errorf("input 0/1/output 0: int16 BATCH_MATMUL needs zero points 0, have %d, %d, %d", xzp, yzp, ozp)
	}
	k.xZP, k.yZP, k.outZP = xzp, yzp, ozp
	// GetQuantizedConvolutionMultipler: the float32 product of the
	// input scales, in double, over the output scale.
	k.mult, k.shift = ops.QuantizeMultiplier(float64(xs*ys) / float64(os))
	if k.path != bmmInt8 && k.shift > 7 {
		// TFLite's 64-bit MultiplyByQuantizedMultiplier assumes shifts
		// below 8.
		return fmt.Errorf("output 0: scale %g is too small for input scales %g and %g (rescale factor 2^%d)", os, xs, ys, k.shift)
	}
	if k.path == bmmInt8 && k.c > 0 {
		m := make([]int32, k.c)
		s := make([]int, k.c)
		for j := range m {
			m[j], s[j] = k.mult, k.shift
		}
		if k.cq, err = arch.NewChannelRequant(m, s); err != nil {
			return fmt.Errorf("output 0: %v", err)
		}
	}
	if (k.path == bmmInt16 || k.path == bmmInt16Int8) && k.b > 1<<16 {
		return fmt.Errorf("input 0: depth %d, the int16 kernel supports at most %d", k.b, 1<<16)
	}
	return nil
}

// loadRHS transposes every rhs matrix to [C][B] and packs it, with the
// row sums and seeds of the integer paths.
func (k *BatchMatMul) loadRHS(y *ops.Tensor) {
	b, c := k.b, k.c
	bc := b * c
	for r := 0; r < k.nR; r++ {
		switch k.path {
		case bmmFloat:
			dst := k.rTF[r*bc : (r+1)*bc]
			src := y.Float32s()[r*bc : (r+1)*bc]
			if k.opts.AdjY {
				copy(dst, src)
			} else {
				transposeInto(dst, src, b, c)
			}
			if !k.matVec {
				pl := arch.PackedGemmF32Len(c, b)
				arch.PackGemmF32(k.packedF[r*pl:(r+1)*pl], dst, c, b)
			}
			continue
		case bmmInt16:
			src := y.Int16s()[r*bc : (r+1)*bc]
			hi, lo := k.rT8[r*bc:(r+1)*bc], k.rT8lo[r*bc:(r+1)*bc]
			for j := 0; j < c; j++ {
				var sum int64
				for i := 0; i < b; i++ {
					var v int16
					if k.opts.AdjY {
						v = src[j*b+i]
					} else {
						v = src[i*c+j]
					}
					hi[j*b+i], lo[j*b+i] = int8(v>>8), int8(uint8(v)^0x80)
					sum += int64(v)
				}
				k.colSum16[r*c+j] = sum
			}
			pl := arch.PackedGemmInt8Len(c, b)
			arch.PackGemmInt8(k.packed8[r*pl:(r+1)*pl], hi, c, b)
			arch.PackGemmInt8(k.packedLo[r*pl:(r+1)*pl], lo, c, b)
			arch.RowSumsInt8(k.rowSums[r*c:(r+1)*c], hi, c, b)
			arch.RowSumsInt8(k.rowSumLo[r*c:(r+1)*c], lo, c, b)
			continue
		}
		dst := k.rT8[r*bc : (r+1)*bc]
		src := y.Int8s()[r*bc : (r+1)*bc]
		if k.opts.AdjY {
			copy(dst, src)
		} else {
			transposeInto(dst, src, b, c)
		}
		pl := arch.PackedGemmInt8Len(c, b)
		arch.PackGemmInt8(k.packed8[r*pl:(r+1)*pl], dst, c, b)
		sums := k.rowSums[r*c : (r+1)*c]
		arch.RowSumsInt8(sums, dst, c, b)
		if k.path == bmmInt8 {
			// Σ (x − xzp)(y − yzp) = Σ x(y − yzp) − xzp·(Σy − B·yzp); the
			// GEMM subtracts yzp from y itself (wZero), the rest seeds it.
			for j, s := range sums {
				k.seed[r*c+j] = -k.xZP * (s - int32(b)*k.yZP)
			}
		}
	}
	k.loaded = true
}

// transposeInto writes the rows×cols matrix src transposed into dst
// (cols×rows).
func transposeInto[T any](dst, src []T, rows, cols int) {
	dst, src = dst[:rows*cols], src[:rows*cols]
	for i := 0; i < rows; i++ {
		row := src[i*cols : (i+1)*cols]
		for j, v := range row {
			dst[j*rows+i] = v
		}
	}
}

// matIndex returns the lhs, rhs and output matrix indices of output batch
// (b0, b1, b2): a batch dimension of 1 repeats.
func (k *BatchMatMul) matIndex(b0, b1, b2 int) (l, r, o int) {
	idx := func(d [3]int) int {
		i0, i1, i2 := b0, b1, b2
		if d[0] == 1 {
			i0 = 0
		}
		if d[1] == 1 {
			i1 = 0
		}
		if d[2] == 1 {
			i2 = 0
		}
		return (i0*d[1]+i1)*d[2] + i2
	}
	return idx(k.lDims), idx(k.rDims), (b0*k.oDims[1]+b1)*k.oDims[2] + b2
}

// Eval computes the products.
func (k *BatchMatMul) Eval(n *ops.Node) error {
	x, y, out := n.Input(0), n.Input(1), n.Output(0)
	if x == nil || y == nil || out == nil {
		return errors.New("BATCH_MATMUL: inputs or output missing at Eval")
	}
	if err := checkData(x, y, out); err != nil {
		return err
	}
	if k.a == 0 || k.c == 0 || k.oDims[0]*k.oDims[1]*k.oDims[2] == 0 {
		return nil
	}
	if k.b == 0 {
		return k.evalEmptyDepth(out)
	}
	if k.rTF == nil && k.rT8 == nil {
		return errors.New("BATCH_MATMUL: Eval before a successful Prepare")
	}
	if !k.rhsConst {
		k.loadRHS(y)
	}
	if k.path == bmmHybrid {
		return k.evalHybrid(n, x, out)
	}
	ab := k.a * k.b
	var lhsT []byte
	if k.opts.AdjX {
		size := ab * x.Type.Size()
		if k.path == bmmFloat || k.path == bmmInt8 || k.path == bmmInt8Int32 {
			size *= k.threads
		}
		var err error
		if lhsT, err = scratchBytes(n, k.lhsTID, size); err != nil {
			return err
		}
	}
	if k.path == bmmFloat || k.path == bmmInt8 || k.path == bmmInt8Int32 {
		k.run = bmmRun{x: x, out: out, lhsT: lhsT}
		mats := k.oDims[0] * k.oDims[1] * k.oDims[2]
		n.Parallel(mats*k.blocksPer, mats*k.a*k.b*k.c, k.unitsFn)
		k.run = bmmRun{}
		return nil
	}
	var hi, lo []int8
	var p [4][]int32
	if k.path == bmmInt16 || k.path == bmmInt16Int8 {
		var err error
		if hi, err = scratchInt8(n, k.aHiID, ab); err != nil {
			return err
		}
		if lo, err = scratchInt8(n, k.aLoID, ab); err != nil {
			return err
		}
		ids := []int{k.p0ID, k.p1ID, k.p2ID, k.p3ID}
		np := 2
		if k.path == bmmInt16 {
			np = 4
		}
		for i := 0; i < np; i++ {
			if p[i], err = scratchInt32(n, ids[i], k.outMatSize); err != nil {
				return err
			}
		}
	}
	// The int16 paths, on one thread (their scratch is one matrix's).
	for b0 := 0; b0 < k.oDims[0]; b0++ {
		for b1 := 0; b1 < k.oDims[1]; b1++ {
			for b2 := 0; b2 < k.oDims[2]; b2++ {
				li, ri, oi := k.matIndex(b0, b1, b2)
				a := x.Int16s()[li*ab : (li+1)*ab]
				if k.opts.AdjX {
					t := ops.View[int16](lhsT)[:ab]
					transposeInto(t, a, k.b, k.a)
					a = t
				}
				k.evalInt16(out.Int16s()[oi*k.outMatSize:(oi+1)*k.outMatSize], a, ri, hi, lo, p)
			}
		}
	}
	return nil
}

// units computes the units [lo, hi) of the float32 and int8 paths: unit
// u is row block u mod blocksPer of output matrix u / blocksPer.
func (k *BatchMatMul) units(worker, lo, hi int) {
	x, out := k.run.x, k.run.out
	ab, bc := k.a*k.b, k.b*k.c
	inf := float32(math.Inf(1))
	pl8 := arch.PackedGemmInt8Len(k.c, k.b)
	for u := lo; u < hi; u++ {
		mat, blk := u/k.blocksPer, u%k.blocksPer
		b0, b1, b2 := mat/(k.oDims[1]*k.oDims[2]), mat/k.oDims[2]%k.oDims[1], mat%k.oDims[2]
		li, ri, oi := k.matIndex(b0, b1, b2)
		r0 := blk * k.rowBlock
		m := min(k.rowBlock, k.a-r0)
		aRows := func(all int) (int, int) { return all + r0*k.b, all + (r0+m)*k.b }
		oLo, oHi := oi*k.outMatSize+r0*k.c, oi*k.outMatSize+(r0+m)*k.c
		switch k.path {
		case bmmFloat:
			var a []float32
			if k.opts.AdjX {
				t := ops.View[float32](k.run.lhsT)[worker*ab : (worker+1)*ab]
				transposeInto(t, x.Float32s()[li*ab:(li+1)*ab], k.b, k.a)
				a = t
			} else {
				aLo, aHi := aRows(li * ab)
				a = x.Float32s()[aLo:aHi]
			}
			dst := out.Float32s()[oLo:oHi]
			if k.matVec {
				clear(dst)
				arch.MatBatchVecMulAcc(dst, k.rTF[ri*bc:(ri+1)*bc], k.c, k.b, a, m)
				continue
			}
			pl := arch.PackedGemmF32Len(k.c, k.b)
			arch.GemmF32(dst, k.c, a, k.b, k.packedF[ri*pl:(ri+1)*pl], k.zeroF, m, k.c, k.b, -inf, inf)
		default: // bmmInt8, bmmInt8Int32
			var a []int8
			if k.opts.AdjX {
				t := ops.View[int8](k.run.lhsT)[worker*ab : (worker+1)*ab]
				transposeInto(t, x.Int8s()[li*ab:(li+1)*ab], k.b, k.a)
				a = t
			} else {
				aLo, aHi := aRows(li * ab)
				a = x.Int8s()[aLo:aHi]
			}
			packed := k.packed8[ri*pl8 : (ri+1)*pl8]
			if k.path == bmmInt8Int32 {
				arch.GemmInt8(out.Int32s()[oLo:oHi], k.c, a, k.b, packed, k.zeroSeed, m, k.c, k.b)
				continue
			}
			arch.GemmInt8RequantizeInt8(out.Int8s()[oLo:oHi], k.c, a, k.b, packed, k.seed[ri*k.c:(ri+1)*k.c], k.yZP, k.cq, m, k.c, k.b, k.outZP, -128, 127)
		}
	}
}

// evalInt16 computes one int16 product matrix into dst from the lhs
// matrix a (A×B) and rhs matrix ri. With x = 256·xh + xl + 128 (xh, xl
// int8; splitInt16) and likewise y:
//
//	int16 × int8:  Σ x·y = 256·Σ xh·y + Σ xl·y + 128·Σ y
//	int16 × int16: Σ x·y = 65536·Σ xh·yh + 256·(Σ xh·yl + Σ xl·yh) + Σ xl·yl
//	                      + 128·(Σ x + Σ y) − 16384·B
//
// each Σ of int8 products exact in int32 (B ≤ 2^16) and the whole in
// int64, then TFLite's 64-bit MultiplyByQuantizedMultiplier.
func (k *BatchMatMul) evalInt16(dst, a []int16, ri int, hi, lo []int8, p [4][]int32) {
	ab := k.a * k.b
	splitInt16(hi[:ab], lo[:ab], a)
	pl := arch.PackedGemmInt8Len(k.c, k.b)
	w := k.packed8[ri*pl : (ri+1)*pl]
	sums := k.rowSums[ri*k.c : (ri+1)*k.c]
	if k.path == bmmInt16Int8 {
		arch.GemmInt8(p[0], k.c, hi, k.b, w, k.zeroSeed, k.a, k.c, k.b)
		arch.GemmInt8(p[1], k.c, lo, k.b, w, k.zeroSeed, k.a, k.c, k.b)
		for i := 0; i < k.a; i++ {
			ph, plo := p[0][i*k.c:(i+1)*k.c], p[1][i*k.c:(i+1)*k.c]
			d := dst[i*k.c : (i+1)*k.c]
			for j := range d {
				v := int64(ph[j])<<8 + int64(plo[j]) + 128*int64(sums[j])
				d[j] = int16(min(max(ops.MultiplyByQuantizedMultiplier64(v, k.mult, k.shift), math.MinInt16), math.MaxInt16))
			}
		}
		return
	}
	wl := k.packedLo[ri*pl : (ri+1)*pl]
	arch.GemmInt8(p[0], k.c, hi, k.b, w, k.zeroSeed, k.a, k.c, k.b)
	arch.GemmInt8(p[1], k.c, hi, k.b, wl, k.zeroSeed, k.a, k.c, k.b)
	arch.GemmInt8(p[2], k.c, lo, k.b, w, k.zeroSeed, k.a, k.c, k.b)
	arch.GemmInt8(p[3], k.c, lo, k.b, wl, k.zeroSeed, k.a, k.c, k.b)
	colSum := k.colSum16[ri*k.c : (ri+1)*k.c]
	cst := 16384 * int64(k.b)
	for i := 0; i < k.a; i++ {
		var rs int64
		for _, v := range a[i*k.b : (i+1)*k.b] {
			rs += int64(v)
		}
		rowTerm := 128*rs - cst
		hh, hl, lh, ll := p[0][i*k.c:(i+1)*k.c], p[1][i*k.c:(i+1)*k.c], p[2][i*k.c:(i+1)*k.c], p[3][i*k.c:(i+1)*k.c]
		d := dst[i*k.c : (i+1)*k.c]
		for j := range d {
			v := int64(hh[j])<<16 + (int64(hl[j])+int64(lh[j]))<<8 + int64(ll[j]) + rowTerm + 128*colSum[j]
			d[j] = int16(min(max(ops.MultiplyByQuantizedMultiplier64(v, k.mult, k.shift), math.MinInt16), math.MaxInt16))
		}
	}
}

// evalEmptyDepth writes the outputs of products over zero terms: float
// zeros, and for the requantising paths what a sum of 0 requantises to.
func (k *BatchMatMul) evalEmptyDepth(out *ops.Tensor) error {
	switch k.path {
	case bmmInt8:
		v := int8(min(max(ops.MultiplyByQuantizedMultiplier(0, k.mult, k.shift)+k.outZP, -128), 127))
		fillValue(out.Int8s()[:out.NumElements()], v)
	case bmmInt16, bmmInt16Int8:
		v := int16(min(max(ops.MultiplyByQuantizedMultiplier64(0, k.mult, k.shift), math.MinInt16), math.MaxInt16))
		fillValue(out.Int16s()[:out.NumElements()], v)
	default:
		clear(out.Data[:out.Bytes()])
	}
	return nil
}

// evalHybrid is the float × int8 path: TFLite's EvalHybrid and the hybrid
// reference_ops::BatchMatMul.
func (k *BatchMatMul) evalHybrid(n *ops.Node, x, out *ops.Tensor) error {
	ab := k.a * k.b
	rows := k.nL * k.a
	src := x.Float32s()[:k.nL*ab]
	if k.opts.AdjX {
		t, err := scratchFloat32(n, k.lhsTID, k.nL*ab)
		if err != nil {
			return err
		}
		for l := 0; l < k.nL; l++ {
			transposeInto(t[l*ab:(l+1)*ab], src[l*ab:(l+1)*ab], k.b, k.a)
		}
		src = t
	}
	qx, err := scratchInt8(n, k.qID, k.nL*ab)
	if err != nil {
		return err
	}
	sf, err := scratchFloat32(n, k.sfID, rows)
	if err != nil {
		return err
	}
	off, err := scratchInt32(n, k.offID, rows)
	if err != nil {
		return err
	}
	prod, err := scratchInt32(n, k.p0ID, k.outMatSize)
	if err != nil {
		return err
	}
	// BatchQuantizeFloats: every row of B values on its own.
	for r := 0; r < rows; r++ {
		row, qr := src[r*k.b:(r+1)*k.b], qx[r*k.b:(r+1)*k.b]
		if k.opts.AsymmetricQuantizeInputs {
			sf[r], off[r] = ops.AsymmetricQuantizeFloats(row, qr)
		} else {
			sf[r], off[r] = ops.SymmetricQuantizeFloats(row, qr), 0
		}
		if k.chanScale == nil {
			sf[r] *= k.yScale
		}
	}
	pl := arch.PackedGemmInt8Len(k.c, k.b)
	o := out.Float32s()
	// TFLite's indexing of the row scales and offsets (of x, by the sum
	// of the batch indices along the dimensions where x is not 1) and of
	// the rhs row sums (likewise, along y's dimensions).
	step := func(d [3]int, i, idx int) int {
		if d[i] == 1 {
			return 0
		}
		return idx
	}
	for b0 := 0; b0 < k.oDims[0]; b0++ {
		for b1 := 0; b1 < k.oDims[1]; b1++ {
			for b2 := 0; b2 < k.oDims[2]; b2++ {
				li, ri, oi := k.matIndex(b0, b1, b2)
				arch.GemmInt8(prod, k.c, qx[li*ab:(li+1)*ab], k.b, k.packed8[ri*pl:(ri+1)*pl], k.zeroSeed, k.a, k.c, k.b)
				sIdx := (step(k.lDims, 0, b0) + step(k.lDims, 1, b1) + step(k.lDims, 2, b2)) * k.a
				wIdx := (step(k.rDims, 1, b1) + step(k.rDims, 2, b2)) * k.c
				sums := k.rowSums[wIdx : wIdx+k.c]
				dst := o[oi*k.outMatSize : (oi+1)*k.outMatSize]
				for j := 0; j < k.a; j++ {
					scale, offset := sf[sIdx+j], float32(off[sIdx+j])
					pr, d := prod[j*k.c:(j+1)*k.c], dst[j*k.c:(j+1)*k.c]
					for i, total := range pr {
						// total −= row_sum·offset in float32, truncated
						// back to int32; then scale·total.
						t := f32ToInt32(float32(total) - float32(float32(sums[i])*offset))
						s := scale
						if k.chanScale != nil {
							s = float32(scale * k.chanScale[i])
						}
						d[i] = float32(s * float32(t))
					}
				}
			}
		}
	}
	return nil
}
