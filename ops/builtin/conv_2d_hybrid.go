package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The hybrid path of CONV_2D: float32 activations, int8 (or uint8, read as
// int8) filter. It follows
// TFLite's conv.cc EvalHybrid / EvalHybridPerChannel with the optimised
// HybridConv / HybridConvPerChannel:
//   - one filter scale: each batch image is quantised symmetrically
//     (scale max|x|/127), patches are built with zero padding, and output =
//     float(Σ w·q)·(input_scale·filter_scale) + bias, clamped;
//   - per-channel scales that differ: each batch image is quantised
//     asymmetrically (TFLite's AsymmetricQuantizeFloats), patches are padded
//     with that zero point, and output = float(Σ w·q - zp·Σw)·
//     (filter_scale[c]·input_scale) + bias, clamped.
//
// Where the CPU has an int8 GEMM kernel (arch.GemmPreferred) the integer
// sums of a tile of pixels come from one arch.GemmInt8 over the filter
// packed at Prepare; otherwise from one matrix × vector product per pixel.
// Both are exact int32 sums, so the outputs are the same bits.

// prepareHybrid checks the filter quantisation and picks the variant.
func (k *Conv2D) prepareHybrid(filter *ops.Tensor) error {
	fq := filter.Quant
	if fq == nil || len(fq.Scale) == 0 {
		return errors.New("input 1 (filter): int8 filter of a hybrid convolution has no quantization parameters")
	}
	for i, s := range fq.Scale {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return fmt.Errorf("input 1 (filter): scale %d is %g, must be finite and > 0", i, s)
		}
	}
	k.filterScale = fq.Scale[0]
	if filter.Type == ops.Uint8 {
		// TFLite's EvalHybrid, with the first scale (is_hybrid_per_channel
		// is only ever set for int8 and int4 filters).
		return nil
	}
	for _, s := range fq.Scale[1:] {
		if s != k.filterScale {
			k.hybridPerChannel = true
			break
		}
	}
	if k.hybridPerChannel {
		if qd := fq.QuantizedDimension; qd < 0 || qd >= filter.Rank() || filter.Shape[qd] != len(fq.Scale) || len(fq.Scale) != k.outC {
			return fmt.Errorf("input 1 (filter): %d per-channel scales along dimension %d of shape %v, need one per output channel", len(fq.Scale), fq.QuantizedDimension, filter.Shape)
		}
	}
	return nil
}

// evalHybrid quantises the input and runs the integer product.
func (k *Conv2D) evalHybrid(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	acc, err := scratchInt32(n, k.accID, k.outC)
	if err != nil {
		return err
	}
	q, err := scratchInt8(n, k.qID, in.NumElements())
	if err != nil {
		return err
	}
	sf, err := scratchFloat32(n, k.sfID, k.batches)
	if err != nil {
		return err
	}
	offs, err := scratchInt32(n, k.offID, k.batches)
	if err != nil {
		return err
	}
	cs, err := scratchFloat32(n, k.csID, k.outC)
	if err != nil {
		return err
	}
	corr, err := scratchInt32(n, k.corrID, k.outC)
	if err != nil {
		return err
	}
	var col []int8
	if !k.direct {
		if col, err = scratchInt8(n, k.colID, k.threads*k.colStride); err != nil {
			return err
		}
	}
	// An int8 filter, or a uint8 one whose bytes TFLite reads as int8.
	w := ops.View[int8](filter.Data)[:filter.NumElements()]
	var accTile []int32
	packed := k.packed8
	if !k.matVec {
		if accTile, err = scratchInt32(n, k.accTileID, k.threads*k.accStride); err != nil {
			return err
		}
		if packed == nil {
			if packed, err = scratchInt8(n, k.pack8ID, arch.PackedGemmInt8Len(k.outC, k.k)); err != nil {
				return err
			}
			arch.PackGemmInt8(packed, w, k.outC, k.k)
		}
	}
	if k.hybridPerChannel && (!k.rowSumsOK || filter.Kind != ops.ConstTensor) {
		arch.RowSumsInt8(k.rowSums, w, k.outC, k.k)
		k.rowSumsOK = true
	}
	var b []float32
	if bias != nil {
		b = bias.Float32s()[:k.outC]
	}
	x, o := in.Float32s(), out.Float32s()
	inImage := k.col.h.in * k.col.inRowStride
	chanScale := filter.Quant.Scale
	h := &k.hyb
	*h = hybridRun{w: w, packed: packed, col: col, accTile: accTile, acc: acc, corr: corr, cs: cs, bias: b, out: o}
	for batch := 0; batch < k.batches; batch++ {
		xb, qb := x[batch*inImage:(batch+1)*inImage], q[batch*inImage:(batch+1)*inImage]
		if k.hybridPerChannel {
			sf[batch], offs[batch] = ops.AsymmetricQuantizeFloats(xb, qb)
		} else {
			sf[batch] = ops.SymmetricQuantizeFloats(xb, qb) * k.filterScale
			offs[batch] = 0
		}
		// The image's per-channel zero-point correction and output scale,
		// the same products the per-output formula takes.
		for c := range cs {
			if k.hybridPerChannel {
				corr[c] = k.rowSums[c] * offs[batch]
				cs[c] = chanScale[c] * sf[batch]
			} else {
				corr[c], cs[c] = 0, sf[batch]
			}
		}
		h.batch, h.qb, h.zp = batch, qb, int8(offs[batch])
		if k.matVec {
			// One shared accumulator row: on the calling goroutine.
			k.hybridTiles(0, 0, k.tilesPer)
			continue
		}
		// The image's tiles are independent: split over the threads,
		// each with its own patches and sums (the same bits for any
		// split).
		n.Parallel(k.tilesPer, k.pixels*k.outC*k.k, k.hybridFn)
	}
	*h = hybridRun{}
	return nil
}

// hybridRun is what the hybrid tiles read during one Eval (held in the
// kernel, so that handing the tiles to the threads allocates nothing).
type hybridRun struct {
	w, packed, col, qb []int8
	accTile, acc, corr []int32
	cs, bias, out      []float32
	batch              int
	zp                 int8
}

// hybridTiles computes the pixel tiles [lo, hi) of the current image
// (k.hyb) with worker's patches and sums.
func (k *Conv2D) hybridTiles(worker, lo, hi int) {
	h := &k.hyb
	for t := lo; t < hi; t++ {
		p0 := t * k.tile
		cnt := min(k.tile, k.pixels-p0)
		var src []int8
		if k.direct {
			src = h.qb[p0*k.k : (p0+cnt)*k.k]
		} else {
			col := h.col[worker*k.colStride : worker*k.colStride+k.tile*k.k]
			im2colFill(&k.col, col, h.qb, p0, cnt, h.zp)
			src = col[:cnt*k.k]
		}
		rows := h.out[(h.batch*k.pixels+p0)*k.outC:][:cnt*k.outC]
		if !k.matVec {
			accTile := h.accTile[worker*k.accStride : worker*k.accStride+k.tile*k.outC]
			// k.seed is all zeros on the hybrid path.
			arch.GemmInt8(accTile, k.outC, src, k.k, h.packed, k.seed, cnt, k.outC, k.k)
			// float(Σ − zp·Σw)·scale + bias, each step rounded on its own
			// (no fused multiply-add, as TFLite), then the activation's
			// clamp.
			arch.DequantRowsF32(rows, accTile, cnt, k.outC, h.corr, h.cs, h.bias)
		} else {
			for i := 0; i < cnt; i++ {
				clear(h.acc)
				arch.MatVecMulAccInt8(h.acc, h.w, k.outC, k.k, src[i*k.k:(i+1)*k.k])
				arch.DequantRowsF32(rows[i*k.outC:(i+1)*k.outC], h.acc, 1, k.outC, h.corr, h.cs, h.bias)
			}
		}
		arch.VecClamp(rows, k.fMin, k.fMax)
	}
}
