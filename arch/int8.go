package arch

// Int8 products with exact int32 accumulation: the integer and hybrid
// matrix × vector products, dot products and the row sums of the
// zero-point corrections. Portable code in int8_generic.go, assembly twins
// in int8_{avx2,avx512}_amd64.s, int8_neon_arm64.s and
// int8_neondotprod_arm64.s.

var (
	matVecMulAccInt8 func(dst []int32, m []int8, rows, cols int, x []int8)
	dotInt8          func(a, b []int8) int32
	rowSumsInt8      func(dst []int32, m []int8, rows, cols int)

	matVecMulAccInt8Impls = newImpls("MatVecMulAccInt8", &matVecMulAccInt8, matVecMulAccInt8Generic)
	dotInt8Impls          = newImpls("DotInt8", &dotInt8, dotInt8Generic)
	rowSumsInt8Impls      = newImpls("RowSumsInt8", &rowSumsInt8, rowSumsInt8Generic)
)

// MatVecMulAccInt8 adds the int8 product m·x to dst with int32
// accumulation: dst[r] += Σ_c int32(m[r*cols+c])·int32(x[c]), wrapping
// modulo 2^32 like TFLite's int32 arithmetic. Every implementation gives
// bit-identical results for every input (including -128). Zero points are
// the caller's business (see RowSumsInt8).
func MatVecMulAccInt8(dst []int32, m []int8, rows, cols int, x []int8) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_ = dst[rows-1]
	_ = m[rows*cols-1]
	_ = x[cols-1]
	matVecMulAccInt8(dst, m, rows, cols, x)
}

// DotInt8 returns Σ int32(a[i])·int32(b[i]) over len(a) elements (b at
// least as long), wrapping like MatVecMulAccInt8.
func DotInt8(a, b []int8) int32 {
	_ = b[:len(a)]
	return dotInt8(a, b)
}

// RowSumsInt8 sets dst[r] to the sum of row r of the rows×cols matrix m,
// the term the zero-point correction Σ(w·(x-zp)) = Σw·x - zp·Σw needs.
func RowSumsInt8(dst []int32, m []int8, rows, cols int) {
	if rows <= 0 {
		return
	}
	_ = dst[rows-1]
	if cols <= 0 {
		clear(dst[:rows])
		return
	}
	_ = m[rows*cols-1]
	rowSumsInt8(dst, m, rows, cols)
}
