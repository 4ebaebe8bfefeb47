//go:build !purego

package arch

// The arm64 SelectAboveF32 kernels (selectabove_neon_arm64.s), one per
// comparison, registered at the neon level (ASIMD is part of every arm64
// CPU); SelectAboveF32 has checked that dst is not empty.

//go:noescape
func selectGTNEON(dst []int32, x []float32, th float32) (n, next int)

//go:noescape
func selectGENEON(dst []int32, x []float32, th float32) (n, next int)

func selectAboveF32NEON(dst []int32, x []float32, th float32, orEqual bool) (n, next int) {
	if orEqual {
		return selectGENEON(dst, x, th)
	}
	return selectGTNEON(dst, x, th)
}

var _ = selectAboveF32Impls.add("neon", NEON, nil, selectAboveF32NEON)
