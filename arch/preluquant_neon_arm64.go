//go:build !purego

package arch

// The arm64 NEON quantised PRELU kernels (preluquant_neon_arm64.s), with
// the contract of preluQuantInt8Generic and preluQuantUint8Generic. The
// wrappers broadcast the parameters into a quantNEONBlock once per call
// and leave a total shift outside [-31, 31] and the last len%8 elements
// to the portable code (SQRDMULH saturates MinInt32·MinInt32 as the
// portable code does, so no multiplier needs a fallback).

func (v *quantNEONBlock) setPRelu(p *QuantPRelu) bool {
	if !neonStage(&v.left1, &v.mult1, &v.negRight1, p.PosMult, 0, p.PosShift) ||
		!neonStage(&v.left2, &v.mult2, &v.negRight2, p.NegMult, 0, p.NegShift) {
		return false
	}
	v.setCommon(p.InOffset, p.AlphaOffset, p.OutOffset, p.Lo, p.Hi)
	return true
}

// The kernels do the first n elements (n > 0, a multiple of 8).
//
//go:noescape
func preluQuantInt8NEONAsm(dst, x, alpha *int8, n int, v *quantNEONBlock)

//go:noescape
func preluQuantUint8NEONAsm(dst, x, alpha *uint8, n int, v *quantNEONBlock)

func preluQuantInt8NEON(dst, x, alpha []int8, p *QuantPRelu) {
	var v quantNEONBlock
	n := len(dst) &^ 7
	if n == 0 || !v.setPRelu(p) {
		preluQuantInt8Generic(dst, x, alpha, p)
		return
	}
	preluQuantInt8NEONAsm(&dst[0], &x[0], &alpha[0], n, &v)
	preluQuantInt8Generic(dst[n:], x[n:], alpha[n:], p)
}

func preluQuantUint8NEON(dst, x, alpha []uint8, p *QuantPRelu) {
	var v quantNEONBlock
	n := len(dst) &^ 7
	if n == 0 || !v.setPRelu(p) {
		preluQuantUint8Generic(dst, x, alpha, p)
		return
	}
	preluQuantUint8NEONAsm(&dst[0], &x[0], &alpha[0], n, &v)
	preluQuantUint8Generic(dst[n:], x[n:], alpha[n:], p)
}

var (
	_ = preluQuantInt8Impls.add("neon", NEON, nil, preluQuantInt8NEON)
	_ = preluQuantUint8Impls.add("neon", NEON, nil, preluQuantUint8NEON)
)
