package arch

// Portable int8 primitives for the integer and hybrid kernels. Integer
// accumulation is exact, so every implementation must return identical
// results.

// matVecMulAccInt8Generic adds m·x to dst with int32 accumulation:
// dst[r] += Σ_c int32(m[r*cols+c])·int32(x[c]). Four independent partial
// sums per row (the order does not matter: int32 addition wraps, so any
// order gives the same bits) run about twice as fast as one.
func matVecMulAccInt8Generic(dst []int32, m []int8, rows, cols int, x []int8) {
	x = x[:cols]
	for r := 0; r < rows; r++ {
		dst[r] += dotInt8Generic(m[r*cols:r*cols+cols], x)
	}
}

// dotInt8Generic returns Σ int32(a[i])·int32(b[i]).
func dotInt8Generic(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		av := a[i : i+4 : i+4]
		bv := b[i : i+4 : i+4]
		s0 += int32(av[0]) * int32(bv[0])
		s1 += int32(av[1]) * int32(bv[1])
		s2 += int32(av[2]) * int32(bv[2])
		s3 += int32(av[3]) * int32(bv[3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
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
