package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Int8ToF32 / Uint8ToF32 twins: lengths 0..257, inputs ending right
// before an inaccessible page, guard bands, all byte values and offsets
// up to the exact range.
func TestTwinInt8ToF32(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	for _, im := range implsOf(int8ToF32Impls) {
		srcTail := tailBytes(t, 300)
		for n := 0; n <= 257; n++ {
			for _, unsigned := range []bool{false, true} {
				src := srcTail[len(srcTail)-n:]
				if n%3 == 1 {
					src = make([]byte, n+1)[1:]
				}
				for i := range src {
					src[i] = byte(r.IntN(256))
				}
				offset := []int32{0, 128, -128, -3, 1<<24 - 256, -(1<<24 - 256), int32(r.IntN(511) - 255)}[n%7]
				buf, dst := guardedF32(n, n%4)
				im.fn(dst, src, offset, unsigned)
				checkGuardsF32(t, im.name, buf, guard+n%4, n)
				for i, v := range src {
					x := int32(int8(v))
					if unsigned {
						x = int32(v)
					}
					if want := float32(x + offset); math.Float32bits(dst[i]) != math.Float32bits(want) {
						t.Fatalf("%s n=%d unsigned=%v offset %d [%d]: %v, want %v", im.name, n, unsigned, offset, i, dst[i], want)
					}
				}
			}
		}
	}
}
