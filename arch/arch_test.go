package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The portable primitives are the reference for every assembly twin, so
// they are checked here against plain float64/int64 loops over sizes that
// are not multiples of any vector width, with guard bands around the
// destination to catch stray writes.

const guard = 8

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

func TestInt8Primitives(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for rows := 0; rows <= 6; rows++ {
		for cols := 0; cols <= 41; cols++ {
			m, x := randI8(r, rows*cols), randI8(r, cols)
			if rows > 0 && cols > 0 {
				m[0], x[0] = -128, -128 // the extreme product
			}
			acc := make([]int32, rows+2*guard)
			for i := range acc {
				acc[i] = int32(i)
			}
			MatVecMulAccInt8(acc[guard:guard+rows], m, rows, cols, x)
			sums := make([]int32, rows)
			RowSumsInt8(sums, m, rows, cols)
			for i := range acc {
				if i < guard || i >= guard+rows {
					if acc[i] != int32(i) {
						t.Fatalf("%dx%d: guard element %d changed", rows, cols, i)
					}
					continue
				}
				row := i - guard
				want, sum := int64(i), int64(0)
				for c := 0; c < cols; c++ {
					want += int64(m[row*cols+c]) * int64(x[c])
					sum += int64(m[row*cols+c])
				}
				if int64(acc[i]) != want || int64(sums[row]) != sum {
					t.Fatalf("%dx%d row %d: acc %d want %d, sum %d want %d", rows, cols, row, acc[i], want, sums[row], sum)
				}
				if cols > 0 && row == 0 {
					if got := DotInt8(m[:cols], x); int64(got) != want-int64(i) {
						t.Fatalf("DotInt8 %d, want %d", got, want-int64(i))
					}
				}
			}
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

func randI8(r *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(r.IntN(256) - 128)
	}
	return v
}
