//go:build !purego

package arch

// The amd64 quantised PRELU kernels (preluquant_avx2_amd64.s), with the
// contract of preluQuantInt8Generic and preluQuantUint8Generic. The
// wrapper broadcasts the parameters into a quantPReluVec once per call
// and leaves what the vector code does not reproduce (a multiplier of
// MinInt32, a total shift outside [-31, 31]) and the last len%8
// elements to the portable code.

// quantPReluVec is the kernels' parameter block (offsets fixed by
// preluquant_avx2_amd64.s); the stages are laid out as quantAddStage
// fills them.
type quantPReluVec struct {
	inOff, aOff           [8]int32  //   0,  32
	m1, mask1, thr1       [8]int32  //  64,  96, 128 (v ≥ 0)
	m2, mask2, thr2       [8]int32  // 160, 192, 224 (v < 0)
	outOff, lo, hi, round [8]int32  // 256, 288, 320, 352 (round: 2^30 in each qword)
	left1, right1         [2]uint64 // 384, 400
	left2, right2         [2]uint64 // 416, 432
}

func (v *quantPReluVec) set(p *QuantPRelu) bool {
	if !quantAddStage(&v.m1, &v.mask1, &v.thr1, &v.left1, &v.right1, p.PosMult, 0, p.PosShift) ||
		!quantAddStage(&v.m2, &v.mask2, &v.thr2, &v.left2, &v.right2, p.NegMult, 0, p.NegShift) {
		return false
	}
	for i := range v.inOff {
		v.inOff[i], v.aOff[i], v.outOff[i], v.lo[i], v.hi[i] = p.InOffset, p.AlphaOffset, p.OutOffset, p.Lo, p.Hi
	}
	for i := 0; i < 8; i += 2 {
		v.round[i] = 1 << 30
	}
	return true
}

// preluQuantInt8AVX2Asm and preluQuantUint8AVX2Asm do the first n
// elements (a multiple of 8).
//
//go:noescape
func preluQuantInt8AVX2Asm(dst, x, alpha *int8, n int, v *quantPReluVec)

//go:noescape
func preluQuantUint8AVX2Asm(dst, x, alpha *uint8, n int, v *quantPReluVec)

func preluQuantInt8AVX2(dst, x, alpha []int8, p *QuantPRelu) {
	var v quantPReluVec
	if len(dst) < 8 || !v.set(p) {
		preluQuantInt8Generic(dst, x, alpha, p)
		return
	}
	n := len(dst) &^ 7
	preluQuantInt8AVX2Asm(&dst[0], &x[0], &alpha[0], n, &v)
	preluQuantInt8Generic(dst[n:], x[n:], alpha[n:], p)
}

func preluQuantUint8AVX2(dst, x, alpha []uint8, p *QuantPRelu) {
	var v quantPReluVec
	if len(dst) < 8 || !v.set(p) {
		preluQuantUint8Generic(dst, x, alpha, p)
		return
	}
	n := len(dst) &^ 7
	preluQuantUint8AVX2Asm(&dst[0], &x[0], &alpha[0], n, &v)
	preluQuantUint8Generic(dst[n:], x[n:], alpha[n:], p)
}

var (
	_ = preluQuantInt8Impls.add("avx2", AVX2, nil, preluQuantInt8AVX2)
	_ = preluQuantUint8Impls.add("avx2", AVX2, nil, preluQuantUint8AVX2)
)
