package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of PackMatrix and MatVecMulAccPacked: every usable implementation
// against the float64 reference (sumOK, as for MatVecMulAcc) over all
// block counts with full and partial last blocks, columns 0..100 and
// random shapes, packed matrices and vectors ending right before an
// inaccessible page, destinations at odd offsets inside guard bands, and
// special values.

func TestPackMatrixLayout(t *testing.T) {
	for _, shape := range [][2]int{{1, 1}, {5, 3}, {16, 2}, {17, 4}, {33, 1}, {40, 7}} {
		rows, cols := shape[0], shape[1]
		m := make([]float32, rows*cols)
		for i := range m {
			m[i] = float32(i + 1)
		}
		p := PackMatrix(m, rows, cols)
		if len(p) != PackedLen(rows, cols) || len(p)%(PackedBlock*cols) != 0 || len(p) < rows*cols {
			t.Fatalf("%dx%d: packed length %d (PackedLen %d)", rows, cols, len(p), PackedLen(rows, cols))
		}
		seen := 0
		for b := 0; b*PackedBlock < rows; b++ {
			for c := 0; c < cols; c++ {
				for i := 0; i < PackedBlock; i++ {
					r := b*PackedBlock + i
					got := p[(b*cols+c)*PackedBlock+i]
					want := float32(0)
					if r < rows {
						want = m[r*cols+c]
						seen++
					}
					if got != want {
						t.Fatalf("%dx%d: element (%d, %d) packed as %v, want %v", rows, cols, r, c, got, want)
					}
				}
			}
		}
		if seen != rows*cols {
			t.Fatalf("%dx%d: %d elements placed", rows, cols, seen)
		}
	}
	if PackedLen(0, 5) != 0 || PackedLen(5, 0) != 0 || len(PackMatrix(nil, 0, 3)) != 0 {
		t.Fatal("empty matrices must pack to nothing")
	}
}

// checkPacked runs f on the packed form p of m and checks dst (a window at
// element off of a guarded buffer) against the float64 reference.
func checkPacked(t testing.TB, name string, f func(dst, p []float32, rows, cols int, x []float32),
	m, p, x []float32, rows, cols, off int, r *rand.Rand) {
	t.Helper()
	buf, dst := guardedF32(rows, off)
	genF32(r, dst, kindUniform)
	dst0 := append([]float32(nil), dst...)
	if rows > 0 && cols > 0 {
		f(dst, p, rows, cols, x)
	}
	what := fmt.Sprintf("%s %dx%d", name, rows, cols)
	checkGuardsF32(t, what, buf, guard+off, rows)
	for i := 0; i < rows; i++ {
		ref, abs := matVecRef(dst0[i], m[i*cols:i*cols+cols], x)
		if !sumOK(dst[i], ref, abs, cols) {
			t.Fatalf("%s row %d: got %v, want %v (Σ|terms| %v)", what, i, dst[i], ref, abs)
		}
	}
}

func TestTwinMatVecMulAccPacked(t *testing.T) {
	// Each shape's inputs are made once and every implementation is
	// checked on them.
	ims := implsOf(matVecMulAccPackedImpls)
	r := rand.New(rand.NewPCG(31, 32))
	rowsList := []int{1, 2, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 80, 95, 96, 112, 127, 128, 129, 130}
	maxP := PackedLen(130, 100)
	pTail, xTail := tailF32(t, maxP), tailF32(t, 100)
	for cols := 0; cols <= 100; cols++ {
		for k, rows := range rowsList {
			off := (cols + k) % 4
			kind := f32Kind((cols + k) % int(numKinds))
			m := make([]float32, rows*cols)
			genF32(r, m, kind)
			packed := PackMatrix(m, rows, cols)
			var p, x []float32
			if (cols+k)%2 == 0 { // inputs end at an inaccessible page
				p = pTail[len(pTail)-len(packed):]
				copy(p, packed)
				x = xTail[len(xTail)-cols:]
			} else { // inputs at odd offsets in ordinary memory
				p = append(make([]float32, off), packed...)[off:]
				x = make([]float32, cols+off+1)[off+1:]
			}
			genF32(r, x, kind)
			for _, im := range ims {
				checkPacked(t, im.name, im.fn, m, p, x, rows, cols, off, r)
			}
		}
	}
	for range 300 { // random shapes
		rows, cols := 1+r.IntN(300), 1+r.IntN(300)
		m, x := make([]float32, rows*cols), make([]float32, cols)
		genF32(r, m, kindMixed)
		genF32(r, x, kindMixed)
		p, off := PackMatrix(m, rows, cols), r.IntN(4)
		for _, im := range ims {
			checkPacked(t, im.name, im.fn, m, p, x, rows, cols, off, r)
		}
	}
}

func TestTwinMatVecPackedSpecials(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, im := range implsOf(matVecMulAccPackedImpls) {
		for _, cols := range []int{1, 2, 3, 16, 17, 28} {
			for _, rows := range []int{1, 5, 16, 20, 64, 80, 81} {
				for _, sp := range specials {
					for trial := range 4 {
						m, x := make([]float32, rows*cols), make([]float32, cols)
						genF32(r, m, kindUniform)
						genF32(r, x, kindUniform)
						switch trial {
						case 0: // one special in x: every row (and the padding) sees it
							x[r.IntN(cols)] = sp
						case 1: // one special in the matrix
							m[r.IntN(rows*cols)] = sp
						case 2: // the last row and column
							m[rows*cols-1] = sp
						case 3: // Inf times zero gives NaN
							c := r.IntN(cols)
							x[c] = sp
							m[c] = 0
						}
						checkPacked(t, im.name, im.fn, m, PackMatrix(m, rows, cols), x, rows, cols, 1, r)
					}
				}
			}
		}
	}
}

// TestMatVecMulAccPackedWrapper checks the exported function's size
// checks and its agreement with MatVecMulAcc at every level.
func TestMatVecMulAccPackedWrapper(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	forEachLevel(t, func(t *testing.T) {
		for _, shape := range [][2]int{{80, 28}, {80, 20}, {64, 32}, {3953, 16}, {60, 20}} {
			rows, cols := shape[0], shape[1]
			m, x := make([]float32, rows*cols), make([]float32, cols)
			genF32(r, m, kindUniform)
			genF32(r, x, kindUniform)
			checkPacked(t, "MatVecMulAccPacked", MatVecMulAccPacked, m, PackMatrix(m, rows, cols), x, rows, cols, 3, r)
		}
		MatVecMulAccPacked(nil, nil, 0, 5, nil) // empty: no access
		defer func() {
			if recover() == nil {
				t.Error("a packed matrix one element short did not panic")
			}
		}()
		p := PackMatrix(make([]float32, 20*3), 20, 3)
		MatVecMulAccPacked(make([]float32, 20), p[:len(p)-1], 20, 3, make([]float32, 3))
	})
}

// FuzzPacked compares every MatVecMulAccPacked implementation with the
// float64 reference on fuzzer-chosen shapes and bit patterns.
//
//	go test ./arch -run='^$' -fuzz=FuzzPacked -fuzztime=1m
func FuzzPacked(f *testing.F) {
	f.Add(uint8(20), seedF32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22))
	f.Add(uint8(0), seedF32(float32(math.NaN()), 1, -0, float32(math.Inf(1)), 1e-40, 3, 5, 7, 9))
	f.Add(uint8(79), make([]byte, 4*81*3))
	f.Fuzz(func(t *testing.T, rowsB uint8, data []byte) {
		rows := 1 + int(rowsB%130)
		all := bytesToF32(data)
		cols := len(all) / (rows + 1)
		if cols == 0 {
			return
		}
		m, x := all[:rows*cols], all[rows*cols:rows*cols+cols]
		p := PackMatrix(m, rows, cols)
		for _, im := range implsOf(matVecMulAccPackedImpls) {
			dst := make([]float32, rows)
			im.fn(dst, p, rows, cols, x)
			for i := range dst {
				ref, abs := matVecRef(0, m[i*cols:i*cols+cols], x)
				if !math.IsNaN(ref) && abs >= 0x1p126 {
					continue // may overflow in some summation orders
				}
				if !sumOK(dst[i], ref, abs, cols) {
					t.Fatalf("MatVecMulAccPacked %s %dx%d row %d: got %v want %v", im.name, rows, cols, i, dst[i], ref)
				}
			}
		}
	})
}

// BenchmarkMatVecMulAccPacked times every implementation against the
// row-major MatVecMulAcc of the level on the shapes the LSTM and
// FULLY_CONNECTED kernels use:
//
//	go test ./arch -run='^$' -bench=MatVecMulAccPacked
func BenchmarkMatVecMulAccPacked(b *testing.B) {
	for _, shape := range [][2]int{{80, 28}, {80, 20}, {64, 16}, {3953, 16}, {512, 256}, {1024, 1024}} {
		rows, cols := shape[0], shape[1]
		r := rand.New(rand.NewPCG(7, uint64(cols)))
		m, x, dst := make([]float32, rows*cols), make([]float32, cols), make([]float32, rows)
		genF32(r, m, kindUniform)
		genF32(r, x, kindUniform)
		p := PackMatrix(m, rows, cols)
		for _, im := range implsOf(matVecMulAccPackedImpls) {
			b.Run(fmt.Sprintf("%dx%d/packed/%s", rows, cols, im.name), func(b *testing.B) {
				b.SetBytes(int64(4 * rows * cols))
				for b.Loop() {
					im.fn(dst, p, rows, cols, x)
				}
			})
		}
		for _, im := range implsOf(matVecMulAccImpls) {
			b.Run(fmt.Sprintf("%dx%d/rowmajor/%s", rows, cols, im.name), func(b *testing.B) {
				b.SetBytes(int64(4 * rows * cols))
				for b.Loop() {
					im.fn(dst, m, rows, cols, x)
				}
			})
		}
	}
}
