package arch_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// RequantizeAccInt16, RequantizeInt8 and RequantizeInt8Up against the ops
// package's scalar TFLite arithmetic, at every level.
func TestRequantizeMatchesOps(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	saved := arch.Current()
	defer func() { _ = arch.Use(saved) }()
	for _, l := range arch.Levels() {
		if err := arch.Use(l); err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			n := r.IntN(70)
			acc, dst := make([]int32, n), make([]int16, n)
			for i := range acc {
				acc[i] = int32(r.Uint32()) >> r.IntN(32)
				dst[i] = int16(r.Uint32())
			}
			mult := int32(1<<30 + r.IntN(1<<30))
			if r.IntN(8) == 0 {
				mult = int32(r.Uint32())
			}
			shift := r.IntN(50) - 31
			want := make([]int16, n)
			for i, v := range acc {
				want[i] = ops.SaturateInt16(ops.MultiplyByQuantizedMultiplier(v, mult, shift) + int32(dst[i]))
			}
			zp := int32(r.IntN(256) - 128)
			want8 := make([]int8, n)
			for i, v := range acc {
				want8[i] = int8(ops.ClampInt32(ops.MultiplyByQuantizedMultiplier(v, mult, shift)+zp, -100, 120))
			}
			got8 := make([]int8, n)
			arch.RequantizeInt8(got8, acc, mult, shift, zp, -100, 120)
			for i := range want8 {
				if got8[i] != want8[i] {
					t.Fatalf("%v RequantizeInt8: acc %d mult %d shift %d zp %d: got %d want %d", l, acc[i], mult, shift, zp, got8[i], want8[i])
				}
			}
			for i, v := range acc {
				want8[i] = int8(ops.ClampInt32(ops.MultiplyByQuantizedMultiplierUp(v, mult, shift)+zp, -100, 120))
			}
			arch.RequantizeInt8Up(got8, acc, mult, shift, zp, -100, 120)
			for i := range want8 {
				if got8[i] != want8[i] {
					t.Fatalf("%v RequantizeInt8Up: acc %d mult %d shift %d zp %d: got %d want %d", l, acc[i], mult, shift, zp, got8[i], want8[i])
				}
			}
			arch.RequantizeAccInt16(dst, acc, mult, shift)
			for i := range want {
				if dst[i] != want[i] {
					t.Fatalf("%v: acc %d mult %d shift %d: got %d want %d", l, acc[i], mult, shift, dst[i], want[i])
				}
			}
		}
	}
}
