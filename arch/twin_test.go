package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Every registered implementation that this CPU can run is compared here
// with the portable one (and with float64/int64 references) over lengths
// 0..257 and random shapes, slices starting at odd element offsets, inputs
// that end right before an inaccessible page (Linux: catches reads past
// the end), guard bands around destinations (catches stray writes), and
// values including ±0, subnormals, large magnitudes, NaN and ±Inf.

// implsOf lists the usable implementations of p, generic first.
func implsOf[F any](p *impls[F]) []impl[F] {
	var out []impl[F]
	for i := range p.list {
		if p.usable(i) {
			out = append(out, p.list[i])
		}
	}
	return out
}

// f32Kind selects a value distribution for genF32.
type f32Kind int

const (
	kindUniform f32Kind = iota // [-1, 1)
	kindMixed                  // ±0, subnormals, tiny, large, integers, uniform
	numKinds
)

func genF32(r *rand.Rand, v []float32, kind f32Kind) {
	for i := range v {
		if kind == kindUniform {
			v[i] = float32(r.Float64()*2 - 1)
			continue
		}
		sign := float32(1)
		if r.IntN(2) == 0 {
			sign = -1
		}
		switch r.IntN(8) {
		case 0:
			v[i] = 0 * sign // ±0
		case 1: // subnormal
			v[i] = math.Float32frombits(uint32(r.IntN(1<<23-1)+1) | uint32(r.IntN(2))<<31)
		case 2:
			v[i] = sign * float32(r.Float64()) * 1e-30
		case 3:
			v[i] = sign * float32(r.Float64()) * 1e17
		case 4:
			v[i] = float32(r.IntN(2001) - 1000)
		default:
			v[i] = float32(r.Float64()*2 - 1)
		}
	}
}

const sentinelF32 = 0x7fc0dead // a NaN payload no kernel produces

// guardedF32 returns a buffer of n values surrounded by guard elements
// holding sentinelF32, and the n-element window starting at element off
// of the buffer's interior (off shifts the alignment).
func guardedF32(n, off int) (buf, win []float32) {
	buf = make([]float32, n+off+2*guard)
	for i := range buf {
		buf[i] = math.Float32frombits(sentinelF32)
	}
	return buf, buf[guard+off : guard+off+n : guard+off+n]
}

// checkGuardsF32 fails if an element of buf outside win changed.
func checkGuardsF32(t testing.TB, what string, buf []float32, start, n int) {
	t.Helper()
	for i, v := range buf {
		if (i < start || i >= start+n) && math.Float32bits(v) != sentinelF32 {
			t.Fatalf("%s: element %d outside the destination written (%v)", what, i-start, v)
		}
	}
}

// sumOK reports whether got is an acceptable float32 evaluation of a sum
// whose float64 value is ref and whose terms have absolute values summing
// to abs, over n terms: NaN and ±Inf must match exactly; finite values
// must be within (n+2) float32 ulps of abs (the worst-case rounding of
// any summation order, with or without FMA) plus n smallest subnormals.
func sumOK(got float32, ref, abs float64, n int) bool {
	switch {
	case math.IsNaN(ref):
		return got != got
	case math.IsInf(ref, 0):
		return float64(got) == ref
	}
	tol := float64(n+2)*0x1p-23*abs + float64(n+1)*0x1p-149
	return math.Abs(float64(got)-ref) <= tol
}

// matVecRef returns the float64 value and the absolute sum of
// dst0 + Σ_c m[c]·x[c].
func matVecRef(dst0 float32, row, x []float32) (ref, abs float64) {
	ref, abs = float64(dst0), math.Abs(float64(dst0))
	for c, w := range row {
		p := float64(w) * float64(x[c])
		ref += p
		abs += math.Abs(p)
	}
	return ref, abs
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

// Integer results must be bit-identical to the portable code.

const sentinelI32 = -0x21524111

func genI8(r *rand.Rand, v []int8, kind int) {
	for i := range v {
		switch kind {
		case 0:
			v[i] = int8(r.IntN(256) - 128)
		case 1: // the extremes, which break naive VPMADDUBSW/VPSIGNB schemes
			v[i] = []int8{-128, 127, -127, -1, 0, 1}[r.IntN(6)]
		default:
			v[i] = -128
		}
	}
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

// forEachLevel runs f as a subtest at every level this process offers and
// restores the level afterwards.
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved := Current()
	defer func() {
		if err := Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	for _, l := range Levels() {
		if err := Use(l); err != nil {
			t.Fatal(err)
		}
		t.Run(l.String(), f)
	}
}
