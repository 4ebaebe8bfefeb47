package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

func genAcc(r *rand.Rand, v []int32) {
	for i := range v {
		switch r.IntN(6) {
		case 0:
			v[i] = int32(r.Uint32())
		case 1:
			v[i] = []int32{math.MinInt32, math.MaxInt32, math.MinInt32 + 1, -1, 0, 1, 1 << 30, -(1 << 30)}[r.IntN(8)]
		case 2:
			v[i] = int32(r.IntN(1<<16) - 1<<15)
		default:
			v[i] = int32(r.IntN(1<<24) - 1<<23)
		}
	}
}

func genMultiplier(r *rand.Rand) int32 {
	switch r.IntN(5) {
	case 0:
		return []int32{math.MinInt32, math.MaxInt32, 0, 1, -1, 1 << 30}[r.IntN(6)]
	case 1:
		return int32(r.Uint32())
	default: // a normalised quantised multiplier, [2^30, 2^31)
		return int32(1<<30 + r.IntN(1<<30))
	}
}

func genShift(r *rand.Rand) int {
	if r.IntN(10) == 0 {
		return []int{-40, -32, 32, 40, -31, 31}[r.IntN(6)]
	}
	return r.IntN(41) - 28
}

// checkRequant runs f and the portable version on the same input, with
// guard bands around dst.
func checkRequant(t testing.TB, name string, f func([]int16, []int32, int32, int), acc []int32, init []int16, mult int32, shift int) {
	t.Helper()
	const sentinel = -0x1234
	n := len(acc)
	buf := make([]int16, n+2*guard)
	for i := range buf {
		buf[i] = sentinel
	}
	dst := buf[guard : guard+n : guard+n]
	copy(dst, init)
	want := make([]int16, n) // the scalar reference, not the portable loop
	for i, v := range acc {
		want[i] = sat16(MultiplyByQuantizedMultiplier(v, mult, shift) + int32(init[i]))
	}
	f(dst, acc, mult, shift)
	for i, v := range buf {
		if (i < guard || i >= guard+n) && v != sentinel {
			t.Fatalf("%s n=%d: guard %d written", name, n, i-guard)
		}
	}
	for i := range want {
		if dst[i] != want[i] {
			t.Fatalf("%s n=%d mult=%d shift=%d [%d]: acc %d dst %d: got %d want %d", name, n, mult, shift, i, acc[i], init[i], dst[i], want[i])
		}
	}
}

func TestTwinRequantizeAccInt16(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, im := range implsOf(requantAccInt16Impls) {
		accTail := tailI32(t, 300)
		for n := 0; n <= 257; n++ {
			for trial := range 3 {
				acc := accTail[len(accTail)-n:]
				if trial == 1 {
					acc = make([]int32, n+1)[1:]
				}
				genAcc(r, acc)
				init := make([]int16, n)
				for i := range init {
					init[i] = int16(r.Uint32())
				}
				checkRequant(t, im.name, im.fn, acc, init, genMultiplier(r), genShift(r))
			}
		}
		// Every shift with typical multipliers.
		for shift := -33; shift <= 33; shift++ {
			acc := make([]int32, 67)
			genAcc(r, acc)
			checkRequant(t, im.name, im.fn, acc, make([]int16, 67), genMultiplier(r), shift)
		}
	}
}

// srdhmFloor is the closed form the assembly uses for the rounding
// doubling high multiply; check it against gemmlowp's definition on the
// boundaries of its rounding.
func TestSRDHMFloorForm(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for range 1 << 20 {
		a, b := int32(r.Uint32()), genMultiplier(r)
		if r.IntN(4) == 0 {
			a = []int32{math.MinInt32, math.MaxInt32, -1, 1}[r.IntN(4)]
		}
		if a == math.MinInt32 && b == math.MinInt32 {
			continue
		}
		floor := int32((int64(a)*int64(b) + 1<<30) >> 31)
		if got := SaturatingRoundingDoublingHighMul(a, b); got != floor {
			t.Fatalf("SaturatingRoundingDoublingHighMul(%d, %d) = %d, floor form %d", a, b, got, floor)
		}
	}
}

func FuzzRequantizeAccInt16(f *testing.F) {
	f.Add(int32(1<<30+12345), int8(-7), []byte{1, 2, 3, 4, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0x80})
	f.Fuzz(func(t *testing.T, mult int32, shift int8, data []byte) {
		n := len(data) / 6
		acc, init := make([]int32, n), make([]int16, n)
		for i := range acc {
			acc[i] = int32(uint32(data[6*i]) | uint32(data[6*i+1])<<8 | uint32(data[6*i+2])<<16 | uint32(data[6*i+3])<<24)
			init[i] = int16(uint16(data[6*i+4]) | uint16(data[6*i+5])<<8)
		}
		for _, im := range implsOf(requantAccInt16Impls) {
			checkRequant(t, im.name, im.fn, acc, init, mult, int(shift))
		}
	})
}

func checkRequantInt8(t testing.TB, name string, f func([]int8, []int32, int32, int, int32, int32, int32, int32), acc []int32, mult int32, shift int, zp, lo, hi, tie int32) {
	t.Helper()
	const sentinel = 0x5a
	n := len(acc)
	buf := make([]int8, n+2*guard)
	for i := range buf {
		buf[i] = sentinel
	}
	dst := buf[guard : guard+n : guard+n]
	f(dst, acc, mult, shift, zp, lo, hi, tie)
	for i, v := range buf {
		if (i < guard || i >= guard+n) && v != sentinel {
			t.Fatalf("%s n=%d: guard %d written", name, n, i-guard)
		}
	}
	for i, v := range acc {
		want := int8(max(lo, min(mbqmTie(v, mult, shift, tie)+zp, hi)))
		if dst[i] != want {
			t.Fatalf("%s n=%d mult=%d shift=%d zp=%d [%d,%d] tie=%d [%d]: acc %d: got %d want %d", name, n, mult, shift, zp, lo, hi, tie, i, v, dst[i], want)
		}
	}
}

func genClamp(r *rand.Rand) (zp, lo, hi int32) {
	zp = int32(r.IntN(256) - 128)
	if r.IntN(8) == 0 {
		zp = int32(r.Uint32()) // wraps the add
	}
	lo, hi = -128, 127
	if r.IntN(2) == 0 {
		a, b := int32(r.IntN(256)-128), int32(r.IntN(256)-128)
		lo, hi = min(a, b), max(a, b)
	}
	return
}

func TestTwinRequantizeInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	for _, im := range implsOf(requantInt8Impls) {
		accTail := tailI32(t, 300)
		for n := 0; n <= 257; n++ {
			for trial := range 3 {
				acc := accTail[len(accTail)-n:]
				if trial == 1 {
					acc = make([]int32, n+1)[1:]
				}
				genAcc(r, acc)
				zp, lo, hi := genClamp(r)
				checkRequantInt8(t, im.name, im.fn, acc, genMultiplier(r), genShift(r), zp, lo, hi, []int32{tieAway, tieUp}[trial%2])
			}
		}
		// Every shift, with accumulators whose ties are frequent.
		for shift := -33; shift <= 33; shift++ {
			for _, tie := range []int32{tieAway, tieUp} {
				acc := make([]int32, 67)
				genTieAcc(r, acc)
				checkRequantInt8(t, im.name, im.fn, acc, 1<<30, shift, 3, -128, 127, tie)
			}
		}
	}
}

// genTieAcc fills v with small accumulators: with multiplier 2^30 the
// high multiply halves them (rounding up), so that ties of the final
// right shift come often.
func genTieAcc(r *rand.Rand, v []int32) {
	for i := range v {
		v[i] = int32(r.IntN(1<<12) - 1<<11)
	}
}

func FuzzRequantizeInt8(f *testing.F) {
	f.Add(int32(1<<30+777), int8(-9), int32(-128), int8(-128), int8(127), []byte{1, 2, 3, 4, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0x80})
	f.Fuzz(func(t *testing.T, mult int32, shift int8, zp int32, a, b int8, data []byte) {
		acc := make([]int32, len(data)/4)
		for i := range acc {
			acc[i] = int32(uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24)
		}
		lo, hi := int32(min(a, b)), int32(max(a, b))
		for _, im := range implsOf(requantInt8Impls) {
			for _, tie := range []int32{tieAway, tieUp} {
				checkRequantInt8(t, im.name, im.fn, acc, mult, int(shift), zp, lo, hi, tie)
			}
		}
	})
}
