package arch

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Tests of DotRowsInt16: every usable implementation must give the
// sequential wrapping int32 sum bit for bit, over rows 1..40 (groups of
// four rows of eight and their leftovers) and cols 0..100 plus random
// shapes, with inputs ending right before an inaccessible page, odd
// starting offsets, guard bands around dst, and values including -32768
// everywhere (the one VPMADDWD pair sum that wraps).

// dotRowsRef is the sequential wrapping sum of row r.
func dotRowsRef(a, b []int16, r, cols int) int32 {
	var s int32
	for c := 0; c < cols; c++ {
		s += int32(a[r*cols+c]) * int32(b[r*cols+c])
	}
	return s
}

// tailI16 is tailBytes for n int16 values.
func tailI16(t testing.TB, n int) []int16 {
	b := tailBytes(t, 2*n)
	if n == 0 {
		return []int16{}
	}
	return unsafe.Slice((*int16)(unsafe.Pointer(&b[0])), n)
}

// genI16 fills v: kind 0 uniform, 1 mostly extremes, 2 all -32768.
func genI16(r *rand.Rand, v []int16, kind int) {
	for i := range v {
		switch {
		case kind == 2:
			v[i] = math.MinInt16
		case kind == 1 && r.IntN(2) == 0:
			v[i] = []int16{math.MinInt16, math.MaxInt16, -1, 0, 1}[r.IntN(5)]
		default:
			v[i] = int16(r.IntN(65536) - 32768)
		}
	}
}

func checkDotRows(t testing.TB, name string, f func(dst []int32, a, b []int16, rows, cols int), a, b []int16, rows, cols, off int) {
	t.Helper()
	buf := make([]int32, rows+off+2*guard)
	for i := range buf {
		buf[i] = 0x5a5a5a5a
	}
	dst := buf[guard+off : guard+off+rows : guard+off+rows]
	if rows > 0 && cols > 0 {
		f(dst, a, b, rows, cols)
	} else {
		clear(dst)
	}
	for i, v := range buf {
		if (i < guard+off || i >= guard+off+rows) && v != 0x5a5a5a5a {
			t.Fatalf("%s %dx%d: element %d outside dst written", name, rows, cols, i-guard-off)
		}
	}
	for r := 0; r < rows; r++ {
		if want := dotRowsRef(a, b, r, cols); dst[r] != want {
			t.Fatalf("%s %dx%d row %d: got %d, want %d", name, rows, cols, r, dst[r], want)
		}
	}
}

func TestTwinDotRowsInt16(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, im := range implsOf(dotRowsInt16Impls) {
		t.Run(im.name, func(t *testing.T) {
			aTail, bTail := tailI16(t, 40*100), tailI16(t, 40*100)
			for cols := 1; cols <= 100; cols++ {
				for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 31, 40} {
					kind := (cols + rows) % 3
					off := (cols + rows) % 4
					var a, b []int16
					if (cols+rows)%2 == 0 { // inputs end at an inaccessible page
						a, b = aTail[len(aTail)-rows*cols:], bTail[len(bTail)-rows*cols:]
					} else {
						a = make([]int16, rows*cols+off)[off:]
						b = make([]int16, rows*cols+off+1)[off+1:]
					}
					genI16(r, a, kind)
					genI16(r, b, kind)
					checkDotRows(t, im.name, im.fn, a, b, rows, cols, off)
				}
			}
			for range 200 {
				rows, cols := 1+r.IntN(100), 1+r.IntN(300)
				a, b := make([]int16, rows*cols), make([]int16, rows*cols)
				genI16(r, a, r.IntN(3))
				genI16(r, b, r.IntN(3))
				checkDotRows(t, im.name, im.fn, a, b, rows, cols, r.IntN(4))
			}
		})
	}
}

// TestDotRowsInt16Wrapper checks the exported function at every level,
// including zero columns (dst cleared) and zero rows.
func TestDotRowsInt16Wrapper(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	forEachLevel(t, func(t *testing.T) {
		for _, shape := range [][2]int{{64, 8}, {32, 32}, {5, 8}, {3, 0}} {
			rows, cols := shape[0], shape[1]
			a, b := make([]int16, rows*cols), make([]int16, rows*cols)
			genI16(r, a, 0)
			genI16(r, b, 0)
			dst := make([]int32, rows)
			for i := range dst {
				dst[i] = 7
			}
			DotRowsInt16(dst, a, b, rows, cols)
			for i := range dst {
				if want := dotRowsRef(a, b, i, cols); dst[i] != want {
					t.Fatalf("%dx%d row %d: %d, want %d", rows, cols, i, dst[i], want)
				}
			}
		}
		DotRowsInt16(nil, nil, nil, 0, 8)
	})
}

// FuzzDotRowsInt16 compares every implementation with the sequential sum
// on fuzzer-chosen shapes and values.
//
//	go test ./arch -run='^$' -fuzz=FuzzDotRowsInt16 -fuzztime=1m
func FuzzDotRowsInt16(f *testing.F) {
	f.Add(uint8(7), []byte{0, 0x80, 0, 0x80, 0xff, 0x7f, 1, 0, 2, 0, 3, 0, 0, 0x80, 0, 0x80})
	f.Add(uint8(8), make([]byte, 2*2*64*8))
	f.Fuzz(func(t *testing.T, colsB uint8, data []byte) {
		cols := 1 + int(colsB%80)
		all := make([]int16, len(data)/2)
		for i := range all {
			all[i] = int16(binary.LittleEndian.Uint16(data[2*i:]))
		}
		rows := len(all) / (2 * cols)
		if rows == 0 {
			return
		}
		a, b := all[:rows*cols], all[rows*cols:2*rows*cols]
		for _, im := range implsOf(dotRowsInt16Impls) {
			dst := make([]int32, rows)
			im.fn(dst, a, b, rows, cols)
			for i := range dst {
				if want := dotRowsRef(a, b, i, cols); dst[i] != want {
					t.Fatalf("%s %dx%d row %d: %d, want %d", im.name, rows, cols, i, dst[i], want)
				}
			}
		}
	})
}

// BenchmarkDotRowsInt16 times every implementation on the keyword
// SVDF's shapes (64 filters × memory 8, 32 × 32):
//
//	go test ./arch -run='^$' -bench=DotRowsInt16
func BenchmarkDotRowsInt16(b *testing.B) {
	for _, shape := range [][2]int{{64, 8}, {32, 32}, {256, 10}} {
		rows, cols := shape[0], shape[1]
		r := rand.New(rand.NewPCG(9, uint64(cols)))
		x, y, dst := make([]int16, rows*cols), make([]int16, rows*cols), make([]int32, rows)
		genI16(r, x, 0)
		genI16(r, y, 0)
		for _, im := range implsOf(dotRowsInt16Impls) {
			b.Run(fmt.Sprintf("%dx%d/%s", rows, cols, im.name), func(b *testing.B) {
				for b.Loop() {
					im.fn(dst, x, y, rows, cols)
				}
			})
		}
	}
}
