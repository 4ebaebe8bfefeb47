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
		mx := xr[0]
		for _, v := range xr {
			mx = max(mx, v)
		}
		for i, v := range xr {
			yr[i] = float32(v-mx) * beta
		}
		p := min(depth, max(0, packets-s))
		arch.ExpEigenF32(yr[:p], yr[:p])
		for i := p; i < depth; i++ {
			yr[i] = float32(math.Exp(float64(yr[i])))
		}
		inv := 1 / eigenColumnSum(yr, s)
		for i, v := range yr {
			v *= inv
			if v < 0x1p-126 {
				v = 0 // flushed, as TensorFlow Lite's subnormal results
			}
			yr[i] = v
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
	var p0 [4]float32
	copy(p0[:], e[a:a+4])
	if size > 4 {
		var p1 [4]float32
		copy(p1[:], e[a+4:a+8])
		for i := a + 8; i < end2; i += 8 {
			for l := range 4 {
				p0[l] += e[i+l]
				p1[l] += e[i+4+l]
			}
		}
		for l := range 4 {
			p0[l] += p1[l]
		}
		if end > end2 {
			for l := range 4 {
				p0[l] += e[end2+l]
			}
		}
	}
	res := (p0[0] + p0[2]) + (p0[1] + p0[3])
	for _, v := range e[:a] {
		res += v
	}
	for _, v := range e[end:] {
		res += v
	}
	return res
}
