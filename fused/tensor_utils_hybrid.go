package fused

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// This file holds the hybrid kernels' vector utilities (TFLite's
// tensor_utils, portable versions, which its x86 build without SSSE3 uses):
// quantising a float vector to int8 with its own scale (BatchQuantizeFloats,
// through ops.SymmetricQuantizeFloats and ops.AsymmetricQuantizeFloats) and
// the int8 matrix product scaled back to float
// (MatrixBatchVectorMultiplyAccumulate with scaling factors).

// batchQuantizeFloats quantises nb rows of n floats each (TFLite's
// BatchQuantizeFloats): row b's scale goes to sf[b] and its zero point to
// zp[b] (0 for the symmetric scheme; zp may be nil then).
func batchQuantizeFloats(x []float32, nb, n int, q []int8, sf []float32, zp []int32, asymmetric bool) {
	for b := 0; b < nb; b++ {
		xs, qs := x[b*n:(b+1)*n], q[b*n:(b+1)*n]
		if asymmetric {
			sf[b], zp[b] = ops.AsymmetricQuantizeFloats(xs, qs)
		} else {
			sf[b] = ops.SymmetricQuantizeFloats(xs, qs)
			if zp != nil {
				zp[b] = 0
			}
		}
	}
}

// hybridProductAcc adds the int8 products of a packed panel to float
// accumulators, TFLite's hybrid MatrixBatchVectorMultiplyAccumulate: for
// each batch row b and panel row r,
//
//	dot = Σ_c m[r][c]·q[b][c] − rowSums[r]·zp[b]   (int32, wrapping)
//	dst[b][r] += float32(dot) · (sf[b]·scale(r))
//
// where scale(r) is the weight scale of the gate owning row r (rows come
// in groups of groupRows with one scale each). zp and rowSums are nil for
// symmetric quantisation. acc is int32 scratch of nb·rows.
func hybridProductAcc(dst []float32, m []int8, rows, cols int, q []int8, nb int,
	sf []float32, scales []float32, groupRows int, zp []int32, rowSums []int32, acc []int32) {
	if rows == 0 {
		return
	}
	acc = acc[:nb*rows]
	clear(acc)
	matBatchVecMulAccI8(acc, m, rows, cols, q, nb)
	for b := 0; b < nb; b++ {
		a := acc[b*rows : (b+1)*rows]
		d := dst[b*rows : (b+1)*rows]
		var off int32
		if zp != nil {
			off = zp[b]
		}
		for gi := 0; gi*groupRows < rows; gi++ {
			// TFLite forms the product of the two scaling factors once
			// per batch row and matrix.
			scale := float32(sf[b] * scales[gi])
			lo, hi := gi*groupRows, min((gi+1)*groupRows, rows)
			for r := lo; r < hi; r++ {
				dot := a[r]
				if rowSums != nil {
					dot -= rowSums[r] * off
				}
				d[r] += float32(float32(dot) * scale)
			}
		}
	}
}

// rowSums returns the per-row sums of a rows×cols int8 matrix (TFLite's
// ReductionSumVector), for the asymmetric zero-point correction.
func rowSums(m []int8, rows, cols int) []int32 {
	s := make([]int32, rows)
	arch.RowSumsInt8(s, m, rows, cols)
	return s
}
