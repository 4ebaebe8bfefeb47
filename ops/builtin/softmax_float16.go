package builtin

// softmaxHalfRows is the float16 path of SOFTMAX (op version 4) over the
// rows [lo, hi) of x and y, each row depth halves long. It follows
// TFLite's SoftmaxHalf, which calls reference_ops::Softmax with
// tflite::half on every platform (there is no optimised float16 kernel),
// operation by operation:
//
//   - the row maximum starts at numeric_limits<half>::lowest() (−65504,
//     not −Inf) and is updated with std::max(max, x), a float comparison
//     that keeps the running value when x is NaN;
//   - each exponential is expf((float(x) − float(max))·β) in float32; it
//     is stored in the output rounded to half, while the row sum adds the
//     unrounded float32 values in order;
//   - each output is half(float(stored half) / sum).
//
// So a row of −Inf gives 0/0 = NaN, a row holding +Inf gives NaN, and
// the only float16 roundings are the two stores. Conversions to half
// round to nearest even (float32ToHalf, as both tflite::half
// implementations do).
func softmaxHalfRows(x, y []uint16, depth int, beta float32, lo, hi int) {
	const lowest = float32(-65504)
	for r := lo; r < hi; r++ {
		xr, yr := x[r*depth:r*depth+depth], y[r*depth:r*depth+depth]
		mx := lowest
		for _, v := range xr {
			if f := halfToFloat32(v); mx < f {
				mx = f
			}
		}
		var sum float32
		for i, v := range xr {
			e := expf(float32(float32(halfToFloat32(v)-mx) * beta))
			yr[i] = float32ToHalf(e)
			sum += e
		}
		for i, v := range yr {
			yr[i] = float32ToHalf(halfToFloat32(v) / sum)
		}
	}
}
