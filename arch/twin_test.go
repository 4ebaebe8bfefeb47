package arch

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// The harness of the twin tests in every family's X_test.go: every
// registered implementation that this CPU can run is compared with the
// portable one (and with float64/int64 references) over lengths 0..257
// and random shapes, slices starting at odd element offsets, inputs that
// end right before an inaccessible page (Linux: catches reads past the
// end), guard bands around destinations (catches stray writes), and values
// including ±0, subnormals, large magnitudes, NaN and ±Inf.

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
	return sumWithin(got, ref, abs, n, 0x1p-149)
}

// flushesSubnormals reports whether the implementation name computes
// with subnormal inputs and results flushed to zero: 32-bit ARM NEON,
// whose arithmetic always runs in the Standard FPSCR mode.
func flushesSubnormals(name string) bool {
	return runtime.GOARCH == "arm" && name == "neon"
}

// ftzF32 returns v with subnormals flushed to a zero of the same sign.
func ftzF32(v float32) float32 {
	if v != 0 && math.Abs(float64(v)) < 0x1p-126 {
		return float32(math.Copysign(0, float64(v)))
	}
	return v
}

// ftzCopy returns a copy of v with subnormals flushed.
func ftzCopy(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = ftzF32(x)
	}
	return out
}

// sumOKFTZ is sumOK for an implementation that flushes subnormals
// (flushesSubnormals), against a reference computed from inputs so
// flushed: each of the 2n roundings may also flush a subnormal product
// or sum, an error of at most 2^-126 each.
func sumOKFTZ(got float32, ref, abs float64, n int) bool {
	return sumWithin(got, ref, abs, n, 0x1p-125)
}

// sumWithin is sumOK with tiny, the absolute error allowed per term
// below the normal range.
func sumWithin(got float32, ref, abs float64, n int, tiny float64) bool {
	switch {
	case math.IsNaN(ref):
		return got != got
	case math.IsInf(ref, 0):
		return float64(got) == ref
	}
	tol := float64(n+2)*0x1p-23*abs + float64(n+1)*tiny
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

// guard is the number of sentinel elements kept on each side of a
// destination to catch stray writes.
const guard = 8
