//go:build !purego

package arch

// The arm64 NEON MinMaxF32, ScaleRoundInt8, DequantRowsF32 and
// MulAccOffsetInt8 kernels (quantfloats_neon_arm64.s), with the
// signatures and contracts of their portable twins, registered at the
// neon level (ASIMD is part of every arm64 CPU).

//go:noescape
func minMaxF32NEON(x []float32) (lo, hi float32, nan bool)

//go:noescape
func scaleRoundInt8NEON(dst []int8, x []float32, inv, zp float32, lo, hi int32)

// dequantRowsF32NEONAsm is DequantRowsF32 for m, n ≥ 1 with bias either
// a pointer to n values or nil.
//
//go:noescape
func dequantRowsF32NEONAsm(dst *float32, acc *int32, m, n int, corr *int32, scale, bias *float32)

func dequantRowsF32NEON(dst []float32, acc []int32, m, n int, corr []int32, scale, bias []float32) {
	var b *float32
	if bias != nil {
		b = &bias[0]
	}
	dequantRowsF32NEONAsm(&dst[0], &acc[0], m, n, &corr[0], &scale[0], b)
}

//go:noescape
func mulAccOffsetInt8NEON(acc []int32, w, x []int8, zp int32)

var (
	_ = minMaxF32Impls.add("neon", NEON, nil, minMaxF32NEON)
	_ = scaleRoundInt8Impls.add("neon", NEON, nil, scaleRoundInt8NEON)
	_ = dequantRowsF32Impls.add("neon", NEON, nil, dequantRowsF32NEON)
	_ = mulAccOffsetInt8Impls.add("neon", NEON, nil, mulAccOffsetInt8NEON)
)
