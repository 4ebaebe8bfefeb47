package arch

// Column sums of a row-major matrix: the float MEAN and SUM over the
// middle axes of a tensor whose last axis is kept (global average
// pooling of [B, T, C] or NHWC), in TFLite's order.

var (
	sumRowsF32      func(acc, in []float32, rows, cols int)
	sumRowsF32Impls = newImpls("SumRowsF32", &sumRowsF32, sumRowsF32Generic)
)

// SumRowsF32 adds the rows of the row-major rows×cols matrix in into acc:
// acc[j] += in[r·cols+j] for r = 0, 1, …, rows-1 in that order, one
// rounded addition at a time, acc[j] the first operand. This is the order
// TFLite's reduce.cc sums (ReduceSumImpl / the reference Reduce loop
// visiting the input in order), so every implementation gives the bits of
// the scalar loop: the vector kernels add columns lane-wise, never
// reassociating a column's sum. (A NaN sum is NaN in every
// implementation; which payload survives when two NaNs meet is the
// compiler's and the hardware's, as in C++.) acc must hold cols
// values and in rows·cols; they must not overlap. It panics if rows or
// cols is negative or a slice is too short.
func SumRowsF32(acc, in []float32, rows, cols int) {
	if rows < 0 || cols < 0 {
		panic("arch.SumRowsF32: negative size")
	}
	if rows == 0 || cols == 0 {
		return
	}
	_ = acc[cols-1]
	_ = in[rows*cols-1]
	sumRowsF32(acc, in, rows, cols)
}

var (
	sumRowsInt8      func(acc []int32, in []int8, rows, cols int) int
	sumRowsInt8Impls = newImpls("SumRowsInt8", &sumRowsInt8, sumRowsInt8None)
)

// SumRowsInt8 adds the rows of the row-major rows×cols int8 matrix in into
// the int32 column sums acc: acc[j] += int32(in[r·cols+j]) for every row
// r, wrapping as Go's int32 addition does (integer sums do not depend on
// the order, so every implementation gives the same values). It is the
// window sum of int8 AVERAGE_POOL_2D over one window row. acc must hold
// cols values and in rows·cols; it panics if rows or cols is negative or
// a slice is too short.
func SumRowsInt8(acc []int32, in []int8, rows, cols int) {
	if rows < 0 || cols < 0 {
		panic("arch.SumRowsInt8: negative size")
	}
	if rows == 0 || cols == 0 {
		return
	}
	_ = acc[cols-1]
	_ = in[rows*cols-1]
	done := sumRowsInt8(acc, in, rows, cols)
	sumRowsInt8Generic(acc, in, rows, cols, done)
}
