package fused

import (
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// This file holds the hybrid kernels' vector utilities (TFLite's
// tensor_utils, portable versions, which its x86 build without SSSE3 uses):
// quantising a float vector to int8 with its own scale (BatchQuantizeFloats)
// and the int8 matrix product scaled back to float
// (MatrixBatchVectorMultiplyAccumulate with scaling factors).

// symmetricQuantizeFloats is TFLite's PortableSymmetricQuantizeFloats: the
// scale is max|x|/127 and q = clamp(round(x·(127/max|x|)), ±127). An
// all-zero vector (or an empty one) gets scale 1 and zeros.
func symmetricQuantizeFloats(x []float32, q []int8) (scale float32) {
	q = q[:len(x)]
	var lo, hi float32
	if len(x) > 0 {
		lo, hi = x[0], x[0]
	}
	for _, v := range x {
		// std::minmax_element: the first minimum and the last maximum;
		// with NaN excluded by the comparisons, as in C++.
		if v < lo {
			lo = v
		}
		if !(v < hi) {
			hi = v
		}
	}
	r := stdMax(float32(math.Abs(float64(lo))), float32(math.Abs(float64(hi))))
	if r == 0 {
		clear(q)
		return 1
	}
	inv := 127 / r
	for i, v := range x {
		qv := floatToInt32Trunc(ops.RoundFloat32(float32(v * inv)))
		q[i] = int8(min(int32(127), max(int32(-127), qv)))
	}
	return r / 127
}

// asymmetricQuantizeFloats is TFLite's PortableAsymmetricQuantizeFloats:
// [min(x, 0), max(x, 0)] maps onto [-128, 127] with a nudged integer zero
// point (computed in double precision); it returns the scale and the zero
// point. A constant-zero vector gets scale 1, zero point 0 and zeros.
func asymmetricQuantizeFloats(x []float32, q []int8) (scale float32, zp int32) {
	q = q[:len(x)]
	var lo, hi float32
	if len(x) > 0 {
		lo, hi = x[0], x[0]
	}
	for _, v := range x {
		if v < lo {
			lo = v
		}
		if !(v < hi) {
			hi = v
		}
	}
	rmin := float64(stdMin(0, lo))
	rmax := float64(stdMax(0, hi))
	if rmin == rmax {
		clear(q)
		return 1, 0
	}
	const qmin, qmax = -128.0, 127.0
	s := (rmax - rmin) / (qmax - qmin)
	zpFromMin := qmin - rmin/s
	zpFromMax := qmax - rmax/s
	errMin := math.Abs(qmin) + math.Abs(rmin/s)
	errMax := math.Abs(qmax) + math.Abs(rmax/s)
	zpd := zpFromMax
	if errMin < errMax {
		zpd = zpFromMin
	}
	var nudged int32
	switch {
	case zpd <= qmin:
		nudged = -128
	case zpd >= qmax:
		nudged = 127
	default:
		nudged = int32(int8(math.Round(zpd)))
	}
	scale = float32(s)
	inv := 1 / scale
	fz := float32(nudged)
	for i, v := range x {
		qv := floatToInt32Trunc(ops.RoundFloat32(fz + float32(v*inv)))
		q[i] = int8(min(int32(127), max(int32(-128), qv)))
	}
	return scale, nudged
}

// batchQuantizeFloats quantises nb rows of n floats each (TFLite's
// BatchQuantizeFloats): row b's scale goes to sf[b] and, when asymmetric,
// its zero point to zp[b] (zp is untouched otherwise).
func batchQuantizeFloats(x []float32, nb, n int, q []int8, sf []float32, zp []int32, asymmetric bool) {
	for b := 0; b < nb; b++ {
		xs, qs := x[b*n:(b+1)*n], q[b*n:(b+1)*n]
		if asymmetric {
			sf[b], zp[b] = asymmetricQuantizeFloats(xs, qs)
		} else {
			sf[b] = symmetricQuantizeFloats(xs, qs)
		}
	}
}

// floatToInt32Trunc converts like C's static_cast<int32_t>(float) on x86
// (cvttss2si): truncation toward zero, math.MinInt32 for NaN and values out
// of range. Inputs here are already rounded and normally small.
func floatToInt32Trunc(f float32) int32 {
	if f != f || f >= 2147483648 || f < -2147483648 {
		return math.MinInt32
	}
	return int32(f)
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
