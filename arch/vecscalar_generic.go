package arch

// vecScalarF32Generic is the portable VecScalarF32.
func vecScalarF32Generic(dst, a []float32, y float32, op int) {
	a = a[:len(dst)]
	switch op {
	case ScalarAdd:
		for i, v := range a {
			dst[i] = v + y
		}
	case ScalarMul:
		for i, v := range a {
			dst[i] = v * y
		}
	case ScalarSub:
		for i, v := range a {
			dst[i] = v - y
		}
	default:
		for i, v := range a {
			dst[i] = y - v
		}
	}
}
