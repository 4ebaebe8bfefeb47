package arch

import (
	"math/rand/v2"
	"testing"
)

// TestTwinTransposeBytes8 holds every implementation to the definition
// dst[r·ldd + c] = src[c·lds + r] on random bytes, sizes 8..64 (multiples
// of 8) and strides at and beyond the rows, with guard bytes around and
// between dst's rows that must stay untouched.
func TestTwinTransposeBytes8(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, im := range implsOf(transposeBytes8Impls) {
		for trial := range 200 {
			h, w := 8*(1+r.IntN(8)), 8*(1+r.IntN(8))
			ldd, lds := w+r.IntN(3)*(1+r.IntN(9)), h+r.IntN(3)*(1+r.IntN(9))
			if trial%4 == 0 {
				ldd, lds = w, h
			}
			src := make([]byte, (w-1)*lds+h)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			buf := make([]byte, (h-1)*ldd+w+2*guard)
			for i := range buf {
				buf[i] = 0x5a
			}
			dst := buf[guard : guard+(h-1)*ldd+w : guard+(h-1)*ldd+w]
			im.fn(dst, ldd, src, lds, h, w)
			for i, v := range buf {
				j := i - guard
				inside := j >= 0 && j < len(dst) && j%ldd < w
				if !inside {
					if v != 0x5a {
						t.Fatalf("%s %dx%d ldd %d lds %d: wrote byte %d outside the matrix", im.name, h, w, ldd, lds, j)
					}
					continue
				}
				rr, c := j/ldd, j%ldd
				if want := src[c*lds+rr]; v != want {
					t.Fatalf("%s %dx%d ldd %d lds %d: [%d %d] = %d, want %d", im.name, h, w, ldd, lds, rr, c, v, want)
				}
			}
		}
	}
}

func TestTransposeBytes8Panics(t *testing.T) {
	for name, f := range map[string]func(){
		"h not a multiple of 8": func() { TransposeBytes8(make([]byte, 64), 8, make([]byte, 64), 8, 4, 8) },
		"short dst stride":      func() { TransposeBytes8(make([]byte, 64), 4, make([]byte, 64), 8, 8, 8) },
		"short src":             func() { TransposeBytes8(make([]byte, 64), 8, make([]byte, 63), 8, 8, 8) },
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
