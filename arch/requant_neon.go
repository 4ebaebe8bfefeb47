//go:build !purego && (arm64 || arm.7)

package arch

// The NEON requantisation kernels of arm64 (requant_neon_arm64.s) and of
// 32-bit ARM in GOARM=7 builds (requant_neon_arm.s), which share these
// declarations and wrappers (the instructions have the same semantics in
// both instruction sets: VSHL/VQRDMULH/VQADD/VRSHL on ARMv7): TFLite's
// MultiplyByQuantizedMultiplier on four lanes with SSHL (the wrapping
// x·2^left), SQRDMULH (exactly gemmlowp's saturating rounding doubling
// high multiply, MinInt32·MinInt32 included) and gemmlowp's NEON
// rounding divide by 2^right (subtract one from negative values when
// right > 0, saturating, then SRSHL's round-half-up shift), which rounds
// ties away from zero as the scalar form does; without the fix-up (the
// tie mask 0) it is MultiplyByQuantizedMultiplierUp. The kernels do multiples
// of eight elements; the Go wrappers send the rest, and shifts outside
// [-31, 31], to the portable code, which gives the same bits.

// requantAccInt16NEONAsm does the first n (a multiple of 8, > 0) elements
// with the left shift left and the right shift as the negative count
// negRight.
//
//go:noescape
func requantAccInt16NEONAsm(dst []int16, acc []int32, n int, mult, left, negRight int32)

// requantInt8NEONAsm does the first n (a multiple of 8, > 0) elements
// with the tie mask tie (tieAway, tieUp).
//
//go:noescape
func requantInt8NEONAsm(dst []int8, acc []int32, n int, mult, left, negRight, zeroPoint, lo, hi, tie int32)

// requantShiftsNEON splits shift as MultiplyByQuantizedMultiplier does;
// ok is false outside [-31, 31].
func requantShiftsNEON(shift int) (left, negRight int32, ok bool) {
	if shift > 31 || shift < -31 {
		return 0, 0, false
	}
	if shift > 0 {
		return int32(shift), 0, true
	}
	return 0, int32(shift), true
}

func requantAccInt16NEON(dst []int16, acc []int32, multiplier int32, shift int) {
	left, negRight, ok := requantShiftsNEON(shift)
	n := len(acc) &^ 7
	if !ok {
		n = 0
	}
	if n > 0 {
		requantAccInt16NEONAsm(dst, acc, n, multiplier, left, negRight)
	}
	if n < len(acc) {
		requantAccInt16Generic(dst[n:], acc[n:], multiplier, shift)
	}
}

func requantInt8NEON(dst []int8, acc []int32, multiplier int32, shift int, zeroPoint, lo, hi, tie int32) {
	left, negRight, ok := requantShiftsNEON(shift)
	n := len(acc) &^ 7
	if !ok {
		n = 0
	}
	if n > 0 {
		requantInt8NEONAsm(dst, acc, n, multiplier, left, negRight, zeroPoint, lo, hi, tie)
	}
	if n < len(acc) {
		requantInt8Generic(dst[n:], acc[n:], multiplier, shift, zeroPoint, lo, hi, tie)
	}
}

var (
	_ = requantAccInt16Impls.add("neon", NEON, nil, requantAccInt16NEON)
	_ = requantInt8Impls.add("neon", NEON, nil, requantInt8NEON)
)
