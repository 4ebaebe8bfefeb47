package builtin

import (
	"math"

	"github.com/tflrun/tflrun/arch"
)

// softmaxFloatEigen computes the float32 SOFTMAX of the rows [lo, hi) of
// x (total elements, rows of depth) into y as TensorFlow Lite's x86
// builtin kernel does at one thread (optimized_ops::SoftmaxImpl, one Eigen
// expression over the whole [depth, rows] column-major map), bit for bit:
//
//   - t = (x − max of the row)·β, each step rounded to float32;
//   - e^t by Eigen's packet exponential (arch.ExpEigenF32) for the
//     elements Eigen evaluates in packets of 4 — those below total
//     rounded down to 4, counted from the start of the tensor, which
//     TFLite's arena aligns — and by expf (correctly rounded) for the
//     rest;
//   - the row's sum in the order of Eigen's vectorised reduction of one
//     column (eigenColumnSum), then its float32 reciprocal;
//   - each e^t times the reciprocal; results below FLT_MIN are flushed
//     to 0, as TensorFlow Lite's are on x86.
//
// The rows are independent, so any split of them gives the same bits.
func softmaxFloatEigen(x, y []float32, total, depth int, beta float32, lo, hi int) {
	if depth == 0 {
		return
	}
	packets := total &^ 3
	for r := lo; r < hi; r++ {
		s := r * depth
		xr, yr := x[s:s+depth], y[s:s+depth]
		mx := rowMaxF32(xr)
		arch.VecScalarF32(yr, xr, mx, arch.ScalarSub)
		if beta != 1 {
			arch.VecScalarF32(yr, yr, beta, arch.ScalarMul)
		}
		p := min(depth, max(0, packets-s))
		arch.ExpEigenF32(yr[:p], yr[:p])
		for i := p; i < depth; i++ {
			yr[i] = float32(math.Exp(float64(yr[i])))
		}
		inv := 1 / eigenColumnSum(yr, s)
		arch.VecScalarF32(yr, yr, inv, arch.ScalarMul)
		for i, v := range yr {
			if v < 0x1p-126 {
				yr[i] = 0 // flushed, as TensorFlow Lite's subnormal results
			}
		}
	}
}

// eigenColumnSum is the float32 sum of e, a column that starts at element
// start of a 16-byte-aligned buffer, in the order of Eigen's
// redux_impl<LinearVectorizedTraversal> with SSE packets of 4: from the
// first aligned element, two packet accumulators over pairs of packets,
// added, plus one more packet if there is one, reduced as
// (p0+p2)+(p1+p3); then the elements before the first aligned one, then
// those after the last whole packet, in order. A column of fewer than 4
// aligned elements is summed in order.
func eigenColumnSum(e []float32, start int) float32 {
	n := len(e)
	a := min((4-start%4)%4, n)
	size := (n - a) / 4 * 4
	if size == 0 {
		res := e[0]
		for _, v := range e[1:] {
			res += v
		}
		return res
	}
	size2 := (n - a) / 8 * 8
	end, end2 := a+size, a+size2
	// The two packet accumulators, lane by lane in locals (registers).
	q := e[a : a+4 : a+4]
	p00, p01, p02, p03 := q[0], q[1], q[2], q[3]
	if size > 4 {
		q = e[a+4 : a+8 : a+8]
		p10, p11, p12, p13 := q[0], q[1], q[2], q[3]
		for i := a + 8; i < end2; i += 8 {
			q := e[i : i+8 : i+8]
			p00 += q[0]
			p01 += q[1]
			p02 += q[2]
			p03 += q[3]
			p10 += q[4]
			p11 += q[5]
			p12 += q[6]
			p13 += q[7]
		}
		p00 += p10
		p01 += p11
		p02 += p12
		p03 += p13
		if end > end2 {
			q := e[end2 : end2+4 : end2+4]
			p00 += q[0]
			p01 += q[1]
			p02 += q[2]
			p03 += q[3]
		}
	}
	p0 := [4]float32{p00, p01, p02, p03}
	res := (p0[0] + p0[2]) + (p0[1] + p0[3])
	for _, v := range e[:a] {
		res += v
	}
	for _, v := range e[end:] {
		res += v
	}
	return res
}

// rowMaxF32 is the largest element of x (len(x) > 0), NaN if any element
// is NaN (as the max builtin), through the vector arch.MinMaxF32; which of ±0 that returns changes no
// result (x − ±0 differs only for x = ±0, whose exponential is 1 either
// way).
func rowMaxF32(x []float32) float32 {
	_, hi, nan := arch.MinMaxF32(x)
	if nan {
		return float32(math.NaN())
	}
	return hi
}
