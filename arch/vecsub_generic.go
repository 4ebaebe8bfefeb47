package arch

// Portable VecSub: the reference of the assembly twins, and the
// implementation of -tags purego builds.

func vecSubGeneric(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - b[i]
	}
}
