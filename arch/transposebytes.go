package arch

import "encoding/binary"

// Byte matrix transposes in blocks of 8×8: the tiles of TRANSPOSE's int8,
// uint8 and bool matrix transposes (ops/builtin transpose.go). Portable
// code below (eight little-endian words transposed in registers), an
// amd64 twin in transposebytes_amd64.s (byte, word and dword unpacks).

var (
	transposeBytes8      func(dst []byte, ldd int, src []byte, lds int, h, w int)
	transposeBytes8Impls = newImpls("TransposeBytes8", &transposeBytes8, transposeBytes8Generic)
)

// TransposeBytes8 sets dst[r·ldd + c] = src[c·lds + r] for r < h, c < w:
// the w×h matrix src (row stride lds) transposed into the h×w matrix dst
// (row stride ldd). h and w must be multiples of 8, ldd ≥ w and lds ≥ h,
// and the slices long enough for the last element; it panics otherwise.
// dst and src must not overlap. Every implementation writes the same
// bytes, and nothing outside the h×w elements.
func TransposeBytes8(dst []byte, ldd int, src []byte, lds int, h, w int) {
	if h <= 0 || w <= 0 {
		return
	}
	if h%8 != 0 || w%8 != 0 || ldd < w || lds < h {
		panic("arch.TransposeBytes8: sizes not multiples of 8 or strides shorter than the rows")
	}
	_ = dst[(h-1)*ldd+w-1]
	_ = src[(w-1)*lds+h-1]
	transposeBytes8(dst, ldd, src, lds, h, w)
}

func transposeBytes8Generic(dst []byte, ldd int, src []byte, lds int, h, w int) {
	le := binary.LittleEndian
	for c0 := 0; c0 < w; c0 += 8 {
		for r0 := 0; r0 < h; r0 += 8 {
			s := src[c0*lds+r0:]
			w0, w1, w2, w3 := le.Uint64(s), le.Uint64(s[lds:]), le.Uint64(s[2*lds:]), le.Uint64(s[3*lds:])
			w4, w5, w6, w7 := le.Uint64(s[4*lds:]), le.Uint64(s[5*lds:]), le.Uint64(s[6*lds:]), le.Uint64(s[7*lds:])
			w0, w1, w2, w3, w4, w5, w6, w7 = transpose8x8(w0, w1, w2, w3, w4, w5, w6, w7)
			d := dst[r0*ldd+c0:]
			le.PutUint64(d, w0)
			le.PutUint64(d[ldd:], w1)
			le.PutUint64(d[2*ldd:], w2)
			le.PutUint64(d[3*ldd:], w3)
			le.PutUint64(d[4*ldd:], w4)
			le.PutUint64(d[5*ldd:], w5)
			le.PutUint64(d[6*ldd:], w6)
			le.PutUint64(d[7*ldd:], w7)
		}
	}
}

// transpose8x8 transposes the 8×8 byte matrix whose row k is wk
// (little-endian: byte j of wk is element (k, j)) and returns its rows,
// by swapping the off-diagonal 4×4, then 2×2, then 1×1 blocks.
func transpose8x8(w0, w1, w2, w3, w4, w5, w6, w7 uint64) (_, _, _, _, _, _, _, _ uint64) {
	const (
		m32 = 0x00000000ffffffff
		m16 = 0x0000ffff0000ffff
		m8  = 0x00ff00ff00ff00ff
	)
	w0, w4 = w0&m32|w4<<32, w0>>32|w4&^m32
	w1, w5 = w1&m32|w5<<32, w1>>32|w5&^m32
	w2, w6 = w2&m32|w6<<32, w2>>32|w6&^m32
	w3, w7 = w3&m32|w7<<32, w3>>32|w7&^m32
	w0, w2 = w0&m16|(w2&m16)<<16, (w0>>16)&m16|w2&^m16
	w1, w3 = w1&m16|(w3&m16)<<16, (w1>>16)&m16|w3&^m16
	w4, w6 = w4&m16|(w6&m16)<<16, (w4>>16)&m16|w6&^m16
	w5, w7 = w5&m16|(w7&m16)<<16, (w5>>16)&m16|w7&^m16
	w0, w1 = w0&m8|(w1&m8)<<8, (w0>>8)&m8|w1&^m8
	w2, w3 = w2&m8|(w3&m8)<<8, (w2>>8)&m8|w3&^m8
	w4, w5 = w4&m8|(w5&m8)<<8, (w4>>8)&m8|w5&^m8
	w6, w7 = w6&m8|(w7&m8)<<8, (w6>>8)&m8|w7&^m8
	return w0, w1, w2, w3, w4, w5, w6, w7
}
