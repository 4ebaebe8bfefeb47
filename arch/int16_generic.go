package arch

// Portable int16 row dot products (DotRowsInt16): the reference
// the assembly twins are tested against, and the implementation of
// -tags purego builds and of CPUs without them.

// dotRowsInt16Generic is the portable DotRowsInt16: four partial sums per
// row, rows of eight (the keyword-spotting SVDF memory) fully unrolled.
func dotRowsInt16Generic(dst []int32, a, b []int16, rows, cols int) {
	dst = dst[:rows]
	if cols == 8 {
		for r := range dst {
			x := a[r*8 : r*8+8 : r*8+8]
			y := b[r*8 : r*8+8 : r*8+8]
			dst[r] = (int32(x[0])*int32(y[0]) + int32(x[1])*int32(y[1])) +
				(int32(x[2])*int32(y[2]) + int32(x[3])*int32(y[3])) +
				(int32(x[4])*int32(y[4]) + int32(x[5])*int32(y[5])) +
				(int32(x[6])*int32(y[6]) + int32(x[7])*int32(y[7]))
		}
		return
	}
	for r := range dst {
		x := a[r*cols : r*cols+cols]
		y := b[r*cols : r*cols+cols]
		var s0, s1, s2, s3 int32
		c := 0
		for ; c+4 <= cols; c += 4 {
			s0 += int32(x[c]) * int32(y[c])
			s1 += int32(x[c+1]) * int32(y[c+1])
			s2 += int32(x[c+2]) * int32(y[c+2])
			s3 += int32(x[c+3]) * int32(y[c+3])
		}
		for ; c < cols; c++ {
			s0 += int32(x[c]) * int32(y[c])
		}
		dst[r] = (s0 + s1) + (s2 + s3)
	}
}
