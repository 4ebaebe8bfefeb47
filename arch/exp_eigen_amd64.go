//go:build !purego

package arch

import "math"

// The AVX2 kernel of ExpEigenF32 (exp_eigen_avx2_amd64.s) and its
// registration.

//go:noescape
func expEigenAVX2(dst, x *float32, n int, c *[13][8]uint32)

// expEigenConsts are the kernel's constants, those of expEigenLane, each
// in 8 lanes.
var expEigenConsts = func() (t [13][8]uint32) {
	f := math.Float32bits
	vals := [...]uint32{
		f(eigenExpHi), f(0.5), f(eigenExpLog2e), f(eigenExpC1), f(eigenExpC2),
		f(eigenExpP2), f(eigenExpP3), f(eigenExpP4), f(eigenExpP5), f(eigenExpP6), f(1), 127, f(eigenExpLo),
	}
	for i, v := range vals {
		for j := range t[i] {
			t[i][j] = v
		}
	}
	return t
}()

// expEigenAVX2Lanes runs the kernel, which computes every lane on the
// fast path (2^m in the exponent field) and sets those below -104 (a
// masked logit, -Inf) to 0, on the blocks of 64 (and the last multiple
// of 8) whose inputs all lie below -104 or in [-87, 87]; blocks holding
// another value (NaN, +Inf, a subnormal result's range) and the
// remainder go to expEigenGeneric. Deciding before the kernel runs keeps
// dst = x allowed.
func expEigenAVX2Lanes(dst, x []float32) {
	dst = dst[:len(x)]
	n8 := len(x) &^ 7
	for off := 0; off < n8; off += 64 {
		xs := x[off:min(off+64, n8)]
		fast := true
		for _, v := range xs {
			if !(v < eigenExpLo || v >= -eigenExpFast && v <= eigenExpFast) {
				fast = false
				break
			}
		}
		if fast {
			expEigenAVX2(&dst[off], &xs[0], len(xs), &expEigenConsts)
		} else {
			expEigenGeneric(dst[off:off+len(xs)], xs)
		}
	}
	expEigenGeneric(dst[n8:], x[n8:])
}

var _ = expEigenImpls.add("avx2", AVX2, nil, expEigenAVX2Lanes)
