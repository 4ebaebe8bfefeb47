//go:build !purego

package arch

import "math"

// The amd64 sigmoid and tanh kernels (activation_avx2_amd64.s,
// activation_avx512_amd64.s) and their registration. They evaluate the
// formulas of activation_generic.go lane by lane, with fused multiply-adds
// in the polynomials and the range reduction.

//go:noescape
func sigmoidAVX2(dst, x []float32)

//go:noescape
func tanhAVX2(dst, x []float32)

//go:noescape
func sigmoidAVX512(dst, x []float32)

//go:noescape
func tanhAVX512(dst, x []float32)

// actConsts holds the constants of activation_generic.go, each repeated
// in 16 lanes (one ZMM, or two YMM loads), in the order of the act*
// offsets the assembly #defines (64 bytes apart). Building it from the Go
// constants keeps the portable and assembly versions on the same numbers.
var actConsts = func() (t [22][16]uint32) {
	f := func(v float32) uint32 { return math.Float32bits(v) }
	vals := [...]uint32{
		f(1), f(expMaxArg), f(expMinArg), f(expLog2e), f(expLn2Hi), f(expLn2Lo),
		f(expP0), f(expP1), f(expP2), f(expP3), f(expP4), f(expP5),
		127, 1 << 31, 1<<31 - 1,
		f(tanhSmall), f(tanhP0), f(tanhP1), f(tanhP2), f(tanhP3), f(tanhP4),
		f(2),
	}
	for i, v := range vals {
		for j := range t[i] {
			t[i][j] = v
		}
	}
	return t
}()

var (
	_ = sigmoidImpls.add("avx2", AVX2, nil, sigmoidAVX2)
	_ = sigmoidImpls.add("avx512", AVX512, nil, sigmoidAVX512)
	_ = tanhImpls.add("avx2", AVX2, nil, tanhAVX2)
	_ = tanhImpls.add("avx512", AVX512, nil, tanhAVX512)
)
