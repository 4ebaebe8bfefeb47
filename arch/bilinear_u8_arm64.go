//go:build !purego

package arch

// The arm64 BilinearU8 and BilinearRowU8 kernels
// (bilinear_u8_neon_arm64.s), with the contracts of bilinearU8Generic
// (any length, including 0) and bilinearRowU8Generic (the wrapper leaves
// depths below 8 to the portable code), registered at the neon level.

//go:noescape
func bilinearU8NEON(dst, p00, p01, p10, p11 []byte, w *[4]float32)

//go:noescape
func bilinearRowU8NEONAsm(dst, row0, row1 *byte, off *int32, fx *float32, n, d int, fy float32)

func bilinearRowU8NEON(dst, row0, row1 []byte, t *BilinearTaps, fy float32) {
	if t.depth < 8 || len(t.fx) == 0 {
		bilinearRowU8Generic(dst, row0, row1, t, fy)
		return
	}
	bilinearRowU8NEONAsm(&dst[0], &row0[0], &row1[0], &t.off[0], &t.fx[0], len(t.fx), t.depth, fy)
}

var (
	_ = bilinearU8Impls.add("neon", NEON, nil, bilinearU8NEON)
	_ = bilinearRowU8Impls.add("neon", NEON, nil, bilinearRowU8NEON)
)
