//go:build !purego

package arch

import (
	"math"
	"unsafe"
)

// The amd64 float32 quantisation kernel (quantize_avx2_amd64.s), with the
// contract of quantizeF32Generic: the assembly does the first len(x)&^7
// elements, the portable code the rest.

// quantizeVec is the kernel's parameter block, offsets fixed by
// quantize_avx2_amd64.s: the scale, 0.5, 1.0, the sign and magnitude
// masks in four float64 lanes; the zero point and the clamp bounds in
// eight int32 lanes.
type quantizeVec struct {
	scale, half, one, sign, abs [4]uint64 //   0,  32,  64,  96, 128
	zp, lo, hi                  [8]int32  // 160, 192, 224
}

//go:noescape
func quantizeF32AVX2Asm(dst unsafe.Pointer, x *float32, n int, v *quantizeVec, kind int)

func quantizeF32AVX2(dst unsafe.Pointer, x []float32, p *QuantizeF32Params, kind int) {
	n := len(x) &^ 7
	if n > 0 {
		var v quantizeVec
		for i := range v.scale {
			v.scale[i] = math.Float64bits(p.Scale)
			v.half[i] = math.Float64bits(0.5)
			v.one[i] = math.Float64bits(1)
			v.sign[i] = 1 << 63
			v.abs[i] = 1<<63 - 1
		}
		for i := range v.zp {
			v.zp[i], v.lo[i], v.hi[i] = p.ZeroPoint, p.Lo, p.Hi
		}
		quantizeF32AVX2Asm(dst, &x[0], n, &v, kind)
	}
	size := [...]uintptr{qkInt8: 1, qkUint8: 1, qkInt16: 2}[kind]
	quantizeF32Generic(unsafe.Add(dst, uintptr(n)*size), x[n:], p, kind)
}

var _ = quantizeF32Impls.add("avx2", AVX2, nil, quantizeF32AVX2)
