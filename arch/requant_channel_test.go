package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Per-channel requantisation twins: every usable implementation against
// the scalar MultiplyByQuantizedMultiplier reference (MultiplyByQuantizedMultiplier) over
// channel counts around the 8/16 lanes and the divisors of 16, tiles of
// 0..11 pixels and random ones, random and extreme accumulators,
// multipliers and shifts, zero points and clamp ranges for int8 and uint8
// outputs, accumulators ending right before an inaccessible page and
// guard bands around the outputs.

func randomChannelRequant(t testing.TB, r *rand.Rand, n int) (*ChannelRequant, []int32, []int) {
	mult, shift := make([]int32, n), make([]int, n)
	for c := range mult {
		for mult[c] = genMultiplier(r); mult[c] == math.MinInt32; mult[c] = genMultiplier(r) {
		}
		for shift[c] = genShift(r); shift[c] < -31 || shift[c] > 31; shift[c] = genShift(r) {
		}
	}
	tie := []int32{tieAway, tieUp}[r.IntN(2)]
	q, err := newChannelRequant(mult, shift, tie)
	if err != nil {
		t.Fatal(err)
	}
	return q, mult, shift
}

func checkRequantChannels(t *testing.T, name string, f func([]byte, []int32, *ChannelRequant, int32, int32, int32),
	q *ChannelRequant, mult []int32, shift []int, acc []int32, zp, lo, hi int32) {
	t.Helper()
	n := len(acc)
	const sentinel = 0xa5
	buf := make([]byte, n+2*guard)
	for i := range buf {
		buf[i] = sentinel
	}
	dst := buf[guard : guard+n : guard+n]
	f(dst, acc, q, zp, lo, hi)
	what := fmt.Sprintf("%s channels=%d len=%d zp=%d [%d,%d] tie=%d", name, q.n, n, zp, lo, hi, q.tie())
	for i, v := range buf {
		if (i < guard || i >= guard+n) && v != sentinel {
			t.Fatalf("%s: guard %d written", what, i-guard)
		}
	}
	for i, a := range acc {
		c := i % q.n
		want := byte(max(lo, min(mbqmTie(a, mult[c], shift[c], q.tie())+zp, hi)))
		if dst[i] != want {
			t.Fatalf("%s: [%d] acc %d mult %d shift %d: got %d, want %d", what, i, a, mult[c], shift[c], dst[i], want)
		}
	}
}

func TestTwinRequantizeChannels(t *testing.T) {
	chans := []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 64, 100}
	for _, im := range implsOf(requantChannelsImpls) {
		t.Run(im.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(91, 92))
			accTail := tailI32(t, 2000)
			for _, n := range chans {
				for pixels := 0; pixels <= 11; pixels++ {
					q, mult, shift := randomChannelRequant(t, r, n)
					var acc []int32
					if pixels%2 == 0 {
						acc = accTail[len(accTail)-n*pixels:]
					} else {
						acc = make([]int32, n*pixels+1)[1:]
					}
					genAcc(r, acc)
					zp := int32(r.IntN(256) - 128)
					lo, hi := int32(-128), int32(127)
					if pixels%3 == 1 { // uint8 output
						zp, lo, hi = int32(r.IntN(256)), 0, 255
					}
					if pixels%4 == 2 { // a fused activation's narrower range
						lo, hi = lo+int32(r.IntN(60)), hi-int32(r.IntN(60))
					}
					checkRequantChannels(t, im.name, im.fn, q, mult, shift, acc, zp, lo, hi)
				}
			}
			// Ties of the final shift: multiplier 2^30 halves small
			// accumulators; both tie rules, every right shift up to 12.
			for _, n := range chans {
				mult, shift := make([]int32, n), make([]int, n)
				for c := range mult {
					mult[c], shift[c] = 1<<30, -r.IntN(13)
				}
				for _, tie := range []int32{tieAway, tieUp} {
					q, err := newChannelRequant(mult, shift, tie)
					if err != nil {
						t.Fatal(err)
					}
					acc := make([]int32, n*7)
					genTieAcc(r, acc)
					checkRequantChannels(t, im.name, im.fn, q, mult, shift, acc, int32(r.IntN(256)-128), -128, 127)
				}
			}
			for range 100 {
				n := 1 + r.IntN(200)
				q, mult, shift := randomChannelRequant(t, r, n)
				acc := make([]int32, n*r.IntN(20))
				genAcc(r, acc)
				checkRequantChannels(t, im.name, im.fn, q, mult, shift, acc, int32(r.IntN(300)-150), -128, 127)
			}
		})
	}
}

func TestNewChannelRequantErrors(t *testing.T) {
	for _, tc := range []struct {
		mult  []int32
		shift []int
	}{
		{nil, nil},
		{[]int32{1}, []int{1, 2}},
		{[]int32{math.MinInt32}, []int{0}},
		{[]int32{1 << 30}, []int{32}},
		{[]int32{1 << 30}, []int{-32}},
	} {
		if _, err := NewChannelRequant(tc.mult, tc.shift); err == nil {
			t.Errorf("NewChannelRequant(%v, %v): no error", tc.mult, tc.shift)
		}
	}
}

func TestRequantizeChannelsPanics(t *testing.T) {
	q, err := NewChannelRequant([]int32{1 << 30, 1 << 30, 1 << 30}, []int{0, -1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"partial pixel": func() { RequantizeChannelsInt8(make([]int8, 4), make([]int32, 4), q, 0, -128, 127) },
		"short dst":     func() { RequantizeChannelsInt8(make([]int8, 2), make([]int32, 3), q, 0, -128, 127) },
		"int8 range":    func() { RequantizeChannelsInt8(make([]int8, 3), make([]int32, 3), q, 0, -129, 127) },
		"uint8 range":   func() { RequantizeChannelsUint8(make([]uint8, 3), make([]int32, 3), q, 0, 0, 256) },
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
		q, err := newChannelRequant(mult, shift, []int32{tieAway, tieUp}[nB/128])
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
				if want := byte(max(lo, min(mbqmTie(a, mult[c], shift[c], q.tie())+zp, hi))); got[i] != want {
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
