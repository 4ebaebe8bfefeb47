package arch

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Tests of QuantizeF32Int8/Uint8/Int16: every usable implementation gives
// the portable result for lengths 0..257 at odd offsets, with guard bands
// around dst, on random values and on the edges of the formula (exact
// halves of either sign and their neighbours, NaN, ±Inf, ±0, quotients
// beyond the int32 range and at its bounds, subnormals), for the
// quantised types' full ranges and narrower clamps, zero points that
// make the int32 addition wrap included; and the portable code against
// the formula written with math.Round.

var quantizeSpecials = []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
	math.Nextafter32(0.5, 0), math.Nextafter32(-0.5, 0), math.Nextafter32(2.5, 3), 127.5, -128.5, 255.5,
	float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 3e9, -3e9, 2147483520, -2147483648,
	1e-45, -1e-45, math.MaxFloat32, -math.MaxFloat32, 8388607.5, 1 << 24}

func TestTwinQuantizeF32(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	type kind struct {
		name   string
		k      int
		size   int
		lo, hi int32
	}
	kinds := []kind{{"int8", qkInt8, 1, -128, 127}, {"uint8", qkUint8, 1, 0, 255}, {"int16", qkInt16, 2, -32768, 32767}}
	scales := []float64{1, 0.5, 1.0 / 3, float64(float32(0.007843138)), 3.7, 1e-30, 1e30}
	for _, im := range implsOf(quantizeF32Impls) {
		for _, kd := range kinds {
			for n := 0; n <= 257; n++ {
				x := make([]float32, n+3)[n%4:][:n]
				for i := range x {
					switch r.IntN(3) {
					case 0:
						x[i] = quantizeSpecials[r.IntN(len(quantizeSpecials))]
					case 1:
						x[i] = float32(r.NormFloat64() * 300)
					default:
						x[i] = float32(r.IntN(1200)-600) / 4
					}
				}
				p := QuantizeF32Params{Scale: scales[n%len(scales)], ZeroPoint: kd.lo + int32(r.IntN(int(kd.hi-kd.lo+1))), Lo: kd.lo, Hi: kd.hi}
				if n%5 == 0 {
					p.ZeroPoint = []int32{math.MinInt32 + 1, math.MaxInt32, -1 << 30}[n%3] // the addition wraps
				}
				if n%3 == 1 {
					a, b := kd.lo+int32(r.IntN(int(kd.hi-kd.lo+1))), kd.lo+int32(r.IntN(int(kd.hi-kd.lo+1)))
					p.Lo, p.Hi = min(a, b), max(a, b)
				}
				buf := make([]byte, (n+2*guard)*kd.size)
				for i := range buf {
					buf[i] = 0x5a
				}
				want := make([]byte, n*kd.size+1)
				quantizeF32Generic(unsafe.Pointer(&want[0]), x, &p, kd.k)
				im.fn(unsafe.Pointer(&buf[guard*kd.size]), x, &p, kd.k)
				got := buf[guard*kd.size : (guard+n)*kd.size]
				for i := range got {
					if got[i] != want[i] {
						e := i / kd.size
						t.Fatalf("%s %s n=%d element %d (x %v, %+v): got byte %#x, want %#x", im.name, kd.name, n, e, x[e], p, got[i], want[i])
					}
				}
				for i, v := range buf {
					if (i < guard*kd.size || i >= (guard+n)*kd.size) && v != 0x5a {
						t.Fatalf("%s %s n=%d: wrote outside dst at byte %d", im.name, kd.name, n, i-guard*kd.size)
					}
				}
			}
		}
	}
}

func TestQuantizeF32Formula(t *testing.T) {
	p := QuantizeF32Params{Scale: 0.5, ZeroPoint: 3, Lo: -128, Hi: 127}
	x := []float32{0.25, -0.25, 0.75, -0.75, 1.2, -1.2, 100, -100, float32(math.NaN()), float32(math.Inf(1)), 1e20}
	// q = x/0.5: 0.5→1, -0.5→-1, 1.5→2, -1.5→-2, 2.4→2, -2.4→-2, 200, -200;
	// NaN, +Inf and 2e20 convert to MinInt32, then +3 and the clamp.
	want := []int8{4, 2, 5, 1, 5, 1, 127, -128, -128, -128, -128}
	got := make([]int8, len(x))
	QuantizeF32Int8(got, x, &p)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("x %v: got %d, want %d", x[i], got[i], want[i])
		}
	}
	for _, v := range quantizeSpecials {
		r := math.Round(float64(v) / p.Scale)
		c := int32(math.MinInt32)
		if !math.IsNaN(r) && r >= math.MinInt32 && r <= math.MaxInt32 {
			c = int32(r)
		}
		w := min(max(c+p.ZeroPoint, p.Lo), p.Hi)
		if g := p.quantizeOne(v); g != w {
			t.Errorf("quantizeOne(%v) = %d, want %d", v, g, w)
		}
	}
}

func TestQuantizeF32Panics(t *testing.T) {
	for name, f := range map[string]func(){
		"int8 range":  func() { QuantizeF32Int8(nil, nil, &QuantizeF32Params{Lo: -129, Hi: 0}) },
		"uint8 range": func() { QuantizeF32Uint8(nil, nil, &QuantizeF32Params{Lo: 0, Hi: 256}) },
		"int16 range": func() { QuantizeF32Int16(nil, nil, &QuantizeF32Params{Lo: 5, Hi: 4}) },
		"short dst":   func() { QuantizeF32Int8(make([]int8, 2), make([]float32, 3), &QuantizeF32Params{Lo: -128, Hi: 127}) },
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
}

// TestQuantizeF32Halves: for float32 scales of every magnitude (random,
// and typical activation scales), values on the quotient's
// half-integers wherever (k + 0.5)·scale is a float32, their float32
// neighbours and quotients up to 2^30, every implementation against the
// portable division.
func TestQuantizeF32Halves(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	var scales []float64
	for range 60 {
		scales = append(scales, float64(float32(math.Ldexp(1+r.Float64(), r.IntN(60)-40))))
	}
	scales = append(scales, float64(float32(0.007843138)), float64(float32(1.0/255)), float64(float32(0.0235294)), 1, 0.5, float64(float32(1e-38)))
	for _, im := range implsOf(quantizeF32Impls) {
		for _, s := range scales {
			var x []float32
			for range 400 {
				k := float64(r.IntN(600) - 300)
				if r.IntN(8) == 0 {
					k = math.Ldexp(float64(r.IntN(1000)), 17+r.IntN(14)) // up to 2^30
				}
				h := float32((k + 0.5) * s)
				x = append(x, h, math.Nextafter32(h, float32(math.Inf(1))), math.Nextafter32(h, float32(math.Inf(-1))), float32(k*s), -h)
			}
			p := QuantizeF32Params{Scale: s, ZeroPoint: int32(r.IntN(256) - 128), Lo: -32768, Hi: 32767}
			want := make([]int16, len(x))
			got := make([]int16, len(x))
			quantizeF32Generic(unsafe.Pointer(&want[0]), x, &p, qkInt16)
			im.fn(unsafe.Pointer(&got[0]), x, &p, qkInt16)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s scale %g: x %v (%#x): got %d, want %d", im.name, s, x[i], math.Float32bits(x[i]), got[i], want[i])
				}
			}
		}
	}
}
