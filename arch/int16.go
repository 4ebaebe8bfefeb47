package arch

// int16 row dot products: the time filter of TFLite's integer SVDF
// (weights_time · state, one dot product per filter over its memory).

var (
	dotRowsInt16      func(dst []int32, a, b []int16, rows, cols int)
	dotRowsInt16Impls = newImpls("DotRowsInt16", &dotRowsInt16, dotRowsInt16Generic)
)

// DotRowsInt16 sets dst[r] = Σ_c int32(a[r*cols+c])·int32(b[r*cols+c]) for
// r < rows: the dot products of corresponding rows of two row-major
// rows×cols int16 matrices (TFLite's int16
// BatchVectorBatchVectorDotProduct, as the integer SVDF uses it). Products
// are exact in int32 and sums wrap modulo 2^32 like TFLite's int32
// arithmetic; wrapping addition is associative, so every implementation
// gives bit-identical results for every input. It panics if a slice is
// shorter than the sizes say.
func DotRowsInt16(dst []int32, a, b []int16, rows, cols int) {
	if rows <= 0 {
		return
	}
	_ = dst[rows-1]
	if cols <= 0 {
		clear(dst[:rows])
		return
	}
	_ = a[rows*cols-1]
	_ = b[rows*cols-1]
	dotRowsInt16(dst, a, b, rows, cols)
}
