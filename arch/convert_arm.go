//go:build !purego && arm.7

package arch

// The 32-bit ARM widening conversion (convert_neon_arm.s), registered at
// the neon level in GOARM=7 builds; the assembly does the multiple-of-8
// prefix and the portable code the rest (the same bits: the conversion is
// exact below 2^24 and rounds as VCVT does above).

//go:noescape
func int8ToF32NEONAsm(dst *float32, src *byte, n int, offset int32, unsigned bool)

func int8ToF32NEON(dst []float32, src []byte, offset int32, unsigned bool) {
	n := len(src) &^ 7
	if n > 0 {
		int8ToF32NEONAsm(&dst[0], &src[0], n, offset, unsigned)
	}
	int8ToF32Generic(dst[n:len(src)], src[n:], offset, unsigned)
}

var _ = int8ToF32Impls.add("neon", NEON, nil, int8ToF32NEON)
