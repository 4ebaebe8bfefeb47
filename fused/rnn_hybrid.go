package fused

import (
	"math"

	"github.com/tflrun/tflrun/arch"
)

// This file holds the arithmetic of TFLite's hybrid kernels (float
// activations, int8 weights) that the RNN and SVDF families share: the
// per-batch dynamic quantisation of float vectors (tensor_utils'
// SymmetricQuantizeFloats and AsymmetricQuantizeFloats, portable versions)
// and the int8 matrix × quantised vector product rescaled into a float
// accumulator (MatrixBatchVectorMultiplyAccumulate with scaling factors and
// optional input offsets). Every float operation is written so that it is
// rounded to float32 on its own, as TFLite's x86 build computes it (no
// fused multiply-add), so the results match TFLite bit for bit where the
// operation order allows.

// hybridQuantizeSymmetric quantises v into q (len(q) ≥ len(v)) with the
// symmetric int8 scheme TFLite uses for hybrid inputs and returns the
// scale: scale = max|v|/127, q = clamp(round(v·127/max|v|), -127, 127).
// An all-zero v gives scale 1 and zeros.
func hybridQuantizeSymmetric(v []float32, q []int8) float32 {
	q = q[:len(v)]
	if len(v) == 0 {
		return 1
	}
	lo, hi := minMaxFloat32(v)
	// std::max(|min|, |max|) keeps the first argument unless the second is
	// larger.
	rng := absFloat32(lo)
	if a := absFloat32(hi); rng < a {
		rng = a
	}
	if rng == 0 {
		clear(q)
		return 1
	}
	const kScale = 127
	scale := rng / kScale
	inv := kScale / rng
	for i, x := range v {
		r := x86Int32(float32(math.Round(float64(float32(x * inv)))))
		q[i] = int8(max(-kScale, min(kScale, r)))
	}
	return scale
}

// hybridQuantizeAsymmetric quantises v into q with TFLite's asymmetric
// int8 scheme and returns the scale and zero point: the range
// [min(0, min v), max(0, max v)] maps onto [-128, 127], the zero point
// is nudged to an integer the way TFLite's AsymmetricQuantizeFloats does
// (in double precision), and q = clamp(round(zp + v/scale), -128, 127).
// An all-zero v gives scale 1, zero point 0 and zeros.
func hybridQuantizeAsymmetric(v []float32, q []int8) (float32, int32) {
	q = q[:len(v)]
	if len(v) == 0 {
		return 1, 0
	}
	const qmin, qmax = -128.0, 127.0
	lo, hi := minMaxFloat32(v)
	// std::min(0.0f, lo) and std::max(0.0f, hi).
	var rmin, rmax float64
	if lo < 0 {
		rmin = float64(lo)
	}
	if 0 < hi {
		rmax = float64(hi)
	}
	if rmin == rmax {
		clear(q)
		return 1, 0
	}
	scale := (rmax - rmin) / (qmax - qmin)
	zpFromMin := qmin - rmin/scale
	zpFromMax := qmax - rmax/scale
	errFromMin := math.Abs(qmin) + math.Abs(rmin/scale)
	errFromMax := math.Abs(qmax) + math.Abs(rmax/scale)
	zpDouble := zpFromMax
	if errFromMin < errFromMax {
		zpDouble = zpFromMin
	}
	var zp int32
	switch {
	case zpDouble <= qmin:
		zp = qmin
	case zpDouble >= qmax:
		zp = qmax
	default:
		zp = int32(int8(math.Round(zpDouble)))
	}
	s := float32(scale)
	inv := 1 / s
	fzp := float32(zp)
	for i, x := range v {
		y := fzp + float32(x*inv)
		r := x86Int32(float32(math.Round(float64(y))))
		q[i] = int8(max(qmin, min(qmax, r)))
	}
	return s, zp
}

// hybridQuantizeBatch quantises batch rows of n floats (row b at
// v[b*n:]) into q, one scale (and zero point when asymmetric) per row, as
// TFLite's BatchQuantizeFloats does. The scales are written to sf[b]; the
// zero points to zp[b] (zero for the symmetric scheme).
func hybridQuantizeBatch(v []float32, batch, n int, q []int8, sf []float32, zp []int32, asymmetric bool) {
	for b := 0; b < batch; b++ {
		row := v[b*n : b*n+n]
		qr := q[b*n : b*n+n]
		if asymmetric {
			sf[b], zp[b] = hybridQuantizeAsymmetric(row, qr)
		} else {
			sf[b] = hybridQuantizeSymmetric(row, qr)
			zp[b] = 0
		}
	}
}

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

// minMaxFloat32 returns the smallest and largest element of a non-empty v
// (as std::minmax_element compares: a NaN never replaces the minimum and
// always replaces the maximum).
func minMaxFloat32(v []float32) (lo, hi float32) {
	lo, hi = v[0], v[0]
	for _, x := range v[1:] {
		if x < lo {
			lo = x
		}
		if !(x < hi) {
			hi = x
		}
	}
	return lo, hi
}

func absFloat32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// x86Int32 converts like a C static_cast<int32_t>(float) compiled for x86
// (cvttss2si): truncation toward zero, and math.MinInt32 for NaN and
// out-of-range values. TFLite's reference results come from x86; Go's own
// conversion is implementation-defined for those inputs.
func x86Int32(f float32) int32 {
	if f != f || f >= 2147483648 || f < -2147483648 {
		return math.MinInt32
	}
	return int32(f)
}
