//go:build !purego

package arch

import "math"

// The amd64 quantised addition kernels (addquant_avx2_amd64.s,
// addquant_avx512_amd64.s), with the
// contract of addQuantInt8Generic and addQuantUint8Generic. The wrapper
// broadcasts the parameters into a quantAddVec once per call and leaves
// the cases the vector code does not reproduce (a multiplier of
// MinInt32, whose saturating square it skips; a total shift outside
// [-31, 31]) to the portable code.

// quantAddVec is the kernels' parameter block: every int32 parameter in
// eight lanes, and the shift counts as VPSLLD/VPSRAD read them from
// memory (a 64-bit count in the low quadword of 16 bytes). Offsets are
// fixed by addquant_avx2_amd64.s.
type quantAddVec struct {
	off1, off2            [8]int32  //   0,  32
	m1, mask1, thr1       [8]int32  //  64,  96, 128
	m2, mask2, thr2       [8]int32  // 160, 192, 224
	mo, masko, thro       [8]int32  // 256, 288, 320
	outOff, lo, hi, round [8]int32  // 352, 384, 416, 448 (round: 2^30 in each qword)
	left1, right1         [2]uint64 // 480, 496
	left2, right2         [2]uint64 // 512, 528
	lefto, righto         [2]uint64 // 544, 560
	sign                  [8]int32  // 576: 1, or -1 to subtract (VPSIGND)
}

// quantAddStage fills one stage's lanes for MBQM(x·2^pre, mult, shift);
// ok is false when the vector code cannot reproduce it.
func quantAddStage(m, mask, thr *[8]int32, left, right *[2]uint64, mult int32, pre, shift int) bool {
	l, r := pre, 0
	if shift > 0 {
		l += shift
	} else {
		r = -shift
	}
	if mult == math.MinInt32 || l > 31 || r > 31 {
		return false
	}
	mk := int32(1)<<r - 1
	for i := range m {
		m[i], mask[i], thr[i] = mult, mk, mk>>1
	}
	left[0], right[0] = uint64(l), uint64(r)
	return true
}

func (v *quantAddVec) set(p *QuantAdd) bool {
	if !quantAddStage(&v.m1, &v.mask1, &v.thr1, &v.left1, &v.right1, p.In1Mult, p.LeftShift, p.In1Shift) ||
		!quantAddStage(&v.m2, &v.mask2, &v.thr2, &v.left2, &v.right2, p.In2Mult, p.LeftShift, p.In2Shift) ||
		!quantAddStage(&v.mo, &v.masko, &v.thro, &v.lefto, &v.righto, p.OutMult, 0, p.OutShift) {
		return false
	}
	for i := range v.off1 {
		v.off1[i], v.off2[i], v.outOff[i], v.lo[i], v.hi[i] = p.In1Offset, p.In2Offset, p.OutOffset, p.Lo, p.Hi
	}
	for i := 0; i < 8; i += 2 {
		v.round[i] = 1 << 30
	}
	for i := range v.sign {
		v.sign[i] = 1
		if p.Subtract {
			v.sign[i] = -1
		}
	}
	return true
}

// addQuantInt8AVX2Asm and addQuantUint8AVX2Asm do the first n elements
// (a multiple of 8).
//
//go:noescape
func addQuantInt8AVX2Asm(dst, a, b *int8, n int, v *quantAddVec)

//go:noescape
func addQuantUint8AVX2Asm(dst, a, b *uint8, n int, v *quantAddVec)

func addQuantInt8AVX2(dst, a, b []int8, p *QuantAdd) {
	var v quantAddVec
	if len(dst) < 8 || !v.set(p) {
		addQuantInt8Generic(dst, a, b, p)
		return
	}
	n := len(dst) &^ 7
	addQuantInt8AVX2Asm(&dst[0], &a[0], &b[0], n, &v)
	addQuantInt8Generic(dst[n:], a[n:], b[n:], p)
}

func addQuantUint8AVX2(dst, a, b []uint8, p *QuantAdd) {
	var v quantAddVec
	if len(dst) < 8 || !v.set(p) {
		addQuantUint8Generic(dst, a, b, p)
		return
	}
	n := len(dst) &^ 7
	addQuantUint8AVX2Asm(&dst[0], &a[0], &b[0], n, &v)
	addQuantUint8Generic(dst[n:], a[n:], b[n:], p)
}

// addQuantInt8AVX512Asm and addQuantUint8AVX512Asm do all n elements,
// sixteen at a time and then an opmask step.
//
//go:noescape
func addQuantInt8AVX512Asm(dst, a, b *int8, n int, v *quantAddVec)

//go:noescape
func addQuantUint8AVX512Asm(dst, a, b *uint8, n int, v *quantAddVec)

func addQuantInt8AVX512(dst, a, b []int8, p *QuantAdd) {
	var v quantAddVec
	if len(dst) == 0 || !v.set(p) {
		addQuantInt8Generic(dst, a, b, p)
		return
	}
	addQuantInt8AVX512Asm(&dst[0], &a[0], &b[0], len(dst), &v)
}

func addQuantUint8AVX512(dst, a, b []uint8, p *QuantAdd) {
	var v quantAddVec
	if len(dst) == 0 || !v.set(p) {
		addQuantUint8Generic(dst, a, b, p)
		return
	}
	addQuantUint8AVX512Asm(&dst[0], &a[0], &b[0], len(dst), &v)
}

var (
	_ = addQuantInt8Impls.add("avx2", AVX2, nil, addQuantInt8AVX2)
	_ = addQuantUint8Impls.add("avx2", AVX2, nil, addQuantUint8AVX2)
	_ = addQuantInt8Impls.add("avx512", AVX512, nil, addQuantInt8AVX512)
	_ = addQuantUint8Impls.add("avx512", AVX512, nil, addQuantUint8AVX512)
)
