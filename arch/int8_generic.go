package arch

// Portable int8 primitives for the integer and hybrid kernels. Integer
// accumulation is exact, so every implementation must return identical
// results.

// matVecMulAccInt8Generic adds m·x to dst with int32 accumulation:
// dst[r] += Σ_c int32(m[r*cols+c])·int32(x[c]).
func matVecMulAccInt8Generic(dst []int32, m []int8, rows, cols int, x []int8) {
	x = x[:cols]
	for r := 0; r < rows; r++ {
		row := m[r*cols : r*cols+cols]
		var s int32
		for c, w := range row {
			s += int32(w) * int32(x[c])
		}
		dst[r] += s
	}
}

// dotInt8Generic returns Σ int32(a[i])·int32(b[i]).
func dotInt8Generic(a, b []int8) int32 {
	b = b[:len(a)]
	var s int32
	for i, v := range a {
		s += int32(v) * int32(b[i])
	}
	return s
}

// rowSumsInt8Generic sets dst[r] = Σ_c m[r*cols+c], the per-row sums the
// asymmetric (zero-point) corrections need.
func rowSumsInt8Generic(dst []int32, m []int8, rows, cols int) {
	for r := 0; r < rows; r++ {
		var s int32
		for _, w := range m[r*cols : r*cols+cols] {
			s += int32(w)
		}
		dst[r] = s
	}
}
