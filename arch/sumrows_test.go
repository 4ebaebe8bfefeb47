package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// genSumRows fills v with values whose column sums round at every step
// (mixed magnitudes), with some infinities, zeros of both signs,
// subnormals and NaNs, so that a reassociated or reordered sum shows.
func genSumRows(r *rand.Rand, v []float32) {
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), 1e-45, -3e-39, 1e30, -1e30}
	for i := range v {
		switch r.IntN(40) {
		case 0:
			v[i] = specials[r.IntN(len(specials))]
		default:
			v[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3)))
		}
	}
}

// sameSumsF32 is sameBitsF32 with any two NaNs equal: which payload
// survives when two NaNs meet in an addition is up to the compiler (Go
// may swap the operands of a commutative add, and arm64 does return the
// other one), so only NaN-ness is promised.
func sameSumsF32(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
			return i
		}
	}
	return -1
}

func TestTwinSumRowsF32(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	colsList := []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 79, 80, 96, 100, 127, 128, 129, 200}
	for _, im := range implsOf(sumRowsF32Impls) {
		for trial := 0; trial < 400; trial++ {
			cols := colsList[trial%len(colsList)]
			rows := []int{1, 2, 3, 5, 17, 256}[r.IntN(6)]
			in := make([]float32, rows*cols)
			genSumRows(r, in)
			a0 := make([]float32, cols)
			genSumRows(r, a0)
			want := append([]float32(nil), a0...)
			sumRowsF32Generic(want, in, rows, cols)
			// The scalar loop itself, in row order, as the reference of
			// the generic twin.
			ref := append([]float32(nil), a0...)
			for i := range rows {
				for j := range cols {
					ref[j] += in[i*cols+j]
				}
			}
			if i := sameSumsF32(want, ref); i >= 0 {
				t.Fatalf("generic rows=%d cols=%d column %d: %v, the row-order loop gives %v", rows, cols, i, want[i], ref[i])
			}
			off := trial % 4
			buf, acc := guardedF32(cols, off)
			copy(acc, a0)
			inCopy := append([]float32(nil), in...)
			im.fn(acc, in, rows, cols)
			checkGuardsF32(t, im.name, buf, guard+off, cols)
			if i := sameBitsF32(in, inCopy); i >= 0 {
				t.Fatalf("%s rows=%d cols=%d: input %d changed", im.name, rows, cols, i)
			}
			if i := sameSumsF32(acc, want); i >= 0 {
				t.Fatalf("%s rows=%d cols=%d column %d: got %v (%#x), want %v (%#x)", im.name, rows, cols, i,
					acc[i], math.Float32bits(acc[i]), want[i], math.Float32bits(want[i]))
			}
			// Both slices ending right before an inaccessible page (the
			// masked tail must not read or write past them).
			at, it := tailF32(t, cols), tailF32(t, rows*cols)
			copy(at, a0)
			copy(it, in)
			im.fn(at, it, rows, cols)
			if i := sameSumsF32(at, want); i >= 0 {
				t.Fatalf("%s rows=%d cols=%d at a page end: column %d got %v want %v", im.name, rows, cols, i, at[i], want[i])
			}
		}
	}
}

func TestSumRowsF32Panics(t *testing.T) {
	for name, f := range map[string]func(){
		"negative rows": func() { SumRowsF32(make([]float32, 4), make([]float32, 4), -1, 4) },
		"short acc":     func() { SumRowsF32(make([]float32, 3), make([]float32, 8), 2, 4) },
		"short input":   func() { SumRowsF32(make([]float32, 4), make([]float32, 7), 2, 4) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	SumRowsF32(nil, nil, 0, 5) // nothing to do
}

func TestTwinSumRowsInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	colsList := []int{1, 2, 15, 16, 17, 31, 32, 48, 63, 64, 65, 80, 96, 127, 128, 129, 200}
	for _, im := range implsOf(sumRowsInt8Impls) {
		for trial := 0; trial < 300; trial++ {
			cols := colsList[trial%len(colsList)]
			rows := []int{1, 2, 3, 5, 25, 125}[r.IntN(6)]
			in := make([]int8, rows*cols)
			for i := range in {
				in[i] = int8(r.Uint32())
				if r.IntN(8) == 0 {
					in[i] = []int8{-128, 127}[r.IntN(2)]
				}
			}
			a0 := make([]int32, cols)
			for i := range a0 {
				a0[i] = int32(r.Uint32()) // near the int32 ends too: sums wrap
			}
			want := append([]int32(nil), a0...)
			for i := range rows {
				for j := range cols {
					want[j] += int32(in[i*cols+j])
				}
			}
			buf := make([]int32, cols+16)
			for i := range buf {
				buf[i] = 0x5a5a5a5a
			}
			acc := buf[8 : 8+cols : 8+cols]
			copy(acc, a0)
			done := im.fn(acc, in, rows, cols)
			if done < 0 || done > cols || done%16 != 0 && done != cols {
				t.Fatalf("%s rows=%d cols=%d: %d columns done", im.name, rows, cols, done)
			}
			sumRowsInt8Generic(acc, in, rows, cols, done)
			for i, v := range buf {
				if (i < 8 || i >= 8+cols) && v != 0x5a5a5a5a {
					t.Fatalf("%s rows=%d cols=%d: element %d outside acc written", im.name, rows, cols, i-8)
				}
			}
			for j := range want {
				if acc[j] != want[j] {
					t.Fatalf("%s rows=%d cols=%d column %d: got %d, want %d", im.name, rows, cols, j, acc[j], want[j])
				}
			}
			// The input ending right before an inaccessible page.
			it := tailI8(t, rows*cols)
			copy(it, in)
			at := append([]int32(nil), a0...)
			done = im.fn(at, it, rows, cols)
			sumRowsInt8Generic(at, it, rows, cols, done)
			for j := range want {
				if at[j] != want[j] {
					t.Fatalf("%s rows=%d cols=%d at a page end: column %d got %d, want %d", im.name, rows, cols, j, at[j], want[j])
				}
			}
		}
	}
}
