package arch

import (
	"encoding/binary"
	"math"
	"testing"
)

// Fuzz targets of the convolution families: every usable implementation
// against the portable one (integer results bit for bit) and the float64
// reference (float results), on fuzzer-chosen shapes and values.
//
//	go test ./arch -run='^$' -fuzz=FuzzGemm -fuzztime=1m
//	go test ./arch -run='^$' -fuzz=FuzzDepthwise -fuzztime=1m
//	go test ./arch -run='^$' -fuzz=FuzzRequantizeChannels -fuzztime=1m

// fuzzBytes hands out the fuzzer's bytes, cycling when they run out.
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) next() byte {
	if len(f.b) == 0 {
		return 0
	}
	v := f.b[f.i%len(f.b)]
	f.i++
	return v
}

func (f *fuzzBytes) f32() float32 {
	var w [4]byte
	for i := range w {
		w[i] = f.next()
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(w[:]))
}

func (f *fuzzBytes) i32() int32 {
	var w [4]byte
	for i := range w {
		w[i] = f.next()
	}
	return int32(binary.LittleEndian.Uint32(w[:]))
}

// FuzzGemm covers GemmF32, GemmInt8 and GemmInt8Requantize: shape bytes
// m (0-19), n (1-40), k (1-70), then the values.
func FuzzGemm(f *testing.F) {
	f.Add(uint8(9), uint8(8), uint8(27), []byte{1, 2, 3, 0x80, 0x7f, 0xff, 0, 0x3f, 0x80, 0x80})
	f.Add(uint8(17), uint8(33), uint8(5), []byte{0xff, 0xff, 0x7f, 0x7f, 0, 0, 0xc0, 0x7f})
	f.Fuzz(func(t *testing.T, mB, nB, kB uint8, data []byte) {
		m, n, k := int(mB%20), 1+int(nB%40), 1+int(kB%70)
		src := &fuzzBytes{b: data}
		c := gemmCase{m, n, k, k, n}
		af, wf, bias := make([]float32, m*k), make([]float32, n*k), make([]float32, n)
		for i := range af {
			af[i] = src.f32()
		}
		for i := range wf {
			wf[i] = src.f32()
		}
		for i := range bias {
			bias[i] = src.f32()
		}
		finite := true
		for _, s := range [][]float32{af, wf, bias} {
			for _, v := range s {
				if math.IsNaN(float64(v)) || math.Abs(float64(v)) > 1e15 {
					finite = false
				}
			}
		}
		if finite { // (overflowing sums depend on the order)
			packed := make([]float32, PackedGemmF32Len(n, k))
			PackGemmF32(packed, wf, n, k)
			for _, im := range implsOf(gemmF32Impls) {
				checkGemmF32(t, im.name, im.fn, c, af, wf, packed, bias, float32(math.Inf(-1)), float32(math.Inf(1)))
			}
		}
		a8, w8, seed := make([]int8, m*k), make([]int8, n*k), make([]int32, n)
		for i := range a8 {
			a8[i] = int8(src.next())
		}
		for i := range w8 {
			w8[i] = int8(src.next())
		}
		for i := range seed {
			seed[i] = src.i32()
		}
		packed8 := make([]int8, PackedGemmInt8Len(n, k))
		PackGemmInt8(packed8, w8, n, k)
		for _, im := range implsOf(gemmInt8Impls) {
			checkGemmInt8(t, im.name, im.fn, c, a8, w8, packed8, seed)
		}
		if m == 0 {
			return
		}
		mult, shift := make([]int32, n), make([]int, n)
		for i := range mult {
			mult[i] = src.i32()
			if mult[i] == math.MinInt32 {
				mult[i]++
			}
			shift[i] = int(src.next()%63) - 31
		}
		q, err := NewChannelRequant(mult, shift)
		if err != nil {
			t.Fatal(err)
		}
		zp, lo, hi := int32(int8(src.next())), int32(-128), int32(127)
		if src.next()%2 == 0 {
			lo, hi = 0, 255
		}
		wZero := int32(int8(src.next()))
		want := make([]byte, m*n)
		for p := 0; p < m; p++ {
			for j := 0; j < n; j++ {
				s := seed[j]
				for i := 0; i < k; i++ {
					s += int32(a8[p*k+i]) * (int32(w8[j*k+i]) - wZero)
				}
				want[p*n+j] = byte(max(lo, min(MultiplyByQuantizedMultiplier(s, mult[j], shift[j])+zp, hi)))
			}
		}
		for _, im := range implsOf(gemmInt8RqImpls) {
			got := make([]byte, m*n)
			im.fn(got, n, a8, k, packed8, seed, wZero, q, m, n, k, zp, lo, hi)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("GemmInt8Requantize %s %v [%d]: %d, want %d", im.name, c, i, got[i], want[i])
				}
			}
		}
	})
}

// FuzzDepthwise covers the depthwise kernel in its three modes on a
// fuzzer-chosen rectangle (rows 0-5, columns 0-10, channels 1-40, taps
// 0-3 × 0-3, strides and dilations 1-2).
func FuzzDepthwise(f *testing.F) {
	f.Add([]byte{3, 9, 17, 3, 3, 1, 1, 0, 1, 2, 3, 4, 5, 250, 251, 0x80})
	f.Add([]byte{1, 4, 8, 2, 3, 2, 2, 1, 0x7f, 0x80, 0xff, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &fuzzBytes{b: data}
		g := DepthwiseGeom{Rows: int(src.next() % 6), Cols: int(src.next() % 11), C: 1 + int(src.next()%40),
			TapRows: int(src.next() % 4), TapCols: int(src.next() % 4)}
		s, d := 1+int(src.next()%2), 1+int(src.next()%2)
		inRow := (g.Cols*s + 3*d + 1) * g.C
		g.XColStep, g.XTapCol, g.XRowStep, g.XTapRow = s*g.C, d*g.C, s*inRow, d*inRow
		g.DstRowStep, g.WTapRow = g.Cols*g.C, 3*g.C
		mode := int(src.next() % 3)
		xn, wn, dn, err := g.span()
		if err != nil {
			t.Fatal(err)
		}
		x, w, bias := make([]float32, xn), make([]float32, wn), make([]uint32, g.C)
		val := func() float32 {
			if mode != 0 {
				return float32(int(src.next()) - int(src.next()))
			}
			v := src.f32()
			if v != v || math.Abs(float64(v)) > 1e15 { // (no order-dependent overflow)
				v = float32(int8(src.next()))
			}
			return v
		}
		for i := range x {
			x[i] = val()
		}
		for i := range w {
			w[i] = val()
		}
		for i := range bias {
			if mode == 0 {
				bias[i] = math.Float32bits(val())
			} else {
				bias[i] = uint32(src.i32())
			}
		}
		a := g.args(mode)
		if mode == 2 {
			mult, shift := make([]int32, g.C), make([]int, g.C)
			for i := range mult {
				mult[i] = src.i32() | 1
				shift[i] = int(src.next()%63) - 31
			}
			q, err := NewChannelRequant(mult, shift)
			if err != nil {
				t.Fatal(err)
			}
			a.qp, a.qStride, a.zp, a.lo, a.hi = &q.p[0], 4*q.stride, int32(int8(src.next())), -128, 127
			a.rqFlags = q.rqFlags(a.lo, a.hi)
		}
		size := dn
		if mode != 2 {
			size *= 4
		}
		want := make([]byte, size)
		if dn > 0 {
			dwConvGeneric(want, x, w, bias, a, float32(math.Inf(-1)), float32(math.Inf(1)))
		}
		for _, im := range implsOf(dwConvImpls) {
			got := make([]byte, size)
			if dn > 0 {
				im.fn(got, x, w, bias, a, float32(math.Inf(-1)), float32(math.Inf(1)))
			}
			for rr := 0; rr < g.Rows; rr++ {
				for q0 := 0; q0 < g.Cols; q0++ {
					for ch := 0; ch < g.C; ch++ {
						o := rr*g.DstRowStep + q0*g.C + ch
						switch mode {
						case 2:
							if got[o] != want[o] {
								t.Fatalf("depthwise %s mode 2 %+v [%d]: %d, want %d", im.name, g, o, got[o], want[o])
							}
						case 1:
							if gv, wv := binary.LittleEndian.Uint32(got[4*o:]), binary.LittleEndian.Uint32(want[4*o:]); gv != wv {
								t.Fatalf("depthwise %s mode 1 %+v [%d]: %d, want %d", im.name, g, o, int32(gv), int32(wv))
							}
						default:
							ref := float64(math.Float32frombits(bias[ch]))
							abs := math.Abs(ref)
							for ty := 0; ty < g.TapRows; ty++ {
								for tx := 0; tx < g.TapCols; tx++ {
									p := float64(x[rr*g.XRowStep+q0*g.XColStep+ty*g.XTapRow+tx*g.XTapCol+ch]) * float64(w[ty*g.WTapRow+tx*g.C+ch])
									ref += p
									abs += math.Abs(p)
								}
							}
							gf := math.Float32frombits(binary.LittleEndian.Uint32(got[4*o:]))
							if !sumOK(gf, ref, abs, g.TapRows*g.TapCols+1) {
								t.Fatalf("depthwise %s mode 0 %+v [%d]: %v, want %v", im.name, g, o, gf, ref)
							}
						}
					}
				}
			}
		}
	})
}

// FuzzRequantizeChannels covers RequantizeChannels and Int8ToF32 /
// Uint8ToF32: channels 1-40, parameters and accumulators from the bytes.
func FuzzRequantizeChannels(f *testing.F) {
	f.Add(uint8(8), []byte{0, 0, 0, 0x40, 0xe0, 0xff, 0xff, 0xff, 0x7f, 0x80, 1, 2})
	f.Add(uint8(17), []byte{0xff, 0xff, 0xff, 0x7f, 31, 0, 0, 0, 0x80, 3})
	f.Fuzz(func(t *testing.T, nB uint8, data []byte) {
		n := 1 + int(nB%40)
		src := &fuzzBytes{b: data}
		mult, shift := make([]int32, n), make([]int, n)
		for i := range mult {
			mult[i] = src.i32()
			if mult[i] == math.MinInt32 {
				mult[i]++
			}
			shift[i] = int(src.next()%63) - 31
		}
		q, err := NewChannelRequant(mult, shift)
		if err != nil {
			t.Fatal(err)
		}
		acc := make([]int32, n*(len(data)%7))
		for i := range acc {
			acc[i] = src.i32()
		}
		zp, lo, hi := int32(int8(src.next())), int32(-128), int32(127)
		if src.next()%2 == 0 {
			zp, lo, hi = int32(src.next()), 0, 255
		}
		for _, im := range implsOf(requantChannelsImpls) {
			got := make([]byte, len(acc))
			im.fn(got, acc, q, zp, lo, hi)
			for i, a := range acc {
				c := i % n
				if want := byte(max(lo, min(MultiplyByQuantizedMultiplier(a, mult[c], shift[c])+zp, hi))); got[i] != want {
					t.Fatalf("RequantizeChannels %s n=%d [%d] acc %d: %d, want %d", im.name, n, i, a, got[i], want)
				}
			}
		}
		off := int32(int16(src.i32()))
		for _, im := range implsOf(int8ToF32Impls) {
			for _, unsigned := range []bool{false, true} {
				got := make([]float32, len(data))
				im.fn(got, data, off, unsigned)
				for i, b := range data {
					v := int32(int8(b))
					if unsigned {
						v = int32(b)
					}
					if got[i] != float32(v+off) {
						t.Fatalf("Int8ToF32 %s unsigned=%v [%d]: %v, want %v", im.name, unsigned, i, got[i], v+off)
					}
				}
			}
		}
	})
}
