package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Blockwise-quantised int4 weights of FULLY_CONNECTED (TFLite's
// BlockwiseQuantization details: one float16 scale per run of block_size
// values of a weight row, held in another tensor). TFLite's
// fully_connected.cc runs them in EvalBlockwise4Bit, only for float32
// input with int4 weights and only where its 4-bit hybrid kernel would
// apply (constant weights, units ≥ 4, even input_size ≥ 32; elsewhere it
// reads the tensor as affine-quantised, which it is not, so tflrun
// refuses those shapes). Its arithmetic, followed here:
//   - each batch row is quantised asymmetrically to int8 (scale s, zero
//     point zp; ops.AsymmetricQuantizeFloats);
//   - per output unit and block, the int32 sums Σ q·w and Σ w over the
//     block (exact: every partial sum stays below 2^24, where TFLite's
//     float-then-truncate accumulation is exact too);
//   - in float32, each step rounded as written: out = Σ_blocks
//     (float(Σq·w)·scale), kfsum = Σ_blocks scale·float(Σw), out −=
//     zp·kfsum, out ·= s, out += bias;
//   - no fused activation: TFLite's blockwise path applies none.

// maxBlockwiseBlock bounds the block size so that the partial sums (at most
// 128·8 per value) stay exact in float32, as TFLite's float accumulation
// of them needs to be for the integer sums here to equal it.
const maxBlockwiseBlock = 1 << 24 / (128 * 8)

// prepareBlockwise checks blockwise int4 weights and converts their
// scales; it replaces prepareQuant for them.
func (k *FullyConnected) prepareBlockwise(n *ops.Node, in, w, bias *ops.Tensor) error {
	bq := w.Blockwise
	if k.path != fcHybrid || w.Type != ops.Int4 {
		return fmt.Errorf("%s: blockwise quantization of %s weights with %s input; TensorFlow Lite runs it for int4 weights with float32 input only", fcWeights, w.Type, in.Type)
	}
	if w.Kind != ops.ConstTensor || !(k.batch > 0 && k.cols%2 == 0 && k.units >= fcInt4FilterWidth && k.cols >= fcInt4FilterDepth) {
		return fmt.Errorf("%s: blockwise int4 weights [%d, %d] (batch %d): TensorFlow Lite's blockwise kernel needs constant weights, units ≥ %d and an even input_size ≥ %d (it misreads other shapes as affine-quantised)", fcWeights, k.units, k.cols, k.batch, fcInt4FilterWidth, fcInt4FilterDepth)
	}
	if bq.BlockSize <= 0 || k.cols%bq.BlockSize != 0 || bq.BlockSize > maxBlockwiseBlock {
		return fmt.Errorf("%s: block size %d must divide input_size %d and be at most %d", fcWeights, bq.BlockSize, k.cols, maxBlockwiseBlock)
	}
	if bias != nil && bias.Type != ops.Float32 {
		return fmt.Errorf("%s: type %s, need float32", fcBias, bias.Type)
	}
	blocks := k.cols / bq.BlockSize
	if len(bq.HalfScales) != k.units*blocks {
		return fmt.Errorf("%s: %d blockwise scales, need %d (units %d × %d blocks)", fcWeights, len(bq.HalfScales), k.units*blocks, k.units, blocks)
	}
	if len(w.Data) < k.units*k.cols/2 {
		return fmt.Errorf("%s: %d bytes of packed int4 weights, need %d", fcWeights, len(w.Data), k.units*k.cols/2)
	}
	bs := bq.BlockSize
	k.blockSize = bs
	// The weights unpacked to int8 block by block (block b of every unit,
	// [units, bs], then block b+1), so that each block is one
	// arch.MatVecMulAccInt8 over all units; the scales transposed to
	// [blocks, units] for the vector output step; and each unit's
	// kfsum = Σ_blocks scale·float(Σw), which depends on the weights
	// alone, in TFLite's order.
	var err error
	if k.blockW, err = ops.Alloc[int8](n, k.units*k.cols, "unpacked blockwise int4 weights"); err != nil {
		return err
	}
	if k.blockScales, err = ops.Alloc[float32](n, len(bq.HalfScales), "blockwise scales"); err != nil {
		return err
	}
	if k.blockKfsum, err = ops.Alloc[float32](n, k.units, "blockwise weight sums"); err != nil {
		return err
	}
	if k.zeroCorr, err = ops.Alloc[int32](n, k.units, "blockwise zero corrections"); err != nil {
		return err
	}
	for u := range k.units {
		wr := w.Data[u*k.cols/2 : (u+1)*k.cols/2]
		var kfsum float32
		for blk := range blocks {
			scale := halfToFloat32(bq.HalfScales[u*blocks+blk])
			k.blockScales[blk*k.units+u] = scale
			dst := k.blockW[(blk*k.units+u)*bs : (blk*k.units+u+1)*bs]
			var wsum int32
			for i := range dst {
				// Element kk of the row: the low nibble of byte kk/2
				// for even kk, the high one for odd, sign-extended.
				kk := blk*bs + i
				v := int8(wr[kk/2]<<(4*(1-kk%2))) >> 4
				dst[i] = v
				wsum += int32(v)
			}
			kfsum += float32(scale * float32(wsum))
		}
		k.blockKfsum[u] = kfsum
	}
	k.qScratch = n.RequestScratch(k.batch * k.cols)
	k.accScratch = n.RequestScratch(4 * k.units)
	return nil
}

// evalBlockwise runs the blockwise int4 product (see above): per block,
// the integer sums of every unit (arch.MatVecMulAccInt8 over the block's
// unpacked weights), then acc += float(sum)·scale for every unit
// (arch.DequantRowsF32 with acc as the addend, block after block as
// TFLite's loop over a unit's blocks), then the zero-point term, the
// input scale and the bias in TFLite's order.
func (k *FullyConnected) evalBlockwise(n *ops.Node, in, w, bias, out *ops.Tensor) error {
	q, err := scratchInt8(n, k.qScratch, k.batch*k.cols)
	if err != nil {
		return err
	}
	sums, err := scratchInt32(n, k.accScratch, k.units)
	if err != nil {
		return err
	}
	var bv []float32
	if bias != nil {
		bv = bias.Float32s()[:k.units]
	}
	x, o := in.Float32s(), out.Float32s()
	bs, blocks := k.blockSize, k.cols/k.blockSize
	for b := 0; b < k.batch; b++ {
		qr := q[b*k.cols : (b+1)*k.cols]
		sf, zp := ops.AsymmetricQuantizeFloats(x[b*k.cols:(b+1)*k.cols], qr)
		row := o[b*k.units : (b+1)*k.units]
		clear(row)
		for blk := range blocks {
			clear(sums)
			arch.MatVecMulAccInt8(sums, k.blockW[blk*k.units*bs:(blk+1)*k.units*bs], k.units, bs, qr[blk*bs:(blk+1)*bs])
			// row = float(sum)·scale + row: the first block adds to
			// +0 as TFLite's acc starts there.
			arch.DequantRowsF32(row, sums, 1, k.units, k.zeroCorr, k.blockScales[blk*k.units:(blk+1)*k.units], row)
		}
		fz := float32(zp)
		for u, acc := range row {
			// Explicit conversions: each product rounded on its own, no
			// fused multiply-add.
			acc -= float32(fz * k.blockKfsum[u])
			acc *= sf
			if bv != nil {
				acc += bv[u]
			}
			row[u] = acc
		}
	}
	return nil
}
