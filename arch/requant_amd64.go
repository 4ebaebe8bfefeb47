//go:build !purego

package arch

import "math"

// The amd64 requantisation kernels (requant_avx2_amd64.s,
// requant_avx512_amd64.s). The Go wrappers compute the shift parameters
// once and leave the rare cases the vector code does not reproduce
// (multiplier MinInt32, whose saturating square the kernels skip;
// |shift| > 31) to the portable code.

// requantAccInt16AVX2Asm does the first n (a multiple of 8) elements with
// x·2^left, the rounding right shift by right, its mask 2^right-1 and
// threshold mask>>1.
//
//go:noescape
func requantAccInt16AVX2Asm(dst []int16, acc []int32, n int, left, right uint64, mult, mask, thr int32)

// requantAccInt16AVX512Asm does all n elements (opmask tail).
//
//go:noescape
func requantAccInt16AVX512Asm(dst []int16, acc []int32, n int, left, right uint64, mult, mask, thr int32)

// requantInt8AVX2Asm and requantInt8AVX512Asm are the int8 variants
// (first n, a multiple of 8; all n), with the tie mask tie (tieAway,
// tieUp).
//
//go:noescape
func requantInt8AVX2Asm(dst []int8, acc []int32, n int, left, right uint64, mult, mask, thr, zp, lo, hi, tie int32)

//go:noescape
func requantInt8AVX512Asm(dst []int8, acc []int32, n int, left, right uint64, mult, mask, thr, zp, lo, hi, tie int32)

// requantShifts splits shift as MultiplyByQuantizedMultiplier does; ok is
// false outside [-31, 31].
func requantShifts(shift int) (left, right uint64, mask, thr int32, ok bool) {
	if shift > 31 || shift < -31 {
		return 0, 0, 0, 0, false
	}
	if shift > 0 {
		left = uint64(shift)
	} else {
		right = uint64(-shift)
	}
	mask = int32(1)<<right - 1
	return left, right, mask, mask >> 1, true
}

func requantAccInt16AVX2(dst []int16, acc []int32, multiplier int32, shift int) {
	left, right, mask, thr, ok := requantShifts(shift)
	n := len(acc) &^ 7
	if !ok || multiplier == math.MinInt32 {
		requantAccInt16Generic(dst, acc, multiplier, shift)
		return
	}
	if n > 0 {
		requantAccInt16AVX2Asm(dst, acc, n, left, right, multiplier, mask, thr)
	}
	if rem := len(acc) - n; rem > 0 {
		// The last len%8 through one more vector step on copies.
		var a [8]int32
		var d [8]int16
		copy(a[:], acc[n:])
		copy(d[:], dst[n:len(acc)])
		requantAccInt16AVX2Asm(d[:], a[:], 8, left, right, multiplier, mask, thr)
		copy(dst[n:len(acc)], d[:rem])
	}
}

func requantAccInt16AVX512(dst []int16, acc []int32, multiplier int32, shift int) {
	left, right, mask, thr, ok := requantShifts(shift)
	if !ok || multiplier == math.MinInt32 {
		requantAccInt16Generic(dst, acc, multiplier, shift)
		return
	}
	if len(acc) > 0 {
		requantAccInt16AVX512Asm(dst, acc, len(acc), left, right, multiplier, mask, thr)
	}
}

func requantInt8AVX2(dst []int8, acc []int32, multiplier int32, shift int, zp, lo, hi, tie int32) {
	left, right, mask, thr, ok := requantShifts(shift)
	if !ok || multiplier == math.MinInt32 {
		requantInt8Generic(dst, acc, multiplier, shift, zp, lo, hi, tie)
		return
	}
	n := len(acc) &^ 7
	if n > 0 {
		requantInt8AVX2Asm(dst, acc, n, left, right, multiplier, mask, thr, zp, lo, hi, tie)
	}
	if rem := len(acc) - n; rem > 0 {
		var a [8]int32
		var d [8]int8
		copy(a[:], acc[n:])
		requantInt8AVX2Asm(d[:], a[:], 8, left, right, multiplier, mask, thr, zp, lo, hi, tie)
		copy(dst[n:len(acc)], d[:rem])
	}
}

func requantInt8AVX512(dst []int8, acc []int32, multiplier int32, shift int, zp, lo, hi, tie int32) {
	left, right, mask, thr, ok := requantShifts(shift)
	if !ok || multiplier == math.MinInt32 {
		requantInt8Generic(dst, acc, multiplier, shift, zp, lo, hi, tie)
		return
	}
	if len(acc) > 0 {
		requantInt8AVX512Asm(dst, acc, len(acc), left, right, multiplier, mask, thr, zp, lo, hi, tie)
	}
}

var (
	_ = requantInt8Impls.add("avx2", AVX2, nil, requantInt8AVX2)
	_ = requantInt8Impls.add("avx512", AVX512, nil, requantInt8AVX512)
	_ = requantAccInt16Impls.add("avx2", AVX2, nil, requantAccInt16AVX2)
	_ = requantAccInt16Impls.add("avx512", AVX512, nil, requantAccInt16AVX512)
)
