//go:build !purego

package arch

import "math"

// The AVX2 kernel of LogisticEigenF32's packets
// (logistic_eigen_avx2_amd64.s) and its registration.

//go:noescape
func logisticEigenAVX2(dst, x *float32, n int, c *[13][8]uint32)

// logisticEigenConsts are the kernel's constants, those of
// logisticEigenPacket, each in 8 lanes.
var logisticEigenConsts = func() (t [13][8]uint32) {
	f := math.Float32bits
	vals := [...]uint32{
		f(logLo), f(logHi), f(0.5), f(logLog2e), f(logC1), f(logC2),
		f(logP2), f(logP3), f(logP4), f(logP5), f(1), 127, f(0x1p-126),
	}
	for i, v := range vals {
		for j := range t[i] {
			t[i][j] = v
		}
	}
	return t
}()

// logisticEigenAVX2Packets runs the kernel on the multiples of 8 and the
// portable packet function on the rest.
func logisticEigenAVX2Packets(dst, x []float32) {
	n8 := len(x) &^ 7
	if n8 > 0 {
		logisticEigenAVX2(&dst[0], &x[0], n8, &logisticEigenConsts)
	}
	logisticEigenPacketsGeneric(dst[n8:], x[n8:])
}

var _ = logisticEigenImpls.add("avx2", AVX2, nil, logisticEigenAVX2Packets)

// logisticEigenAVX512 is the AVX-512 kernel (logistic_eigen_avx512_amd64.s)
// for n a multiple of 16, reading each constant's first lane.
//
//go:noescape
func logisticEigenAVX512(dst, x *float32, n int, c *[13][8]uint32)

// logisticEigenAVX512Packets runs the AVX-512 kernel on the multiples of
// 16 and the AVX2 one on the rest.
func logisticEigenAVX512Packets(dst, x []float32) {
	n16 := len(x) &^ 15
	if n16 > 0 {
		logisticEigenAVX512(&dst[0], &x[0], n16, &logisticEigenConsts)
	}
	logisticEigenAVX2Packets(dst[n16:len(x)], x[n16:])
}

var _ = logisticEigenImpls.add("avx512", AVX512, nil, logisticEigenAVX512Packets)
