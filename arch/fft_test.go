package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of FFTRadix4F64: the portable code against the butterfly written
// out from the definition in complex128 terms, and every usable
// implementation against the portable code, bit for bit, for quarters 1
// to 1024 and 1 to 5 blocks, on uniform values and on values with ±0,
// subnormals, huge magnitudes, ±Inf and NaN, with guard bands around the
// data.

const sentinelF64 = 0x7ff4dead_beef0123 // a signalling NaN no kernel writes

// genFFT64 returns n values: uniform in [-1, 1), or (mixed) a mix of
// special values.
func genFFT64(r *rand.Rand, n int, mixed bool) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*r.Float64() - 1
		if !mixed {
			continue
		}
		switch r.IntN(12) {
		case 0:
			v[i] = math.Copysign(0, v[i])
		case 1:
			v[i] *= 0x1p-1060 // subnormal
		case 2:
			v[i] *= 0x1p1000 // products overflow
		case 3:
			v[i] = math.Inf(int(math.Copysign(1, v[i])))
		case 4:
			v[i] = math.NaN()
		case 5:
			v[i] = float64(r.IntN(7) - 3)
		}
	}
	return v
}

// sameF64 fails unless got and want hold the same bits, or NaN both.
func sameF64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			t.Fatalf("%s: element %d: got %v (%#x), want %v (%#x)", what, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

// twiddlesOf reads bin k's twiddles from the FFTRadix4F64 layout.
func twiddlesOf(tw []float64, h, k int) (w1, w2, w3 complex128) {
	g := FFTTwiddleGroup(h)
	t := tw[6*(k/g)*g:]
	l := k % g
	return complex(t[l], t[g+l]), complex(t[2*g+l], t[3*g+l]), complex(t[4*g+l], t[5*g+l])
}

func TestFFTRadix4F64Definition(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for h := 1; h <= 256; h *= 2 {
		n := 4 * h * (1 + r.IntN(3))
		re, im, tw := genFFT64(r, n, false), genFFT64(r, n, false), genFFT64(r, 6*h, false)
		x := make([]complex128, n)
		for i := range x {
			x[i] = complex(re[i], im[i])
		}
		fftRadix4F64Generic(re, im, h, tw)
		mul := func(w, v complex128) complex128 {
			return complex(float64(real(w)*real(v))-float64(imag(w)*imag(v)), float64(real(w)*imag(v))+float64(imag(w)*real(v)))
		}
		for s := 0; s < n; s += 4 * h {
			for k := 0; k < h; k++ {
				w1, w2, w3 := twiddlesOf(tw, h, k)
				u0, u1, u2, u3 := x[s+k], mul(w2, x[s+h+k]), mul(w1, x[s+2*h+k]), mul(w3, x[s+3*h+k])
				a, b, c, d := u0+u1, u0-u1, u2+u3, u2-u3
				id := complex(-imag(d), real(d)) // i·d
				want := [4]complex128{a + c, b - id, a - c, b + id}
				for j, v := range want {
					if got := complex(re[s+j*h+k], im[s+j*h+k]); got != v {
						t.Fatalf("h=%d block %d bin %d output %d: %v, want %v", h, s/(4*h), k, j, got, v)
					}
				}
			}
		}
	}
}

func TestTwinFFTRadix4F64(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	const guard = 16
	for _, im := range implsOf(fftRadix4F64Impls) {
		for h := 4; h <= 1024; h *= 2 {
			for blocks := 1; blocks <= 5; blocks++ {
				if h >= 256 && blocks > 2 {
					continue
				}
				for _, mixed := range []bool{false, true} {
					n := 4 * h * blocks
					re, imv, tw := genFFT64(r, n, mixed), genFFT64(r, n, mixed), genFFT64(r, 6*h, mixed)
					if !mixed {
						for k := 0; k < h; k++ { // real twiddles: unit magnitude
							g := FFTTwiddleGroup(h)
							base, l := 6*(k/g)*g, k%g
							for j := 0; j < 3; j++ {
								s, c := math.Sincos(-2 * math.Pi * float64((j+1)*k) / float64(4*h))
								tw[base+2*j*g+l], tw[base+(2*j+1)*g+l] = c, s
							}
						}
					}
					wantRe, wantIm := append([]float64(nil), re...), append([]float64(nil), imv...)
					fftRadix4F64Generic(wantRe, wantIm, h, tw)
					bufRe, bufIm := make([]float64, n+2*guard), make([]float64, n+2*guard)
					for i := range bufRe {
						bufRe[i], bufIm[i] = math.Float64frombits(sentinelF64), math.Float64frombits(sentinelF64)
					}
					gr, gi := bufRe[guard:guard+n:guard+n], bufIm[guard:guard+n]
					copy(gr, re)
					copy(gi, imv)
					im.fn(gr, gi, h, tw)
					for i := range bufRe {
						if (i < guard || i >= guard+n) && (math.Float64bits(bufRe[i]) != sentinelF64 || math.Float64bits(bufIm[i]) != sentinelF64) {
							t.Fatalf("%s h=%d blocks=%d: element %d outside the data written", im.name, h, blocks, i-guard)
						}
					}
					sameF64(t, im.name+" re", gr, wantRe)
					sameF64(t, im.name+" im", gi, wantIm)
				}
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		// The exported function at every level, quarters 1 and 2
		// (always the portable code) included, and its refusals.
		for _, h := range []int{1, 2, 4, 8} {
			n := 4 * h
			re, imv, tw := genFFT64(r, 2*n, false), genFFT64(r, 2*n, false), genFFT64(r, 6*h, false)
			wr, wi := append([]float64(nil), re...), append([]float64(nil), imv...)
			FFTRadix4F64(re, imv, h, tw)
			fftRadix4F64Generic(wr, wi, h, tw)
			sameF64(t, "FFTRadix4F64 re", re, wr)
			sameF64(t, "FFTRadix4F64 im", imv, wi)
		}
		FFTRadix4F64(nil, nil, 4, make([]float64, 24)) // no values: no access
		for _, bad := range []func(){
			func() { FFTRadix4F64(make([]float64, 12), make([]float64, 12), 4, make([]float64, 24)) }, // not a multiple of 4h
			func() { FFTRadix4F64(make([]float64, 16), make([]float64, 15), 4, make([]float64, 24)) }, // im short
			func() { FFTRadix4F64(make([]float64, 16), make([]float64, 16), 4, make([]float64, 23)) }, // tw short
			func() { FFTRadix4F64(make([]float64, 24), make([]float64, 24), 3, make([]float64, 18)) }, // h not a power of two
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Error("FFTRadix4F64 accepted a bad call")
					}
				}()
				bad()
			}()
		}
	})
}
