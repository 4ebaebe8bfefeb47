package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of MinMaxF32 and ScaleRoundInt8: every usable implementation
// gives the portable results for lengths 0..300 at odd offsets, with x
// ending right before an inaccessible page and guard bands around dst;
// ScaleRoundInt8 on values around every rounding tie, ±0, huge, NaN and
// ±Inf, with symmetric and asymmetric parameters; the portable rounding
// checked against float64 rounding half away from zero.

func TestTwinMinMaxF32(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for _, im := range implsOf(minMaxF32Impls) {
		tail := tailF32(t, 300)
		for n := 1; n <= 300; n++ {
			x := tail[300-n:]
			for i := range x {
				x[i] = float32(r.NormFloat64() * 10)
			}
			if n%7 == 3 {
				x[r.IntN(n)] = float32(math.Inf(1 - 2*(n%2)))
			}
			lo, hi, nan := im.fn(x)
			wlo, whi, wnan := minMaxF32Generic(x)
			if nan || wnan || lo != wlo || hi != whi {
				t.Fatalf("%s n=%d: (%v, %v, %v), want (%v, %v, %v)", im.name, n, lo, hi, nan, wlo, whi, wnan)
			}
			want := x[0]
			for _, v := range x {
				want = min(want, v)
			}
			if lo != want {
				t.Fatalf("%s n=%d: min %v, want %v", im.name, n, lo, want)
			}
			for _, at := range []int{0, n - 1, n / 2} {
				saved := x[at]
				x[at] = float32(math.NaN())
				if _, _, nan := im.fn(x); !nan {
					t.Fatalf("%s n=%d: NaN at %d not seen", im.name, n, at)
				}
				x[at] = saved
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		if lo, hi, nan := MinMaxF32(nil); lo != 0 || hi != 0 || nan {
			t.Fatalf("MinMaxF32(nil) = %v, %v, %v", lo, hi, nan)
		}
	})
}

func TestTwinScaleRoundInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	specials := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -127.5, 127.49998, -128.5,
		float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e30, -1e30, 2147483648, 3e9, -3e9, 8388607.5, 1e-40}
	params := []struct {
		inv, zp float32
		lo, hi  int32
	}{
		{1, 0, -127, 127}, {0.73, 0, -127, 127}, {127 / 3.7, 0, -127, 127},
		{1, -3, -128, 127}, {0.4, 17, -128, 127}, {2.5, -128, -128, 127}, {1, 0, -5, 9},
	}
	for _, im := range implsOf(scaleRoundInt8Impls) {
		tail := tailF32(t, 300)
		for n := 0; n <= 300; n++ {
			p := params[n%len(params)]
			x := tail[300-n:]
			for i := range x {
				switch r.IntN(4) {
				case 0:
					x[i] = specials[r.IntN(len(specials))] / p.inv
				case 1:
					x[i] = (float32(r.IntN(300)-150) + 0.5) / p.inv // ties
				default:
					x[i] = float32(r.NormFloat64()*60) / p.inv
				}
			}
			want := make([]int8, n)
			scaleRoundInt8Generic(want, x, p.inv, p.zp, p.lo, p.hi)
			for i, v := range x {
				y := float32(p.zp + float32(v*p.inv))
				var ref int32
				switch {
				case y != y || float64(y) >= 2147483648:
					ref = p.lo
				default:
					f := math.Round(float64(y)) // half away from zero
					ref = int32(max(min(f, float64(p.hi)), float64(p.lo)))
				}
				if int32(want[i]) != ref {
					t.Fatalf("generic n=%d [%d]: %v·%v+%v → %d, want %d", n, i, v, p.inv, p.zp, want[i], ref)
				}
			}
			off := n % 5
			buf := make([]int8, n+off+2*guard)
			for i := range buf {
				buf[i] = 0x5a
			}
			dst := buf[guard+off : guard+off+n : guard+off+n]
			im.fn(dst, x, p.inv, p.zp, p.lo, p.hi)
			for i, v := range buf {
				if (i < guard+off || i >= guard+off+n) && v != 0x5a {
					t.Fatalf("%s n=%d: byte %d outside dst written", im.name, n, i-guard-off)
				}
			}
			for i := range want {
				if dst[i] != want[i] {
					t.Fatalf("%s n=%d [%d]: x %v (inv %v zp %v): got %d, want %d", im.name, n, i, x[i], p.inv, p.zp, dst[i], want[i])
				}
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("ScaleRoundInt8 with a range outside int8 did not panic")
			}
		}()
		ScaleRoundInt8(make([]int8, 1), []float32{1}, 1, 0, -129, 0)
	})
}

// BenchmarkScaleRoundInt8 times every usable implementation of both
// loops on a hybrid convolution's input, 160×160×32 values (go test
// ./arch -run '^$' -bench 'ScaleRoundInt8|MinMaxF32').
func BenchmarkScaleRoundInt8(b *testing.B) {
	x := make([]float32, 160*160*32)
	for i := range x {
		x[i] = float32(i%251)*0.37 - 40
	}
	dst := make([]int8, len(x))
	for _, im := range implsOf(scaleRoundInt8Impls) {
		b.Run(im.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				im.fn(dst, x, 1.3, -3, -128, 127)
			}
		})
	}
	for _, im := range implsOf(minMaxF32Impls) {
		b.Run("minmax/"+im.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				im.fn(x)
			}
		})
	}
}

// TestTwinDequantRowsF32: every usable implementation gives the portable
// bits for 1..5 rows of 1..70 channels, with and without a bias, sums
// near the int32 limits and beyond 2^24 (the conversion rounds), scales
// and biases with ±0, NaN and ±Inf, and guard bands around dst.
func TestTwinDequantRowsF32(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	fs := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40, 3.3e38}
	for _, im := range implsOf(dequantRowsF32Impls) {
		for trial := range 300 {
			m, n := trial%5+1, trial%70+1
			acc, corr := make([]int32, m*n), make([]int32, n)
			scale, bias := make([]float32, n), make([]float32, n)
			for i := range acc {
				acc[i] = int32(r.Uint32())
				if r.IntN(3) > 0 {
					acc[i] = int32(r.IntN(1<<20) - 1<<19)
				}
			}
			for c := range n {
				corr[c] = int32(r.IntN(1<<16) - 1<<15)
				scale[c], bias[c] = float32(r.NormFloat64()*1e-3), float32(r.NormFloat64())
				if r.IntN(8) == 0 {
					scale[c] = fs[r.IntN(len(fs))]
				}
				if r.IntN(8) == 0 {
					bias[c] = fs[r.IntN(len(fs))]
				}
			}
			for _, b := range [][]float32{bias, nil} {
				want := make([]float32, m*n)
				dequantRowsF32Generic(want, acc, m, n, corr, scale, b)
				off := trial % 5
				buf, dst := guardedF32(m*n, off)
				im.fn(dst, acc, m, n, corr, scale, b)
				checkGuardsF32(t, im.name, buf, guard+off, m*n)
				for i := range want {
					if math.Float32bits(dst[i]) != math.Float32bits(want[i]) && !(dst[i] != dst[i] && want[i] != want[i]) {
						t.Fatalf("%s trial %d (%d×%d, bias %v) [%d]: got %v, want %v", im.name, trial, m, n, b != nil, i, dst[i], want[i])
					}
				}
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		DequantRowsF32(nil, nil, 0, 4, nil, nil, nil)
		defer func() {
			if recover() == nil {
				t.Error("DequantRowsF32 with a short scale did not panic")
			}
		}()
		DequantRowsF32(make([]float32, 4), make([]int32, 4), 1, 4, make([]int32, 4), make([]float32, 3), nil)
	})
}

// TestTwinMulAccOffsetInt8: every usable implementation gives the
// portable sums for lengths 0..200 with extreme weights, inputs and zero
// points, the inputs ending right before an inaccessible page, acc
// inside guard bands and with sums near the int32 limits (wrapping).
func TestTwinMulAccOffsetInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(97, 98))
	for _, im := range implsOf(mulAccOffsetInt8Impls) {
		tw, tx := tailI8(t, 200), tailI8(t, 200)
		for n := 0; n <= 200; n++ {
			w, x := tw[200-n:], tx[200-n:]
			for i := range w {
				w[i], x[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
				if r.IntN(5) == 0 {
					w[i], x[i] = -128, 127
				}
			}
			zp := int32([]int{-128, 127, 0, -3, 55}[n%5])
			seed := make([]int32, n)
			for i := range seed {
				seed[i] = int32(r.Uint32())
			}
			want := append([]int32(nil), seed...)
			mulAccOffsetInt8Generic(want, w, x, zp)
			const g = 8
			buf := make([]int32, n+2*g)
			for i := range buf {
				buf[i] = 0x5a5a5a5a
			}
			acc := buf[g : g+n : g+n]
			copy(acc, seed)
			im.fn(acc, w, x, zp)
			for i, v := range buf {
				if (i < g || i >= g+n) && v != 0x5a5a5a5a {
					t.Fatalf("%s n=%d: acc[%d] outside written", im.name, n, i-g)
				}
			}
			for i := range want {
				if acc[i] != want[i] {
					t.Fatalf("%s n=%d [%d]: w %d x %d zp %d: got %d, want %d", im.name, n, i, w[i], x[i], zp, acc[i], want[i])
				}
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("MulAccOffsetInt8 with zp 128 did not panic")
			}
		}()
		MulAccOffsetInt8(make([]int32, 1), []int8{1}, []int8{1}, 128)
	})
}

// BenchmarkDequantRowsF32 times every usable implementation of
// DequantRowsF32 and MulAccOffsetInt8 on a hybrid layer's shapes: 64
// rows of 100 channels with a bias, and one depthwise tap over 4096
// channels (go test ./arch -run '^$' -bench 'DequantRowsF32').
func BenchmarkDequantRowsF32(b *testing.B) {
	const m, n = 64, 100
	acc, corr := make([]int32, m*n), make([]int32, n)
	scale, bias, dst := make([]float32, n), make([]float32, n), make([]float32, m*n)
	for i := range acc {
		acc[i] = int32(i*7919%20001 - 10000)
	}
	for c := range n {
		corr[c], scale[c], bias[c] = int32(c-50), 1e-3*float32(c+1), float32(c)*0.1
	}
	for _, im := range implsOf(dequantRowsF32Impls) {
		b.Run(im.name, func(b *testing.B) {
			b.SetBytes(int64(8 * m * n))
			for b.Loop() {
				im.fn(dst, acc, m, n, corr, scale, bias)
			}
		})
	}
	w, x, a := make([]int8, 4096), make([]int8, 4096), make([]int32, 4096)
	for i := range w {
		w[i], x[i] = int8(i*31), int8(i*17)
	}
	for _, im := range implsOf(mulAccOffsetInt8Impls) {
		b.Run("mulaccoffset/"+im.name, func(b *testing.B) {
			b.SetBytes(int64(len(a)))
			for b.Loop() {
				im.fn(a, w, x, -3)
			}
		})
	}
}
