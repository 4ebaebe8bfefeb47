package builtin

import "github.com/tflrun/tflrun/ops"

// The packed sub-byte integer types (Int4, Uint4, Int2) are stored densely
// at run time as in constant buffers: element i occupies bits
// b·(i mod 8/b) .. of byte i·b/8, the first element in the lowest bits
// (TFLite's tensor_utils::PackInt8IntoDenseInt and UnpackPackedIntToInt8).
// Int4 and Int2 elements are sign-extended when read, Uint4 ones are not.

// loadPacked reads element i of an Int4, Uint4 or Int2 tensor's data.
func loadPacked(typ ops.DataType, data []byte, i int) int32 {
	switch typ {
	case ops.Int2:
		b := int8(data[i/4] << (6 - 2*uint(i%4)))
		return int32(b >> 6)
	case ops.Uint4:
		return int32(data[i/2] >> (4 * uint(i%2)) & 0x0f)
	}
	b := int8(data[i/2] << (4 - 4*uint(i%2)))
	return int32(b >> 4)
}

// storePacked writes the low bits of v as element i of an Int4, Uint4 or
// Int2 tensor's data, leaving the byte's other elements as they are.
func storePacked(typ ops.DataType, data []byte, i int, v int32) {
	if typ == ops.Int2 {
		sh := 2 * uint(i%4)
		data[i/4] = data[i/4]&^(3<<sh) | byte(v&3)<<sh
		return
	}
	sh := 4 * uint(i%2)
	data[i/2] = data[i/2]&^(0x0f<<sh) | byte(v&0x0f)<<sh
}

// clearPackedTail zeroes the bits past element n-1 in the last byte of an
// Int4, Uint4 or Int2 tensor's data, so that a kernel writing n packed
// elements leaves no stale bits behind (TFLite's PackInt8IntoDenseInt
// writes them as zero).
func clearPackedTail(typ ops.DataType, data []byte, n int) {
	per := 8 / typ.PackedBits()
	if n%per == 0 || n/per >= len(data) {
		return
	}
	data[n/per] &= byte(1)<<(uint(n%per)*uint(typ.PackedBits())) - 1
}

// packedRange is the value range of a packed sub-byte type: [-8, 7] for
// Int4, [0, 15] for Uint4, [-2, 1] for Int2.
func packedRange(typ ops.DataType) (lo, hi int32) {
	switch typ {
	case ops.Uint4:
		return 0, 15
	case ops.Int2:
		return -2, 1
	}
	return -8, 7
}
