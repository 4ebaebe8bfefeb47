package arch

// The implementations in use. init (and the per-architecture files) set
// them to the fastest version the CPU supports; tests swap them to compare
// implementations.
var (
	matVecMulAcc     = matVecMulAccGeneric
	dot              = dotGeneric
	matVecMulAccInt8 = matVecMulAccInt8Generic
	dotInt8          = dotInt8Generic
	rowSumsInt8      = rowSumsInt8Generic
)

// MatVecMulAcc adds the product of the row-major rows×cols matrix m and
// the vector x to dst: dst[r] += Σ_c m[r*cols+c]·x[c]. This is the float
// hot loop of FULLY_CONNECTED and of every recurrent gate (TFLite's
// MatrixBatchVectorMultiplyAccumulate for one batch). It panics if a slice
// is shorter than the sizes say (a kernel bug, not bad input: kernels check
// shapes at Prepare).
func MatVecMulAcc(dst, m []float32, rows, cols int, x []float32) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = dst[rows-1:]
	_ = m[rows*cols-1:]
	_ = x[cols-1:]
	matVecMulAcc(dst, m, rows, cols, x)
}

// MatBatchVecMulAcc applies MatVecMulAcc to batch vectors stored back to
// back: dst[b*rows+r] += Σ_c m[r*cols+c]·x[b*cols+c] for b < batch.
func MatBatchVecMulAcc(dst, m []float32, rows, cols int, x []float32, batch int) {
	if rows == 0 || cols == 0 {
		return
	}
	for b := 0; b < batch; b++ {
		MatVecMulAcc(dst[b*rows:], m, rows, cols, x[b*cols:])
	}
}

// Dot returns Σ a[i]·b[i] over the len(a) elements of a; b must be at
// least as long.
func Dot(a, b []float32) float32 {
	_ = b[:len(a)]
	return dot(a, b)
}

// MatVecMulAccInt8 adds the int8 product m·x to dst with exact int32
// accumulation: dst[r] += Σ_c int32(m[r*cols+c])·int32(x[c]). Zero points
// are the caller's business (see RowSumsInt8).
func MatVecMulAccInt8(dst []int32, m []int8, rows, cols int, x []int8) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = dst[rows-1:]
	_ = m[rows*cols-1:]
	_ = x[cols-1:]
	matVecMulAccInt8(dst, m, rows, cols, x)
}

// DotInt8 returns Σ int32(a[i])·int32(b[i]) over len(a) elements.
func DotInt8(a, b []int8) int32 {
	_ = b[:len(a)]
	return dotInt8(a, b)
}

// RowSumsInt8 sets dst[r] to the sum of row r of the rows×cols matrix m,
// the term the zero-point correction Σ(w·(x-zp)) = Σw·x - zp·Σw needs.
func RowSumsInt8(dst []int32, m []int8, rows, cols int) {
	if rows == 0 {
		return
	}
	_ = dst[rows-1:]
	if cols > 0 {
		_ = m[rows*cols-1:]
	}
	rowSumsInt8(dst, m, rows, cols)
}
