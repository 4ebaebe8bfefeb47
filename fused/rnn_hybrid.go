package fused

import "github.com/tflrun/tflrun/arch"

// This file holds the arithmetic of TFLite's hybrid kernels (float
// activations, int8 weights) that the RNN and SVDF families share: the
// per-batch dynamic quantisation of float vectors (batchQuantizeFloats in
// tensor_utils_hybrid.go, TFLite's BatchQuantizeFloats,
// through ops.SymmetricQuantizeFloats and ops.AsymmetricQuantizeFloats)
// and the int8 matrix × quantised vector product rescaled into a float
// accumulator (MatrixBatchVectorMultiplyAccumulate with scaling factors and
// optional input offsets). Every float operation is written so that it is
// rounded to float32 on its own, as TFLite's x86 build computes it (no
// fused multiply-add), so the results match TFLite bit for bit where the
// operation order allows.

// hybridMatVecAcc adds the rescaled product of the int8 rows×cols matrix m
// and one quantised vector q to out:
//
//	out[r] += float32(Σ_c m[r,c]·q[c] − rowSums[r]·zp) · sf
//
// with int32 accumulation (wrapping, as TFLite's C++ does in practice),
// the int32 converted to float32 and the product rounded before the
// addition. rowSums is nil for symmetric inputs (zp is then ignored). acc
// is scratch of at least rows int32s. This is TFLite's hybrid
// MatrixBatchVectorMultiplyAccumulate for one batch row.
func hybridMatVecAcc(out []float32, m []int8, rows, cols int, q []int8, sf float32, zp int32, rowSums []int32, acc []int32) {
	if rows == 0 {
		return
	}
	acc = acc[:rows]
	out = out[:rows]
	clear(acc)
	arch.MatVecMulAccInt8(acc, m, rows, cols, q)
	if rowSums != nil {
		rowSums = rowSums[:rows]
		for r, d := range acc {
			d -= rowSums[r] * zp
			out[r] += float32(float32(d) * sf)
		}
		return
	}
	for r, d := range acc {
		out[r] += float32(float32(d) * sf)
	}
}
