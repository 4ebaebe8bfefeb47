//go:build !purego

package arch

import "unsafe"

//go:noescape
func gemmF32SegR8AVX512(dst *float32, ldd int, x *float32, rows *int, w *float32, bias *float32, m, n int, segs *int, lo, hi float32, tail uint64, wskip int, flags uint64)

// gemmF32SegAVX512 converts the runs' parts within [k0, k0+kb) to byte
// ranges and runs the 8-row kernel on the row offsets in place, a last
// block of fewer than 8 rows from a copy that repeats its last row; wk
// is the reduction length of the packed weights (their channel block
// stride). At most maxSegs runs.
func gemmF32SegAVX512(dst []float32, ldd int, x []float32, rows, runs []int, runLen, k0, kb int, w, bias []float32, m, n, wk int, lo, hi float32, flags int) {
	var sb [2*maxSegs + 2]int
	s := 0
	for r, off := range runs[:min(len(runs), maxSegs)] {
		i0, i1 := max(k0, r*runLen), min(k0+kb, (r+1)*runLen)
		if i0 < i1 {
			sb[s], sb[s+1] = 4*(off+i0-r*runLen), 4*(off+i1-r*runLen)
			s += 2
		}
	}
	sb[s] = -1
	wskip := (wk - kb) * GemmBlock * 4
	tail := uint64(1)<<(n%GemmBlock) - 1
	x0 := unsafe.SliceData(x)
	m8 := m &^ 7
	if m8 > 0 {
		gemmF32SegR8AVX512(&dst[0], ldd, x0, &rows[0], &w[0], &bias[0], m8, n, &sb[0], lo, hi, tail, wskip, uint64(flags))
	}
	if m8 < m {
		var rb [8]int
		c := copy(rb[:], rows[m8:m])
		for i := c; i < 8; i++ {
			rb[i] = rb[c-1]
		}
		gemmF32SegR8AVX512(&dst[m8*ldd], ldd, x0, &rb[0], &w[0], &bias[0], m-m8, n, &sb[0], lo, hi, tail, wskip, uint64(flags))
	}
}

var _ = gemmF32SegImpls.add("avx512", AVX512, nil, gemmF32SegAVX512)
