package builtin

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The int8 FULLY_CONNECTED of a batch of rows as one GEMM: arch's packed
// int8 GEMM with its requantising output stage (arch.GemmInt8RequantizeInt8)
// instead of a matrix-vector product per row (int8Rows). The integer sums
// are the same modulo 2^32, TFLite's wrapping int32 arithmetic:
//
//	acc[b,u] = Σ_c (w[u,c] + wOff)(x[b,c] + inOff) + bias[u]
//	         = seed[u] + Σ_c x[b,c]·(w[u,c] + wOff)
//	seed[u]  = bias[u] + inOff·Σ_c w[u,c] + cols·wOff·inOff
//
// (the GEMM's wZero is the weights' zero point, -wOff), and the output
// stage is the same MultiplyByQuantizedMultiplier, per tensor or per
// channel, with ruy's upward ties or, for sparse weights (roundAway),
// ties away from zero; so the bits are int8Rows'. Weights that are not
// constant (yolo11n's attention multiplies two activations) are packed at
// every Eval; constant ones once.

// fcGemmMinBatch is the smallest batch the int8 path runs as one GEMM:
// the GEMM's packing costs about one pass over the weights, which one or
// two matrix-vector products do not repay.
const fcGemmMinBatch = 4

// fcGemm is the state of the GEMM path (nil when the int8 path runs row
// by row).
type fcGemm struct {
	packed   []int8
	packedOK bool // packed holds the constant weights
	seed     []int32
	cq       *arch.ChannelRequant
	fn       func(worker, lo, hi int)
}

// prepareGemm sets up the GEMM path of an int8 FULLY_CONNECTED with an
// int8 output and a batch of at least fcGemmMinBatch rows, leaving k.gemm
// nil otherwise.
func (k *FullyConnected) prepareGemm(out *ops.Tensor) error {
	k.gemm = nil
	if k.batch < fcGemmMinBatch || out.Type != ops.Int8 || k.units == 0 || k.cols == 0 || k.actMin < -128 || k.actMax > 127 {
		return nil
	}
	mult, shift := k.chanMult, k.chanShift
	if mult == nil {
		mult, shift = make([]int32, k.units), make([]int, k.units)
		for i := range mult {
			mult[i], shift[i] = k.mult, k.shift
		}
	}
	var cq *arch.ChannelRequant
	var err error
	if k.roundAway {
		cq, err = arch.NewChannelRequant(mult, shift)
	} else {
		cq, err = arch.NewChannelRequantUp(mult, shift)
	}
	if err != nil {
		return nil // parameters the GEMM cannot take: the row path handles them
	}
	g := &fcGemm{
		packed: make([]int8, arch.PackedGemmInt8Len(k.units, k.cols)),
		seed:   make([]int32, k.units),
		cq:     cq,
	}
	g.fn = k.gemmRows
	k.gemm = g
	return nil
}

// evalGemm computes the int8 output through the GEMM, split over threads
// by batch rows (each output row is one GEMM row: any split gives the same
// bits).
func (k *FullyConnected) evalGemm(n *ops.Node, in, w, bias, out *ops.Tensor) {
	g := k.gemm
	w8 := k.weights8(w)
	if !g.packedOK || w.Kind != ops.ConstTensor {
		arch.PackGemmInt8(g.packed, w8, k.units, k.cols)
		g.packedOK = true
	}
	rowSums := k.weightRowSums(w)
	constant := int32(k.cols) * k.wOffset * k.inOffset
	var b32 []int32
	if bias != nil {
		b32 = bias.Int32s()
	}
	for u := range g.seed {
		s := k.inOffset*rowSums[u] + constant
		if b32 != nil {
			s += b32[u]
		}
		g.seed[u] = s
	}
	k.run.x8, k.run.o8 = in.Int8s(), out.Int8s()
	n.Parallel(k.batch, k.batch*k.units*k.cols, g.fn)
	k.run = fcRun{}
}

// gemmRows computes the batch rows [lo, hi).
func (k *FullyConnected) gemmRows(worker, lo, hi int) {
	g, units, cols := k.gemm, k.units, k.cols
	arch.GemmInt8RequantizeInt8(k.run.o8[lo*units:hi*units], units, k.run.x8[lo*cols:hi*cols], cols,
		g.packed, g.seed, -k.wOffset, g.cq, hi-lo, units, cols, k.outOffset, k.actMin, k.actMax)
}
