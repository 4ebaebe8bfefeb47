//go:build !purego

package arch

// The arm64 NEON quantised addition, subtraction and multiplication kernels
// (addquant_neon_arm64.s), with the contracts of addQuantInt8Generic,
// addQuantUint8Generic, mulQuantInt8Generic and mulQuantUint8Generic.
// The wrappers broadcast the parameters into a quantNEONBlock once per
// call and leave a total shift outside [-31, 31] (where SSHL and SRSHL
// no longer match Go's shifts) and the last len%8 elements to the
// portable code. Unlike the AVX2 kernels they need no fallback for a
// multiplier of MinInt32: SQRDMULH saturates MinInt32·MinInt32 as
// SaturatingRoundingDoublingHighMul does.

// quantNEONBlock is the kernels' parameter block: every parameter in four
// lanes, in the register order of addquant_neon_arm64.s (V16-V29).
// Multiplication uses off1, off2, the out stage and the clamp.
type quantNEONBlock struct {
	off1, off2                    [4]int32
	left1, mult1, negRight1       [4]int32
	left2, mult2, negRight2       [4]int32
	leftOut, multOut, negRightOut [4]int32
	outOff, lo, hi                [4]int32
}

// neonStage fills one rescaling MBQM(x·2^pre, mult, shift); ok is false
// when the combined shifts leave [-31, 31].
func neonStage(left, mult, negRight *[4]int32, m int32, pre, shift int) bool {
	l, r := pre, 0
	if shift > 0 {
		l += shift
	} else {
		r = -shift
	}
	if l > 31 || r > 31 {
		return false
	}
	for i := range left {
		left[i], mult[i], negRight[i] = int32(l), m, int32(-r)
	}
	return true
}

func (v *quantNEONBlock) setCommon(off1, off2, outOff, lo, hi int32) {
	for i := range v.off1 {
		v.off1[i], v.off2[i], v.outOff[i], v.lo[i], v.hi[i] = off1, off2, outOff, lo, hi
	}
}

func (v *quantNEONBlock) setAdd(p *QuantAdd) bool {
	if !neonStage(&v.left1, &v.mult1, &v.negRight1, p.In1Mult, p.LeftShift, p.In1Shift) ||
		!neonStage(&v.left2, &v.mult2, &v.negRight2, p.In2Mult, p.LeftShift, p.In2Shift) ||
		!neonStage(&v.leftOut, &v.multOut, &v.negRightOut, p.OutMult, 0, p.OutShift) {
		return false
	}
	v.setCommon(p.In1Offset, p.In2Offset, p.OutOffset, p.Lo, p.Hi)
	return true
}

func (v *quantNEONBlock) setMul(p *QuantMul) bool {
	if !neonStage(&v.leftOut, &v.multOut, &v.negRightOut, p.Mult, 0, p.Shift) {
		return false
	}
	v.setCommon(p.In1Offset, p.In2Offset, p.OutOffset, p.Lo, p.Hi)
	return true
}

// The kernels do the first n elements (n > 0, a multiple of 8).
//
//go:noescape
func addQuantInt8NEONAsm(dst, a, b *int8, n int, v *quantNEONBlock)

//go:noescape
func addQuantUint8NEONAsm(dst, a, b *uint8, n int, v *quantNEONBlock)

//go:noescape
func subQuantInt8NEONAsm(dst, a, b *int8, n int, v *quantNEONBlock)

//go:noescape
func subQuantUint8NEONAsm(dst, a, b *uint8, n int, v *quantNEONBlock)

//go:noescape
func mulQuantInt8NEONAsm(dst, a, b *int8, n int, v *quantNEONBlock)

//go:noescape
func mulQuantUint8NEONAsm(dst, a, b *uint8, n int, v *quantNEONBlock)

func addQuantInt8NEON(dst, a, b []int8, p *QuantAdd) {
	var v quantNEONBlock
	n := len(dst) &^ 7
	if n == 0 || !v.setAdd(p) {
		addQuantInt8Generic(dst, a, b, p)
		return
	}
	if p.Subtract {
		subQuantInt8NEONAsm(&dst[0], &a[0], &b[0], n, &v)
	} else {
		addQuantInt8NEONAsm(&dst[0], &a[0], &b[0], n, &v)
	}
	addQuantInt8Generic(dst[n:], a[n:], b[n:], p)
}

func addQuantUint8NEON(dst, a, b []uint8, p *QuantAdd) {
	var v quantNEONBlock
	n := len(dst) &^ 7
	if n == 0 || !v.setAdd(p) {
		addQuantUint8Generic(dst, a, b, p)
		return
	}
	if p.Subtract {
		subQuantUint8NEONAsm(&dst[0], &a[0], &b[0], n, &v)
	} else {
		addQuantUint8NEONAsm(&dst[0], &a[0], &b[0], n, &v)
	}
	addQuantUint8Generic(dst[n:], a[n:], b[n:], p)
}

func mulQuantInt8NEON(dst, a, b []int8, p *QuantMul) {
	var v quantNEONBlock
	n := len(dst) &^ 7
	if n == 0 || !v.setMul(p) {
		mulQuantInt8Generic(dst, a, b, p)
		return
	}
	mulQuantInt8NEONAsm(&dst[0], &a[0], &b[0], n, &v)
	mulQuantInt8Generic(dst[n:], a[n:], b[n:], p)
}

func mulQuantUint8NEON(dst, a, b []uint8, p *QuantMul) {
	var v quantNEONBlock
	n := len(dst) &^ 7
	if n == 0 || !v.setMul(p) {
		mulQuantUint8Generic(dst, a, b, p)
		return
	}
	mulQuantUint8NEONAsm(&dst[0], &a[0], &b[0], n, &v)
	mulQuantUint8Generic(dst[n:], a[n:], b[n:], p)
}

var (
	_ = addQuantInt8Impls.add("neon", NEON, nil, addQuantInt8NEON)
	_ = addQuantUint8Impls.add("neon", NEON, nil, addQuantUint8NEON)
	_ = mulQuantInt8Impls.add("neon", NEON, nil, mulQuantInt8NEON)
	_ = mulQuantUint8Impls.add("neon", NEON, nil, mulQuantUint8NEON)
)
