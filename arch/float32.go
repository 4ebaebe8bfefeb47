package arch

// Float32 vector primitives: the matrix × vector product of
// FULLY_CONNECTED and the recurrent gates, dot products and elementwise
// arithmetic. Portable code in float32_generic.go, assembly twins in
// float32_{avx2,avx512}_amd64.s and float32_neon_arm64.s, registered in
// float32_amd64.go and float32_arm64.go.

// The function slots the exported primitives call and their registry
// entries (registry.go): newImpls sets each slot to the portable version;
// init (dispatch.go) re-sets it for the level in use.
var (
	matVecMulAcc func(dst, m []float32, rows, cols int, x []float32)
	dot          func(a, b []float32) float32
	vecAdd       func(dst, a, b []float32)
	vecMul       func(dst, a, b []float32)
	vecMulAcc    func(dst, a, b []float32)

	matVecMulAccImpls = newImpls("MatVecMulAcc", &matVecMulAcc, matVecMulAccGeneric)
	dotImpls          = newImpls("Dot", &dot, dotGeneric)
	vecAddImpls       = newImpls("VecAdd", &vecAdd, vecAddGeneric)
	vecMulImpls       = newImpls("VecMul", &vecMul, vecMulGeneric)
	vecMulAccImpls    = newImpls("VecMulAcc", &vecMulAcc, vecMulAccGeneric)
)

// MatVecMulAcc adds the product of the row-major rows×cols matrix m and
// the vector x to dst: dst[r] += Σ_c m[r*cols+c]·x[c]. This is the float
// hot loop of FULLY_CONNECTED and of every recurrent gate (TFLite's
// MatrixBatchVectorMultiplyAccumulate for one batch). The order of the
// additions (and, with FMA, the rounding of the products) depends on the
// implementation: results agree to within a few float32 ulp of Σ|m·x|.
// NaN and Inf propagate as in the plain sum. It panics if a slice is
// shorter than the sizes say (a kernel bug, not bad input: kernels check
// shapes at Prepare).
func MatVecMulAcc(dst, m []float32, rows, cols int, x []float32) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_ = dst[rows-1]
	_ = m[rows*cols-1]
	_ = x[cols-1]
	matVecMulAcc(dst, m, rows, cols, x)
}

// MatBatchVecMulAcc applies MatVecMulAcc to batch vectors stored back to
// back: dst[b*rows+r] += Σ_c m[r*cols+c]·x[b*cols+c] for b < batch.
func MatBatchVecMulAcc(dst, m []float32, rows, cols int, x []float32, batch int) {
	if rows <= 0 || cols <= 0 || batch <= 0 {
		return
	}
	_ = dst[batch*rows-1]
	_ = m[rows*cols-1]
	_ = x[batch*cols-1]
	for b := 0; b < batch; b++ {
		matVecMulAcc(dst[b*rows:], m, rows, cols, x[b*cols:])
	}
}

// Dot returns Σ a[i]·b[i] over the len(a) elements of a; b must be at
// least as long. Summation order varies by implementation as for
// MatVecMulAcc (vectors under 16 elements always use the portable order).
func Dot(a, b []float32) float32 {
	_ = b[:len(a)]
	if len(a) < smallVec/2 {
		// A few terms: a direct call beats the kernels' set-up.
		return dotGeneric(a, b)
	}
	return dot(a, b)
}

// smallVec is the length below which VecAdd, VecMul and VecMulAcc run an
// inlined Go loop: for a few elements the call into assembly costs more
// than it saves (20 floats: ~11 ns in Go, 20-30 ns through a kernel on
// Zen 4). The results are the same either way.
const smallVec = 32

// VecAdd sets dst[i] = a[i] + b[i] for i < len(a); b and dst must be at
// least as long as a. dst may be a or b (in place) but must not overlap
// them otherwise. Results are identical at every level.
func VecAdd(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	if len(a) < smallVec {
		for i, v := range a {
			dst[i] = v + b[i]
		}
		return
	}
	vecAdd(dst, a, b)
}

// VecMul sets dst[i] = a[i] · b[i] for i < len(a), with the aliasing rules
// of VecAdd. Results are identical at every level.
func VecMul(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	if len(a) < smallVec {
		for i, v := range a {
			dst[i] = v * b[i]
		}
		return
	}
	vecMul(dst, a, b)
}

// VecMulAcc sets dst[i] += a[i] · b[i] for i < len(a), with the aliasing
// rules of VecAdd. The product is rounded to float32 before the add (no
// fused multiply-add, as in TFLite's x86 builds), so results are identical
// at every level and to Go's `dst[i] += float32(a[i] * b[i])`.
func VecMulAcc(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	if len(a) < smallVec {
		for i, v := range a {
			dst[i] += float32(v * b[i])
		}
		return
	}
	vecMulAcc(dst, a, b)
}
