package builtin

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// TestCastFastMatchesGeneral checks castFast against the general
// castLoad/castStore conversion for every pair it takes, on random bits
// and on edge values (type bounds, NaN, infinities, halves, values just
// inside and outside each integer range), 0..257 elements.
func TestCastFastMatchesGeneral(t *testing.T) {
	ints := []ops.DataType{ops.Int8, ops.Uint8, ops.Int16, ops.Uint16, ops.Int32, ops.Uint32, ops.Int64}
	types := append([]ops.DataType{ops.Float32}, ints...)
	var edges []float32
	for _, v := range []float64{0, -0.0, 0.5, -0.5, 0.9999, -0.9999, 1, -1, 1.5, -2.5,
		127, 127.5, 128, -128, -128.5, -129, 255, 255.5, 256, -1.5, 32767.5, 32768, -32768.9, -32769,
		65535.5, 65536, 2147483520, 2147483648, -2147483648, -2147483904, 4294967040, 4294967296,
		9.2233715e18, 9.223372e18, -9.223372e18, -9.2233725e18, 1e30, -1e30,
		math.Inf(1), math.Inf(-1), math.NaN(), 16777217, -16777217} {
		edges = append(edges, float32(v))
	}
	r := rand.New(rand.NewPCG(14, 41))
	for _, from := range types {
		for _, to := range types {
			if from == to {
				continue
			}
			for n := 0; n <= 257; n += 1 + n/16 {
				in := &ops.Tensor{Type: from, Shape: []int{n}, Data: make([]byte, n*from.Size())}
				for i := range in.Data {
					in.Data[i] = byte(r.Uint32())
				}
				if from == ops.Float32 {
					f := in.Float32s()
					for i := range f {
						switch r.IntN(3) {
						case 0:
							f[i] = edges[r.IntN(len(edges))]
						case 1:
							f[i] = float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(66))))
						}
					}
				}
				got := &ops.Tensor{Type: to, Shape: []int{n}, Data: make([]byte, n*to.Size())}
				want := &ops.Tensor{Type: to, Shape: []int{n}, Data: make([]byte, n*to.Size())}
				if !castFast(in, got, from, to, n) {
					t.Fatalf("%s → %s: castFast does not take the pair", from, to)
				}
				for i := 0; i < n; i++ {
					castStore(want, to, i, castLoad(in, from, i))
				}
				if !bytes.Equal(got.Data, want.Data) {
					for i := 0; i < n; i++ {
						w := to.Size()
						if !bytes.Equal(got.Data[i*w:(i+1)*w], want.Data[i*w:(i+1)*w]) {
							t.Fatalf("%s → %s n=%d [%d]: input bytes %x: got %x, want %x", from, to, n, i,
								in.Data[i*from.Size():(i+1)*from.Size()], got.Data[i*w:(i+1)*w], want.Data[i*w:(i+1)*w])
						}
					}
				}
			}
		}
	}
	bad := &ops.Tensor{Type: ops.Bool, Shape: []int{1}, Data: make([]byte, 1)}
	if castFast(bad, &ops.Tensor{Type: ops.Float32, Shape: []int{1}, Data: make([]byte, 4)}, ops.Bool, ops.Float32, 1) {
		t.Error("bool → float32: castFast took a pair it does not do")
	}
}

// TestQuantizeF32MatchesRound checks arch.QuantizeF32Int8/Uint8/Int16,
// which QUANTIZE's per-tensor float path calls, against the kernel's
// scalar formula (math.Round, f64ToInt32, ops.ClampInt32) on edge
// quotients: exact halves of either sign, values one ulp beside them,
// NaN, infinities and quotients beyond the int32 range.
func TestQuantizeF32MatchesRound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 14))
	x := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
		math.Nextafter32(0.5, 0), math.Nextafter32(-0.5, 0), math.Nextafter32(2.5, 3), 126.5, 127.5, -128.5, -129.5,
		float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 3e9, -3e9, 8388607.5, 1 << 24}
	for len(x) < 300 {
		x = append(x, float32(r.NormFloat64()*200), float32(r.IntN(4000)-2000)/8)
	}
	for _, scale := range []float64{1, 0.5, 0.25, 1.0 / 3, 0.007843138, 3.7} {
		for _, zp := range []int32{0, -128, 37} {
			want := func(v float32, lo, hi int32) int32 {
				return ops.ClampInt32(f64ToInt32(math.Round(float64(v)/scale))+zp, lo, hi)
			}
			d8, du, d16 := make([]int8, len(x)), make([]uint8, len(x)), make([]int16, len(x))
			arch.QuantizeF32Int8(d8, x, &arch.QuantizeF32Params{Scale: scale, ZeroPoint: zp, Lo: -128, Hi: 127})
			arch.QuantizeF32Uint8(du, x, &arch.QuantizeF32Params{Scale: scale, ZeroPoint: zp + 128, Lo: 0, Hi: 255})
			arch.QuantizeF32Int16(d16, x, &arch.QuantizeF32Params{Scale: scale, ZeroPoint: zp, Lo: -32768, Hi: 32767})
			for i, v := range x {
				if w := want(v, -128, 127); int32(d8[i]) != w {
					t.Fatalf("int8 scale %g zp %d x %g: got %d, want %d", scale, zp, v, d8[i], w)
				}
				if w := ops.ClampInt32(f64ToInt32(math.Round(float64(v)/scale))+zp+128, 0, 255); int32(du[i]) != w {
					t.Fatalf("uint8 scale %g zp %d x %g: got %d, want %d", scale, zp+128, v, du[i], w)
				}
				if w := want(v, -32768, 32767); int32(d16[i]) != w {
					t.Fatalf("int16 scale %g zp %d x %g: got %d, want %d", scale, zp, v, d16[i], w)
				}
			}
		}
	}
}
