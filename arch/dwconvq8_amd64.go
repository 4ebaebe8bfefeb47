//go:build !purego

package arch

import "unsafe"

// The AVX-512 byte depthwise kernels (dwconvq8_avx512_amd64.s): the
// requantising kernel needs VNNI (VPDPBUSD), the interleave VBMI
// (VPERMI2B).

//go:noescape
func dwq8VNNI(dst *byte, x *byte, w *int8, bias *int32, a *dwq8Args)

//go:noescape
func dwq8IlvVBMI(q *byte, r0, r1, r2, r3 *byte, n int, flip uint64, tbl *[4][64]byte)

// The field offsets the assembly reads (Q_* there).
var (
	_ = [1]struct{}{}[unsafe.Offsetof(dwq8Args{}.w2)-64]
	_ = [1]struct{}{}[unsafe.Offsetof(dwq8Args{}.qStride)-80]
	_ = [1]struct{}{}[unsafe.Offsetof(dwq8Args{}.rqFlags)-104]
	_ = [1]struct{}{}[unsafe.Offsetof(dwq8Args{}.w2blk)-112]
)

// dwq8Tables are the VPERMI2B / VPERMI2W indexes of the interleave: bytes
// 0-31 (row 0 in the first table, row 1 in the second) in pairs, bytes
// 32-63 in pairs, then words 0-15 and 16-31 of two pair vectors in pairs.
var dwq8Tables = func() (t [4][64]byte) {
	for i := 0; i < 32; i++ {
		t[0][2*i], t[0][2*i+1] = byte(i), byte(64+i)
		t[1][2*i], t[1][2*i+1] = byte(32+i), byte(96+i)
	}
	for i := 0; i < 16; i++ {
		t[2][4*i], t[2][4*i+2] = byte(i), byte(32+i)
		t[3][4*i], t[3][4*i+2] = byte(16+i), byte(48+i)
	}
	return t
}()

func dwq8VNNIGo(dst []byte, x []byte, w, w2 []int8, w2Blocks []byte, bias []int32, a dwq8Args) {
	if a.groups == 0 || a.tw == 0 {
		dwq8Generic(dst, x, w, w2, w2Blocks, bias, a)
		return
	}
	if w2 != nil {
		a.w2 = int(uintptr(unsafe.Pointer(&w2[0])) - uintptr(unsafe.Pointer(&w[0])))
		if w2Blocks != nil {
			a.w2blk = &w2Blocks[0]
		}
		if a.w2 == 0 {
			dwq8Generic(dst, x, w, w2, w2Blocks, bias, a)
			return
		}
	}
	dwq8VNNI(&dst[0], &x[0], &w[0], &bias[0], &a)
}

func dwq8IlvVBMIGo(q []byte, r0, r1, r2, r3 []byte, flip byte) {
	n := len(r0) &^ 63
	if n > 0 {
		dwq8IlvVBMI(&q[0], &r0[0], &r1[0], &r2[0], &r3[0], n/64, uint64(flip)*0x0101010101010101, &dwq8Tables)
	}
	if n < len(r0) {
		dwq8IlvGeneric(q[4*n:], r0[n:], r1[n:], r2[n:], r3[n:], flip)
	}
}

var (
	_ = dwq8Impls.add("avx512vnni", AVX512, []Feature{FeatAVX512VNNI}, dwq8VNNIGo)
	_ = dwq8IlvImpls.add("avx512vbmi", AVX512, []Feature{FeatAVX512VBMI}, dwq8IlvVBMIGo)
)
