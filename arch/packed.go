package arch

// The packed matrix × vector product. MatVecMulAcc multiplies a row-major
// matrix one row at a time: each row's products are summed across the
// vector lanes and then reduced horizontally, which for short rows (an
// LSTM of 20 cells has rows of 20-28 columns; a FULLY_CONNECTED layer
// with 16 inputs, rows of 16) costs more than the multiplies. The packed
// layout instead stores the matrix in blocks of PackedBlock rows, column
// after column, so that one vector register holds column c of sixteen
// rows: the kernel broadcasts x[c] and multiplies it into sixteen row
// accumulators at once, and the result needs no horizontal sum at all.
// Kernels pack their constant weights once at Prepare with PackMatrix.

// PackedBlock is the number of rows in one block of the packed layout.
const PackedBlock = 16

// PackedLen returns the number of float32 elements a rows×cols matrix
// occupies in the packed layout: ⌈rows/16⌉·16·cols (0 when rows or cols
// is not positive).
func PackedLen(rows, cols int) int {
	if rows <= 0 || cols <= 0 {
		return 0
	}
	return (rows + PackedBlock - 1) / PackedBlock * PackedBlock * cols
}

// PackMatrix returns the row-major rows×cols matrix m (m[r*cols+c]) in the
// packed layout MatVecMulAccPacked reads: block b holds rows 16b..16b+15,
// stored column by column, so that element (r, c) is at
// p[(b·cols + c)·16 + r-16b] with b = r/16; the rows of the last block
// beyond rows are zero. It allocates the result (PackedLen(rows, cols)
// elements); kernels call it at Prepare. It panics if m is shorter than
// rows·cols (a kernel bug).
func PackMatrix(m []float32, rows, cols int) []float32 {
	p := make([]float32, PackedLen(rows, cols))
	if len(p) == 0 {
		return p
	}
	_ = m[rows*cols-1]
	for r := 0; r < rows; r++ {
		b, i := r/PackedBlock, r%PackedBlock
		blk := p[b*PackedBlock*cols:]
		for c, v := range m[r*cols : r*cols+cols] {
			blk[c*PackedBlock+i] = v
		}
	}
	return p
}

var (
	matVecMulAccPacked      func(dst, p []float32, rows, cols int, x []float32)
	matVecMulAccPackedImpls = newImpls("MatVecMulAccPacked", &matVecMulAccPacked, matVecMulAccPackedGeneric)
)

// MatVecMulAccPacked adds the product of a rows×cols matrix and the
// vector x to dst, dst[r] += Σ_c m[r*cols+c]·x[c], like MatVecMulAcc, with
// the matrix given as p = PackMatrix(m, rows, cols). Each row's products
// are summed in column order (the assembly versions split the columns
// into two interleaved partial sums and use FMA), then added to dst:
// results agree with float64 math to a few float32 ulp of Σ|m·x|, as for
// MatVecMulAcc. NaN and Inf propagate as in the plain sum; the zero rows
// padding the last block are never written to dst. It panics if a slice
// is shorter than the sizes say (p must hold PackedLen(rows, cols)
// elements).
func MatVecMulAccPacked(dst, p []float32, rows, cols int, x []float32) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_ = dst[rows-1]
	_ = p[PackedLen(rows, cols)-1]
	_ = x[cols-1]
	matVecMulAccPacked(dst, p, rows, cols, x)
}
