//go:build !purego

package arch

// The amd64 quantised multiplication kernels (mulquant_avx2_amd64.s,
// mulquant_avx512_amd64.s),
// with the contract of mulQuantInt8Generic and mulQuantUint8Generic. As
// for quantised addition, the wrapper broadcasts the parameters once per
// call and leaves a multiplier of MinInt32 or a shift outside [-31, 31]
// to the portable code.

// quantMulVec is the kernels' parameter block (offsets fixed by
// mulquant_avx2_amd64.s).
type quantMulVec struct {
	off1, off2            [8]int32  //   0,  32
	m, mask, thr          [8]int32  //  64,  96, 128
	outOff, lo, hi, round [8]int32  // 160, 192, 224, 256
	left, right           [2]uint64 // 288, 304
}

func (v *quantMulVec) set(p *QuantMul) bool {
	var left, right [2]uint64
	if !quantAddStage(&v.m, &v.mask, &v.thr, &left, &right, p.Mult, 0, p.Shift) {
		return false
	}
	v.left, v.right = left, right
	for i := range v.off1 {
		v.off1[i], v.off2[i], v.outOff[i], v.lo[i], v.hi[i] = p.In1Offset, p.In2Offset, p.OutOffset, p.Lo, p.Hi
	}
	for i := 0; i < 8; i += 2 {
		v.round[i] = 1 << 30
	}
	return true
}

// mulQuantInt8AVX2Asm and mulQuantUint8AVX2Asm do the first n elements
// (a multiple of 8).
//
//go:noescape
func mulQuantInt8AVX2Asm(dst, a, b *int8, n int, v *quantMulVec)

//go:noescape
func mulQuantUint8AVX2Asm(dst, a, b *uint8, n int, v *quantMulVec)

func mulQuantInt8AVX2(dst, a, b []int8, p *QuantMul) {
	var v quantMulVec
	if len(dst) < 8 || !v.set(p) {
		mulQuantInt8Generic(dst, a, b, p)
		return
	}
	n := len(dst) &^ 7
	mulQuantInt8AVX2Asm(&dst[0], &a[0], &b[0], n, &v)
	mulQuantInt8Generic(dst[n:], a[n:], b[n:], p)
}

func mulQuantUint8AVX2(dst, a, b []uint8, p *QuantMul) {
	var v quantMulVec
	if len(dst) < 8 || !v.set(p) {
		mulQuantUint8Generic(dst, a, b, p)
		return
	}
	n := len(dst) &^ 7
	mulQuantUint8AVX2Asm(&dst[0], &a[0], &b[0], n, &v)
	mulQuantUint8Generic(dst[n:], a[n:], b[n:], p)
}

// mulQuantInt8AVX512Asm and mulQuantUint8AVX512Asm do all n elements,
// sixteen at a time and then an opmask step.
//
//go:noescape
func mulQuantInt8AVX512Asm(dst, a, b *int8, n int, v *quantMulVec)

//go:noescape
func mulQuantUint8AVX512Asm(dst, a, b *uint8, n int, v *quantMulVec)

func mulQuantInt8AVX512(dst, a, b []int8, p *QuantMul) {
	var v quantMulVec
	if len(dst) == 0 || !v.set(p) {
		mulQuantInt8Generic(dst, a, b, p)
		return
	}
	mulQuantInt8AVX512Asm(&dst[0], &a[0], &b[0], len(dst), &v)
}

func mulQuantUint8AVX512(dst, a, b []uint8, p *QuantMul) {
	var v quantMulVec
	if len(dst) == 0 || !v.set(p) {
		mulQuantUint8Generic(dst, a, b, p)
		return
	}
	mulQuantUint8AVX512Asm(&dst[0], &a[0], &b[0], len(dst), &v)
}

var (
	_ = mulQuantInt8Impls.add("avx2", AVX2, nil, mulQuantInt8AVX2)
	_ = mulQuantUint8Impls.add("avx2", AVX2, nil, mulQuantUint8AVX2)
	_ = mulQuantInt8Impls.add("avx512", AVX512, nil, mulQuantInt8AVX512)
	_ = mulQuantUint8Impls.add("avx512", AVX512, nil, mulQuantUint8AVX512)
)
