//go:build !purego

package arch

import "math"

// The AVX2 kernel of HardSwishF32 (hardswish_avx2_amd64.s) and its
// registration.

//go:noescape
func hardSwishAVX2(dst, x *float32, n int, c *[4][8]uint32)

// hardSwishConsts are 3, 0, 6 and 1/6 in 8 lanes.
var hardSwishConsts = func() (t [4][8]uint32) {
	for i, v := range [...]float32{3, 0, 6, hardSwishSixth} {
		for j := range t[i] {
			t[i][j] = math.Float32bits(v)
		}
	}
	return t
}()

// hardSwishAVX2Lanes runs the kernel on the multiples of 8 and the
// portable loop on the rest.
func hardSwishAVX2Lanes(dst, x []float32) {
	n8 := len(x) &^ 7
	if n8 > 0 {
		hardSwishAVX2(&dst[0], &x[0], n8, &hardSwishConsts)
	}
	hardSwishGeneric(dst[n8:len(x)], x[n8:])
}

var _ = hardSwishImpls.add("avx2", AVX2, nil, hardSwishAVX2Lanes)
