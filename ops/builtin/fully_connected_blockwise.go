package builtin

import (
	"errors"
	"fmt"

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
	k.blockScales = make([]float32, len(bq.HalfScales))
	for i, h := range bq.HalfScales {
		k.blockScales[i] = halfToFloat32(h)
	}
	k.blockSize = bq.BlockSize
	k.qScratch = n.RequestScratch(k.batch * k.cols)
	return nil
}

// evalBlockwise runs the blockwise int4 product (see above).
func (k *FullyConnected) evalBlockwise(n *ops.Node, in, w, bias, out *ops.Tensor) error {
	q, err := scratchInt8(n, k.qScratch, k.batch*k.cols)
	if err != nil {
		return err
	}
	if len(w.Data) < k.units*k.cols/2 {
		return errors.New("FULLY_CONNECTED: blockwise int4 weights shorter than at Prepare")
	}
	var bv []float32
	if bias != nil {
		bv = bias.Float32s()[:k.units]
	}
	x, o := in.Float32s(), out.Float32s()
	packed := w.Data
	bs, blocks := k.blockSize, k.cols/k.blockSize
	for b := 0; b < k.batch; b++ {
		qr := q[b*k.cols : (b+1)*k.cols]
		sf, zp := ops.AsymmetricQuantizeFloats(x[b*k.cols:(b+1)*k.cols], qr)
		row := o[b*k.units : (b+1)*k.units]
		for u := range row {
			wr := packed[u*k.cols/2 : (u+1)*k.cols/2]
			scales := k.blockScales[u*blocks : (u+1)*blocks]
			var acc, kfsum float32
			for blk, scale := range scales {
				var sum, wsum int32
				for kk := blk * bs; kk < (blk+1)*bs; kk++ {
					// Element kk of the row: the low nibble of byte kk/2
					// for even kk, the high one for odd, sign-extended.
					v := int32(int8(wr[kk/2]<<(4*(1-kk%2))) >> 4)
					sum += int32(qr[kk]) * v
					wsum += v
				}
				// Explicit conversions: each product rounded on its own,
				// no fused multiply-add.
				acc += float32(float32(sum) * scale)
				kfsum += float32(scale * float32(wsum))
			}
			acc -= float32(float32(zp) * kfsum)
			acc *= sf
			if bv != nil {
				acc += bv[u]
			}
			row[u] = acc
		}
	}
	return nil
}
