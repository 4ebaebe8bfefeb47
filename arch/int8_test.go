package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of the int8 family (int8.go): the portable primitives against
// plain int64 loops, every implementation against them bit for bit (the
// harness of twin_test.go), and FuzzInt8.

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

func randI8(r *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(r.IntN(256) - 128)
	}
	return v
}

func checkMatVecInt8(t testing.TB, name string, f func(dst []int32, m []int8, rows, cols int, x []int8),
	m, x []int8, rows, cols, off int, r *rand.Rand) {
	t.Helper()
	buf := make([]int32, rows+off+2*guard)
	for i := range buf {
		buf[i] = sentinelI32
	}
	dst := buf[guard+off : guard+off+rows : guard+off+rows]
	for i := range dst {
		// Some start near the int32 limits to check wrap-around.
		dst[i] = []int32{0, int32(r.Uint32()), math.MaxInt32 - 100, math.MinInt32 + 100}[r.IntN(4)]
	}
	want := append([]int32(nil), dst...) // plain int64 reference, wrapped
	for r := range want {
		var s int64
		for c := 0; c < cols; c++ {
			s += int64(m[r*cols+c]) * int64(x[c])
		}
		want[r] = int32(int64(want[r]) + s)
	}
	if rows > 0 && cols > 0 {
		f(dst, m, rows, cols, x)
	}
	for i, v := range buf {
		if (i < guard+off || i >= guard+off+rows) && v != sentinelI32 {
			t.Fatalf("%s %dx%d: element %d outside the destination written", name, rows, cols, i-guard-off)
		}
	}
	for i := range dst {
		if dst[i] != want[i] {
			t.Fatalf("%s %dx%d row %d: got %d want %d", name, rows, cols, i, dst[i], want[i])
		}
	}
}

func TestTwinMatVecMulAccInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, im := range implsOf(matVecMulAccInt8Impls) {
		t.Run(im.name, func(t *testing.T) {
			mTail, xTail := tailI8(t, 9*300), tailI8(t, 300)
			for cols := 0; cols <= 257; cols++ {
				for k, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9} {
					off := (cols + k) % 8
					var m, x []int8
					if (cols+k)%2 == 0 {
						m, x = mTail[len(mTail)-rows*cols:], xTail[len(xTail)-cols:]
					} else {
						m = make([]int8, rows*cols+off)[off:]
						x = make([]int8, cols+off+3)[off+3:]
					}
					genI8(r, m, (cols+k)%3)
					genI8(r, x, (cols+2*k)%3)
					checkMatVecInt8(t, im.name, im.fn, m, x, rows, cols, off%4, r)
				}
			}
			for range 200 {
				rows, cols := 1+r.IntN(40), 1+r.IntN(700)
				m, x := make([]int8, rows*cols), make([]int8, cols)
				genI8(r, m, r.IntN(3))
				genI8(r, x, r.IntN(3))
				checkMatVecInt8(t, im.name, im.fn, m, x, rows, cols, r.IntN(4), r)
			}
			// Sums past the int32 range wrap identically: 2^18 columns of
			// -128·-128 add 2^32.
			big := 1 << 18
			m, x := make([]int8, 2*big), make([]int8, big)
			genI8(r, m, 2)
			genI8(r, x, 2)
			checkMatVecInt8(t, im.name, im.fn, m, x, 2, big, 0, r)
		})
	}
}

func TestTwinDotInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, im := range implsOf(dotInt8Impls) {
		aTail := tailI8(t, 300)
		for n := 0; n <= 257; n++ {
			a := aTail[len(aTail)-n:]
			if n%2 == 1 {
				a = make([]int8, n+5)[5:]
			}
			b := make([]int8, n+1)[1:]
			genI8(r, a, n%3)
			genI8(r, b, (n+1)%3)
			var ref int64
			for i := range a {
				ref += int64(a[i]) * int64(b[i])
			}
			if got, want := im.fn(a, b), int32(ref); got != want {
				t.Fatalf("%s n=%d: got %d want %d", im.name, n, got, want)
			}
		}
	}
}

func TestTwinRowSumsInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, im := range implsOf(rowSumsInt8Impls) {
		mTail := tailI8(t, 9*300)
		for cols := 1; cols <= 257; cols++ {
			for _, rows := range []int{1, 3, 4, 9} {
				m := mTail[len(mTail)-rows*cols:]
				if cols%2 == 1 {
					m = make([]int8, rows*cols+3)[3:]
				}
				genI8(r, m, cols%3)
				buf := make([]int32, rows+2*guard)
				for i := range buf {
					buf[i] = sentinelI32
				}
				dst := buf[guard : guard+rows]
				want := make([]int32, rows)
				rowSumsInt8Generic(want, m, rows, cols)
				im.fn(dst, m, rows, cols)
				for i, v := range buf {
					if (i < guard || i >= guard+rows) && v != sentinelI32 {
						t.Fatalf("%s %dx%d: guard %d written", im.name, rows, cols, i)
					}
				}
				for i := range want {
					if dst[i] != want[i] {
						t.Fatalf("%s %dx%d row %d: got %d want %d", im.name, rows, cols, i, dst[i], want[i])
					}
				}
			}
		}
	}
}

// FuzzInt8 covers MatVecMulAccInt8, DotInt8 and RowSumsInt8: results must
// be identical to the portable ones.
func FuzzInt8(f *testing.F) {
	f.Add(uint8(3), []byte{0x80, 0x7f, 0x80, 0x01, 0xff, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80})
	f.Add(uint8(4), make([]byte, 5*70))
	f.Fuzz(func(t *testing.T, rowsB uint8, data []byte) {
		rows := 1 + int(rowsB%9)
		cols := len(data) / (rows + 1)
		if cols == 0 {
			return
		}
		all := make([]int8, len(data))
		for i, b := range data {
			all[i] = int8(b)
		}
		m, x := all[:rows*cols], all[rows*cols:rows*cols+cols]
		want := make([]int32, rows)
		for i := range want {
			want[i] = int32(rowsB) * 1000003
		}
		init := append([]int32(nil), want...)
		matVecMulAccInt8Generic(want, m, rows, cols, x)
		for _, im := range implsOf(matVecMulAccInt8Impls) {
			got := append([]int32(nil), init...)
			im.fn(got, m, rows, cols, x)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("MatVecMulAccInt8 %s %dx%d row %d: got %d want %d", im.name, rows, cols, i, got[i], want[i])
				}
			}
		}
		for _, im := range implsOf(dotInt8Impls) {
			if got, w := im.fn(m[:cols], x), dotInt8Generic(m[:cols], x); got != w {
				t.Fatalf("DotInt8 %s n=%d: got %d want %d", im.name, cols, got, w)
			}
		}
		sums := make([]int32, rows)
		rowSumsInt8Generic(sums, m, rows, cols)
		for _, im := range implsOf(rowSumsInt8Impls) {
			got := make([]int32, rows)
			im.fn(got, m, rows, cols)
			for i := range got {
				if got[i] != sums[i] {
					t.Fatalf("RowSumsInt8 %s %dx%d row %d: got %d want %d", im.name, rows, cols, i, got[i], sums[i])
				}
			}
		}
	})
}
