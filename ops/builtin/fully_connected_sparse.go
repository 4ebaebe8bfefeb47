package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"

	"github.com/tflrun/tflrun/ops"
)

// Sparse weights (FULLY_CONNECTED version 8: a constant weights tensor
// stored with SparsityParameters) follow TFLite's sparse kernels, which
// fully_connected.cc picks on x86 (kGenericOptimized) as:
//
//   - float32: "random sparse" (two levels: rows dense, columns CSR;
//     optimized_ops::FullyConnectedSparseWeight) or 1×4 blocks (three
//     levels, the last a dense block of 4 columns;
//     FullyConnectedSparseWeight1x4, the portable
//     SparseMatrixBatchVectorMultiplyAccumulate1x4). Both sum the stored
//     products of a row one after another in float32 from 0, in storage
//     order (a block's 4 columns left to right), then add the bias and
//     clamp; this kernel sums in that order, one multiply and one add per
//     product (no fused multiply-add), so only the stored values enter
//     the sum (an explicitly stored zero does; a column not stored does
//     not, even facing an Inf or NaN input);
//   - int8 input, weights and output: 1×16 blocks only, symmetric weights
//     (zero point 0), per-tensor or per-channel scales
//     (FullyConnectedSparseWeight1x16, portable
//     SparseMatrixBatchVectorMultiplyAccumulate1x16): acc = Σ w·(x - xzp)
//     + bias in wrapping int32, then TFLite's MultiplyByQuantizedMultiplier
//     (ties away from zero: not the ruy rounding of the dense int8 path),
//     the output zero point and the activation clamp. Integer sums do not
//     depend on their order and the columns not stored are zeros, so
//     tflrun runs its dense int8 product on the densified weights (15×
//     faster than a scalar loop over the stored blocks at 80% sparsity)
//     and only the rounding differs from the dense path;
//   - hybrid (float32 input and output, int8 weights): 1×16 blocks only
//     (EvalSparseHybridImpl with its uint8 "ledger" of block counts and
//     block columns, so at most 255 blocks in a row and block columns
//     below 256): the output starts as the bias; unless the whole input
//     is zero, each batch row is quantised as on the dense path, with
//     asymmetric inputs out -= (scale·zero_point)[·channel_scale]·row_sum
//     first, then out += float(Σ w·q)·(scale[·channel_scale]); then the
//     fused activation.
//
// Anything else TFLite refuses (or would misread) is refused at Prepare:
// another block size or type, a first level that is not dense or a
// second that is not CSR, a traversal order other than rows then columns
// (then the block), a block over the rows, asymmetric int8 weights,
// sparse uint8, int16 or shuffled weights.
//
// Memory: the loader has already expanded the weights to their dense
// form (ops.Tensor.Sparsity keeps the structure), so the kernel reads the
// stored values out of the dense copy: the model's sparse buffer costs
// units·input_size elements in memory, not the stored count.

// fcSparse is the block structure of sparse weights: row r stores the
// runs of block columns starting at starts[segs[r]:segs[r+1]].
type fcSparse struct {
	block  int
	segs   []int
	starts []int
	stored int // stored values (the work of one batch row)
	// One Eval's operands, read by the row functions (ops.Node.Parallel
	// over the batch·units output elements, each written by one unit, so
	// every thread count computes the same values).
	xf, mf, of, bf []float32
	x8, m8         []int8
	sf             []float32
	rowsFn         func(worker, lo, hi int)
}

// prepareSparse validates sparse weights for the chosen path and records
// their structure.
func (k *FullyConnected) prepareSparse(n *ops.Node, in, w, out *ops.Tensor) error {
	sp := w.Sparsity
	lv := sp.Levels
	if len(lv) != 2 && len(lv) != 3 {
		return fmt.Errorf("%s: sparsity with %d levels; TFLite's sparse kernels take 2 (random) or 3 (1xN blocks)", fcWeights, len(lv))
	}
	if lv[0].Compressed || !lv[1].Compressed {
		return fmt.Errorf("%s: unsupported sparse format: the first level must be dense and the second CSR", fcWeights)
	}
	block := 1
	if len(lv) == 3 {
		if len(sp.TraversalOrder) != 3 || sp.TraversalOrder[0] != 0 || sp.TraversalOrder[1] != 1 || sp.TraversalOrder[2] != 2 ||
			len(sp.BlockMap) != 1 || sp.BlockMap[0] != 1 || lv[2].Compressed {
			return fmt.Errorf("%s: sparsity traversal %v with block map %v; TFLite's sparse kernels read rows, then column blocks, then a dense 1xN block", fcWeights, sp.TraversalOrder, sp.BlockMap)
		}
		block = lv[2].DenseSize
	} else if len(sp.TraversalOrder) != 2 || sp.TraversalOrder[0] != 0 || sp.TraversalOrder[1] != 1 || len(sp.BlockMap) != 0 {
		return fmt.Errorf("%s: sparsity traversal %v with block map %v; TFLite's sparse kernels read rows, then columns", fcWeights, sp.TraversalOrder, sp.BlockMap)
	}
	// (A CSR level's dense_size is not required by the format: the
	// column blocks are cols/block.)
	if lv[0].DenseSize != k.units || block <= 0 || k.cols%block != 0 || len(lv[1].Segments) != k.units+1 {
		return fmt.Errorf("%s: sparsity (%d rows, %d segments, column blocks of %d) does not describe the shape %v", fcWeights, lv[0].DenseSize, len(lv[1].Segments)-1, block, w.Shape)
	}
	colBlocks := k.cols / block
	switch k.path {
	case fcFloat:
		if block != 1 && block != 4 {
			return fmt.Errorf("%s: float sparse weights with 1x%d blocks; TFLite's kernel takes random sparsity or 1x4 blocks", fcWeights, block)
		}
	case fcInt8:
		if w.Type != ops.Int8 {
			return fmt.Errorf("%s: sparse %s weights are not supported (int8 only)", fcWeights, w.Type)
		}
		for _, z := range w.Quant.ZeroPoint {
			if z != 0 {
				return fmt.Errorf("%s: zero point %d; quantized sparse weights must be symmetric", fcWeights, z)
			}
		}
		if block != 16 {
			return fmt.Errorf("%s: int8 sparse weights need 1x16 blocks, have %s", fcWeights, blockName(block))
		}
	case fcHybrid:
		if w.Type != ops.Int8 {
			return fmt.Errorf("%s: sparse %s weights are not supported with float input (int8 only)", fcWeights, w.Type)
		}
		if block != 16 {
			return fmt.Errorf("%s: hybrid sparse weights need 1x16 blocks, have %s", fcWeights, blockName(block))
		}
		for r := 0; r < k.units; r++ {
			if c := lv[1].Segments[r+1] - lv[1].Segments[r]; c > 255 {
				return fmt.Errorf("%s: row %d stores %d blocks; TFLite's hybrid sparse kernel counts them in a byte (at most 255)", fcWeights, r, c)
			}
		}
		for _, i := range lv[1].Indices {
			if i > 255 {
				return fmt.Errorf("%s: block column %d; TFLite's hybrid sparse kernel stores block columns in a byte (at most 255)", fcWeights, i)
			}
		}
		k.qScratch = n.RequestScratch(k.batch * k.cols)
		k.sfScratch = n.RequestScratch(4 * k.batch)
		k.offScratch = n.RequestScratch(4 * k.batch)
	default:
		return fmt.Errorf("%s: sparse weights with %s input are not supported (TFLite's sparse kernels take float32 or int8)", fcWeights, in.Type)
	}
	if len(w.Data) < w.Bytes() {
		return fmt.Errorf("%s: sparse weights without data", fcWeights)
	}
	s := &fcSparse{block: block, segs: lv[1].Segments, starts: make([]int, len(lv[1].Indices))}
	for i, c := range lv[1].Indices {
		if c < 0 || c >= colBlocks {
			return fmt.Errorf("%s: sparse column index %d out of range [0, %d)", fcWeights, c, colBlocks)
		}
		s.starts[i] = c * block
	}
	for r := 0; r < k.units; r++ {
		if s.segs[r] < 0 || s.segs[r] > s.segs[r+1] || s.segs[r+1] > len(s.starts) {
			return fmt.Errorf("%s: sparse segments %d..%d of row %d out of range", fcWeights, s.segs[r], s.segs[r+1], r)
		}
	}
	s.stored = len(s.starts) * block
	if k.path == fcInt8 {
		// Integer sums do not depend on their order and the columns not
		// stored are zeros: the dense int8 product (with its row sums
		// for the input zero point) gives TFLite's sparse sums exactly,
		// and is rescaled with TFLite's rounding.
		k.roundAway = true
		return nil
	}
	k.sp = s
	if k.path == fcHybrid {
		// The sums of the rows (TFLite sums the stored blocks; the
		// others are zeros).
		k.rowSums = make([]int32, k.units)
		arch.RowSumsInt8(k.rowSums, w.Int8s(), k.units, k.cols)
	}
	switch k.path {
	case fcFloat:
		s.rowsFn = k.sparseFloatRows
	case fcHybrid:
		s.rowsFn = k.sparseHybridRows
	}
	return nil
}

func blockName(b int) string {
	if b == 1 {
		return "random sparsity"
	}
	return fmt.Sprintf("1x%d blocks", b)
}

// evalSparse runs the sparse kernel of the path.
func (k *FullyConnected) evalSparse(n *ops.Node, in, w, bias, out *ops.Tensor) error {
	switch k.path {
	case fcFloat:
		k.evalSparseFloat(n, in, w, bias, out)
	case fcHybrid:
		return k.evalSparseHybrid(n, in, w, bias, out)
	}
	return nil
}

func (k *FullyConnected) evalSparseFloat(n *ops.Node, in, w, bias, out *ops.Tensor) {
	s := k.sp
	s.xf, s.mf, s.of = in.Float32s(), w.Float32s(), out.Float32s()
	if bias != nil {
		s.bf = bias.Float32s()[:k.units]
	}
	n.Parallel(k.batch*k.units, k.batch*s.stored, s.rowsFn)
	s.xf, s.mf, s.of, s.bf = nil, nil, nil, nil
}

// sparseFloatRows computes the output elements [lo, hi) (batch row
// i/units, output row i%units).
func (k *FullyConnected) sparseFloatRows(worker, lo, hi int) {
	s, units, cols, bs := k.sp, k.units, k.cols, k.sp.block
	for i := lo; i < hi; i++ {
		b, r := i/units, i%units
		xr, wr := s.xf[b*cols:b*cols+cols], s.mf[r*cols:r*cols+cols]
		var sum float32
		for _, c0 := range s.starts[s.segs[r]:s.segs[r+1]] {
			for c := c0; c < c0+bs; c++ {
				sum += float32(wr[c] * xr[c])
			}
		}
		var bv float32
		if s.bf != nil {
			bv = s.bf[r]
		}
		s.of[i] = clampF32(sum+bv, k.fActMin, k.fActMax)
	}
}

func (k *FullyConnected) evalSparseHybrid(n *ops.Node, in, w, bias, out *ops.Tensor) error {
	s, units, cols := k.sp, k.units, k.cols
	x, o := in.Float32s(), out.Float32s()
	total := k.batch * units
	if bias != nil {
		bv := bias.Float32s()[:units]
		for b := 0; b < k.batch; b++ {
			copy(o[b*units:b*units+units], bv)
		}
	} else {
		clear(o[:total])
	}
	allZero := true
	for _, v := range x[:k.batch*cols] {
		if v != 0 {
			allZero = false
			break
		}
	}
	if !allZero {
		q, err := scratchInt8(n, k.qScratch, k.batch*cols)
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
		asym := k.opts.AsymmetricQuantizeInputs
		chanScale := quantizeHybridRows(x, q, sf, offs, k.batch, cols, asym, w)
		if asym {
			for b := 0; b < k.batch; b++ {
				zp := sf[b] * float32(offs[b])
				for r := 0; r < units; r++ {
					sc := zp
					if chanScale != nil {
						sc *= chanScale[r]
					}
					o[b*units+r] -= float32(sc * float32(k.rowSums[r]))
				}
			}
		}
		s.x8, s.m8, s.of, s.sf = q, w.Int8s(), o, sf
		if chanScale != nil {
			s.bf = chanScale
		}
		n.Parallel(total, k.batch*s.stored, s.rowsFn)
		s.x8, s.m8, s.of, s.sf, s.bf = nil, nil, nil, nil, nil
	}
	applyActivationVector(o[:total], k.opts.Activation)
	return nil
}

// sparseHybridRows adds the products of the quantised input to the output
// elements [lo, hi); s.bf holds the per-channel scales (nil per-tensor).
func (k *FullyConnected) sparseHybridRows(worker, lo, hi int) {
	s, units, cols := k.sp, k.units, k.cols
	for i := lo; i < hi; i++ {
		b, r := i/units, i%units
		qr, wr := s.x8[b*cols:b*cols+cols], s.m8[r*cols:r*cols+cols]
		dot := arch.DotInt8(wr, qr) // = the stored blocks' sum (the rest are zeros)
		scale := s.sf[b]
		if s.bf != nil {
			scale *= s.bf[r]
		}
		s.of[i] += float32(float32(dot) * scale)
	}
}
