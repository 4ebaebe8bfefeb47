package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of the float32 family (float32.go). The portable primitives are
// the reference for every assembly twin, so they are checked first against
// plain float64 loops over sizes that are not multiples of any vector
// width, with guard bands around the destination to catch stray writes;
// then every implementation against them (the harness of twin_test.go),
// and FuzzFloat32.

func TestMatVecMulAcc(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for rows := 0; rows <= 9; rows++ {
		for cols := 0; cols <= 37; cols++ {
			m := randF32(r, rows*cols)
			x := randF32(r, cols)
			buf := randF32(r, rows+2*guard)
			orig := append([]float32(nil), buf...)
			MatVecMulAcc(buf[guard:guard+rows], m, rows, cols, x)
			for i := range buf {
				if i < guard || i >= guard+rows {
					if buf[i] != orig[i] {
						t.Fatalf("%dx%d: guard element %d changed", rows, cols, i)
					}
					continue
				}
				r := i - guard
				want := float64(orig[i])
				for c := 0; c < cols; c++ {
					want += float64(m[r*cols+c]) * float64(x[c])
				}
				if d := math.Abs(float64(buf[i]) - want); d > 1e-5*float64(cols+1) {
					t.Fatalf("%dx%d row %d: got %v want %v", rows, cols, r, buf[i], want)
				}
			}
		}
	}
}

func TestMatBatchVecMulAcc(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows, cols, batch := 5, 7, 3
	m, x := randF32(r, rows*cols), randF32(r, cols*batch)
	got := make([]float32, rows*batch)
	MatBatchVecMulAcc(got, m, rows, cols, x, batch)
	for b := 0; b < batch; b++ {
		want := make([]float32, rows)
		MatVecMulAcc(want, m, rows, cols, x[b*cols:])
		for i := range want {
			if got[b*rows+i] != want[i] {
				t.Fatalf("batch %d row %d: %v != %v", b, i, got[b*rows+i], want[i])
			}
		}
	}
}

func TestDot(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 67; n++ {
		a, b := randF32(r, n), randF32(r, n+3)
		var want float64
		for i := 0; i < n; i++ {
			want += float64(a[i]) * float64(b[i])
		}
		if d := math.Abs(float64(Dot(a, b)) - want); d > 1e-5*float64(n+1) {
			t.Fatalf("n=%d: got %v want %v", n, Dot(a, b), want)
		}
	}
}

func randF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.Float64()*2 - 1)
	}
	return v
}

func checkMatVec(t testing.TB, name string, f func(dst, m []float32, rows, cols int, x []float32),
	m, x []float32, rows, cols, off int, r *rand.Rand) {
	t.Helper()
	buf, dst := guardedF32(rows, off)
	genF32(r, dst, kindUniform)
	dst0 := append([]float32(nil), dst...)
	if rows > 0 && cols > 0 {
		f(dst, m, rows, cols, x)
	}
	checkGuardsF32(t, fmt.Sprintf("%s %dx%d", name, rows, cols), buf, guard+off, rows)
	for i := 0; i < rows; i++ {
		ref, abs := matVecRef(dst0[i], m[i*cols:i*cols+cols], x)
		if !sumOK(dst[i], ref, abs, cols) {
			t.Fatalf("%s %dx%d row %d: got %v, want %v (Σ|terms| %v)", name, rows, cols, i, dst[i], ref, abs)
		}
	}
}

func TestTwinMatVecMulAcc(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	rowsList := []int{1, 2, 3, 4, 5, 7, 8, 9}
	for _, im := range implsOf(matVecMulAccImpls) {
		t.Run(im.name, func(t *testing.T) {
			mTail, xTail := tailF32(t, 9*257), tailF32(t, 257)
			for cols := 0; cols <= 257; cols++ {
				for k, rows := range rowsList {
					off := (cols + k) % 4
					var m, x []float32
					if (cols+k)%2 == 0 { // inputs end at an inaccessible page
						m, x = mTail[len(mTail)-rows*cols:], xTail[len(xTail)-cols:]
					} else { // inputs at odd offsets in ordinary memory
						m = make([]float32, rows*cols+off)[off:]
						x = make([]float32, cols+off+1)[off+1:]
					}
					kind := f32Kind((cols + k) % int(numKinds))
					genF32(r, m, kind)
					genF32(r, x, kind)
					checkMatVec(t, im.name, im.fn, m, x, rows, cols, off, r)
				}
			}
			for range 200 { // random shapes
				rows, cols := 1+r.IntN(40), 1+r.IntN(600)
				m, x := make([]float32, rows*cols), make([]float32, cols)
				genF32(r, m, kindMixed)
				genF32(r, x, kindMixed)
				checkMatVec(t, im.name, im.fn, m, x, rows, cols, r.IntN(4), r)
			}
		})
	}
}

func TestTwinMatVecSpecials(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, im := range implsOf(matVecMulAccImpls) {
		for _, cols := range []int{1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 257} {
			for _, rows := range []int{1, 4, 5} {
				for _, sp := range specials {
					for trial := range 4 {
						m, x := make([]float32, rows*cols), make([]float32, cols)
						genF32(r, m, kindUniform)
						genF32(r, x, kindUniform)
						switch trial {
						case 0: // one special in x: every row sees it
							x[r.IntN(cols)] = sp
						case 1: // one special in the matrix
							m[r.IntN(rows*cols)] = sp
						case 2: // the last column (the masked tail)
							x[cols-1] = sp
						case 3: // Inf times zero gives NaN
							c := r.IntN(cols)
							x[c] = sp
							m[c] = 0
						}
						checkMatVec(t, im.name, im.fn, m, x, rows, cols, 0, r)
					}
				}
			}
		}
	}
}

func TestTwinMatBatchVecMulAcc(t *testing.T) {
	// The batch loop is Go; check it on the chosen implementation at every
	// level.
	r := rand.New(rand.NewPCG(15, 16))
	forEachLevel(t, func(t *testing.T) {
		for _, shape := range [][3]int{{5, 7, 3}, {20, 28, 2}, {33, 65, 4}} {
			rows, cols, batch := shape[0], shape[1], shape[2]
			m, x := make([]float32, rows*cols), make([]float32, cols*batch)
			genF32(r, m, kindUniform)
			genF32(r, x, kindUniform)
			buf, dst := guardedF32(rows*batch, 1)
			genF32(r, dst, kindUniform)
			dst0 := append([]float32(nil), dst...)
			MatBatchVecMulAcc(dst, m, rows, cols, x, batch)
			checkGuardsF32(t, "MatBatchVecMulAcc", buf, guard+1, rows*batch)
			for b := 0; b < batch; b++ {
				for i := 0; i < rows; i++ {
					ref, abs := matVecRef(dst0[b*rows+i], m[i*cols:i*cols+cols], x[b*cols:b*cols+cols])
					if !sumOK(dst[b*rows+i], ref, abs, cols) {
						t.Fatalf("batch %d row %d: got %v want %v", b, i, dst[b*rows+i], ref)
					}
				}
			}
		}
	})
}

func TestTwinDot(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, im := range implsOf(dotImpls) {
		aTail := tailF32(t, 257)
		for n := 0; n <= 257; n++ {
			var a []float32
			if n%2 == 0 {
				a = aTail[len(aTail)-n:]
			} else {
				a = make([]float32, n+1)[1:]
			}
			b := make([]float32, n+3)[n%3:]
			kind := f32Kind(n % int(numKinds))
			genF32(r, a, kind)
			genF32(r, b, kind)
			got := im.fn(a, b)
			ref, abs := matVecRef(0, a, b)
			if !sumOK(got, ref, abs, n) {
				t.Fatalf("%s n=%d: got %v want %v", im.name, n, got, ref)
			}
		}
		a := []float32{1, 2, float32(math.NaN()), 3}
		if got := im.fn(a, a); got == got {
			t.Fatalf("%s: NaN did not propagate: %v", im.name, got)
		}
	}
}

// Elementwise results are identical at every level (no FMA), NaN payloads
// aside.
func TestTwinElementwise(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	type ew = func(dst, a, b []float32)
	for _, p := range []*impls[ew]{vecAddImpls, vecMulImpls, vecMulAccImpls} {
		for _, im := range implsOf(p) {
			aTail, bTail := tailF32(t, 257), tailF32(t, 257)
			for n := 0; n <= 257; n++ {
				for inPlace := range 2 {
					a, b := aTail[len(aTail)-n:], bTail[len(bTail)-n:]
					if n%3 == 1 {
						a, b = make([]float32, n+1)[1:], make([]float32, n+3)[3:]
					}
					genF32(r, a, f32Kind(n%int(numKinds)))
					genF32(r, b, f32Kind((n+1)%int(numKinds)))
					if n > 2 {
						a[r.IntN(n)] = float32(math.NaN())
						b[r.IntN(n)] = float32(math.Inf(1 - 2*r.IntN(2)))
					}
					off := n % 4
					buf, dst := guardedF32(n, off)
					genF32(r, dst, kindMixed)
					want := append([]float32(nil), dst...)
					p.list[0].fn(want, a, b)
					if inPlace == 1 { // dst is a
						a = append([]float32(nil), a...)
						copy(dst, a)
						want = append([]float32(nil), a...)
						p.list[0].fn(want, a, b)
						im.fn(dst, dst, b)
					} else {
						im.fn(dst, a, b)
					}
					checkGuardsF32(t, p.name+" "+im.name, buf, guard+off, n)
					for i := range dst {
						g, w := dst[i], want[i]
						if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
							t.Fatalf("%s %s n=%d in-place=%d [%d]: got %v want %v", p.name, im.name, n, inPlace, i, g, w)
						}
					}
				}
			}
		}
	}
}

// FuzzFloat32 covers MatVecMulAcc, Dot and the elementwise primitives.
// The input is split into rows+1 vectors of cols values: the matrix rows
// and x.
func FuzzFloat32(f *testing.F) {
	f.Add(uint8(3), seedF32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20))
	f.Add(uint8(0), seedF32(float32(math.NaN()), 1, -0, float32(math.Inf(1)), 1e-40, 3, 5, 7, 9))
	f.Add(uint8(5), make([]byte, 4*6*37))
	f.Fuzz(func(t *testing.T, rowsB uint8, data []byte) {
		rows := 1 + int(rowsB%9)
		all := bytesToF32(data)
		cols := len(all) / (rows + 1)
		if cols == 0 {
			return
		}
		m, x := all[:rows*cols], all[rows*cols:rows*cols+cols]
		for _, im := range implsOf(matVecMulAccImpls) {
			dst := make([]float32, rows)
			im.fn(dst, m, rows, cols, x)
			for i := range dst {
				ref, abs := matVecRef(0, m[i*cols:i*cols+cols], x)
				if !math.IsNaN(ref) && abs >= 0x1p126 {
					continue // may overflow in some summation orders
				}
				if !sumOK(dst[i], ref, abs, cols) {
					t.Fatalf("MatVecMulAcc %s %dx%d row %d: got %v want %v", im.name, rows, cols, i, dst[i], ref)
				}
			}
		}
		for _, im := range implsOf(dotImpls) {
			got := im.fn(m[:cols], x)
			ref, abs := matVecRef(0, m[:cols], x)
			if (math.IsNaN(ref) || abs < 0x1p126) && !sumOK(got, ref, abs, cols) {
				t.Fatalf("Dot %s n=%d: got %v want %v", im.name, cols, got, ref)
			}
		}
		type ew = func(dst, a, b []float32)
		for _, p := range []*impls[ew]{vecAddImpls, vecMulImpls, vecMulAccImpls} {
			want := append([]float32(nil), x...)
			p.list[0].fn(want, m[:cols], x)
			for _, im := range implsOf(p) {
				got := append([]float32(nil), x...)
				im.fn(got, m[:cols], x)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%s %s [%d]: got %v want %v", p.name, im.name, i, got[i], want[i])
					}
				}
			}
		}
	})
}
