package arch

// Portable float clamp (VecClamp): the reference
// the assembly twins are tested against, and the implementation of
// -tags purego builds and of CPUs without them.

// vecClampGeneric is the portable VecClamp.
func vecClampGeneric(v []float32, lo, hi float32) {
	for i, x := range v {
		if x < lo {
			x = lo
		}
		if x > hi {
			x = hi
		}
		v[i] = x
	}
}
