//go:build !purego

package arch

import "unsafe"

//go:noescape
func gemmF32SegR8AVX512(dst *float32, ldd int, x *float32, rows *int, w *float32, bias *float32, m, n int, segs *int, lo, hi float32, tail uint64, wskip int, flags uint64)

// gemmF32SegAVX512 converts the row offsets and runs to bytes (the row
// table in blocks of up to segRows rows, the last block's missing rows
// repeating its last row) and runs the 8-row kernel; wk is the
// reduction length of the packed weights (their channel block stride).
func gemmF32SegAVX512(dst []float32, ldd int, x []float32, rows []int, segs []int, w, bias []float32, m, n, wk int, lo, hi float32, flags int) {
	const segRows = 256
	var sb [2*maxSegs + 2]int
	k := 0
	for r := 0; r+1 < len(segs); r += 2 {
		sb[r], sb[r+1] = 4*segs[r], 4*segs[r+1]
		k += segs[r+1] - segs[r]
	}
	sb[len(segs)] = -1
	wskip := (wk - k) * GemmBlock * 4
	tail := uint64(1)<<(n%GemmBlock) - 1
	var rb [segRows]int
	x0 := unsafe.SliceData(x)
	for p0 := 0; p0 < m; p0 += segRows {
		c := min(segRows, m-p0)
		for i, off := range rows[p0 : p0+c] {
			rb[i] = 4 * off
		}
		for i := c; i < (c+7)&^7; i++ {
			rb[i] = rb[c-1]
		}
		gemmF32SegR8AVX512(&dst[p0*ldd], ldd, x0, &rb[0], &w[0], &bias[0], c, n, &sb[0], lo, hi, tail, wskip, uint64(flags))
	}
}

var _ = gemmF32SegImpls.add("avx512", AVX512, nil, gemmF32SegAVX512)
