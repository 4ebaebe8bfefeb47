//go:build !purego

package arch

// The AVX2 kernels of eigenTail (eigentail_avx2_amd64.s) and their
// registration.

//go:noescape
func eigenPacketAVX2(dst *float32, ldd int, a *float32, lda int, w, bias *float32, m, kb, flags int, lo, hi float32)

//go:noescape
func eigenRemAVX2(dst *float32, ldd int, a *float32, lda int, w, bias *float32, m, kb int, mask *int32, flags int, lo, hi float32)

// eigenTailAVX2 checks the bounds eigenTailGeneric would and runs the
// packet and the remainder kernels.
func eigenTailAVX2(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, kb, rem, flags int, lo, hi float32) {
	if m <= 0 || kb <= 0 {
		return
	}
	if rem < 0 || rem > 3 {
		panic("arch.eigenTail: remainder channels outside 0..3")
	}
	_ = a[(m-1)*lda+kb-1]
	_ = w[GemmBlock*(kb-1)+7]
	r0 := 0
	if flags&tailPacket != 0 {
		_ = dst[(m-1)*ldd+3]
		_ = bias[3]
		eigenPacketAVX2(&dst[0], ldd, &a[0], lda, &w[0], &bias[0], m, kb, flags, lo, hi)
		r0 = 4
	}
	if flags&tailRem != 0 && rem > 0 {
		_ = dst[(m-1)*ldd+r0+rem-1]
		_ = bias[r0+rem-1]
		eigenRemAVX2(&dst[r0], ldd, &a[0], lda, &w[r0], &bias[r0], m, kb, &tailMask32[8-rem], flags, lo, hi)
	}
}

var _ = eigenTailImpls.add("avx2", AVX2, nil, eigenTailAVX2)
