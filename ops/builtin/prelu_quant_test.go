package builtin

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestPReluQuantBroadcasts: int8 and uint8 PRELU, on whichever path the
// level in use takes (arch.PReluQuantInt8/Uint8 through vectorRuns, or the
// table under purego), gives TFLite's per-element arithmetic (the
// kernel's quantized) for every broadcast class vectorRuns tells apart
// (alpha of the input's shape, a channel row tiled, a repeated column, a
// scalar, a gathered middle dimension), with zero points at the type's
// extremes and both shift signs.
func TestPReluQuantBroadcasts(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	elems := func(s []int) int {
		n := 1
		for _, d := range s {
			n *= d
		}
		return n
	}
	shapes := []struct{ x, a []int }{
		{[]int{1, 5, 7, 19}, []int{1, 5, 7, 19}},
		{[]int{1, 6, 5, 19}, []int{1, 1, 19}},
		{[]int{1, 6, 5, 3}, []int{3}},
		{[]int{1, 9, 9, 64}, []int{64}},
		{[]int{2, 4, 4, 33}, []int{4, 1, 33}},
		{[]int{1, 3, 4, 50}, []int{1}},
		{[]int{1, 3, 40, 5}, []int{3, 40, 1}},
		{[]int{1, 3, 4, 5}, []int{3, 1, 1}},
		{[]int{1, 0, 4, 5}, []int{5}},
	}
	params := []struct {
		inScale, aScale, outScale float32
		inZP, aZP, outZP          int64 // for int8; +128 for uint8
	}{
		{0.05, 0.01, 0.04, 0, 0, 0},
		{0.1, 0.002, 0.02, -128, 127, -128}, // in/out ratio 5: a left shift
		{0.01, 0.5, 0.2, 127, -128, 127},    // both ratios below one
		{0.02, 0.004, 0.03, -3, -128, 10},   // extremes on alpha
		{0.3, 0.3, 0.001, 100, 5, -100},     // saturating both ways
	}
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		shift := int64(0)
		lo, hi := int32(-128), int32(127)
		if typ == ops.Uint8 {
			shift, lo, hi = 128, 0, 255
		}
		for pi, p := range params {
			for _, c := range shapes {
				xv, av := make([]uint8, elems(c.x)), make([]uint8, elems(c.a))
				for i := range xv {
					xv[i] = uint8(r.Uint32())
				}
				for i := range av {
					av[i] = uint8(r.Uint32())
				}
				if len(xv) > 2 {
					xv[0], xv[1] = uint8(lo), uint8(hi)
				}
				x := q(tensorOf(typ, c.x, xv), p.inScale, p.inZP+shift)
				alpha := q(tensorOf(typ, c.a, av), p.aScale, p.aZP+shift)
				k := &PRelu{}
				got := runOut(t, k, nil, []*ops.Tensor{x, alpha}, q(outTensor(typ), p.outScale, p.outZP+shift)).Data
				val := func(b uint8) int32 {
					if typ == ops.Int8 {
						return int32(int8(b))
					}
					return int32(b)
				}
				// The table path must agree on every level too.
				vec := append([]uint8(nil), got...)
				n := node(nil, []*ops.Tensor{x, alpha}, q(outTensor(typ), p.outScale, p.outZP+shift))
				if err := prepare(k, n); err != nil {
					t.Fatal(err)
				}
				k.buildTable()
				if err := k.Eval(n); err != nil {
					t.Fatal(err)
				}
				for i, v := range n.Outputs[0].Data[:len(vec)] {
					if v != vec[i] {
						t.Fatalf("%s params %d x%v alpha%v element %d: table %d, kernel path %d", typ, pi, c.x, c.a, i, v, vec[i])
					}
				}
				off := len(c.x) - len(c.a)
				idx := make([]int, len(c.x))
				for i := range xv {
					rem := i
					for d := len(c.x) - 1; d >= 0; d-- {
						idx[d] = rem % c.x[d]
						rem /= c.x[d]
					}
					ai := 0
					for d := range c.a {
						j := idx[off+d]
						if c.a[d] == 1 {
							j = 0
						}
						ai = ai*c.a[d] + j
					}
					want := uint8(k.quantized(val(xv[i]), val(av[ai]), lo, hi))
					if got[i] != want {
						t.Fatalf("%s params %d x%v alpha%v element %d: prelu(%d, %d) = %d, want %d", typ, pi, c.x, c.a, i, val(xv[i]), val(av[ai]), val(got[i]), val(want))
					}
				}
			}
		}
	}
}

// BenchmarkPReluQuant times the 8-bit PRELU on a 64×64×32 activation
// with a per-channel alpha (Keras PReLU with shared_axes [1, 2], the
// common form) and with an alpha of the input's shape, on the level's
// kernel path ("kernel") and on the 64 KB table ("table"), in one run.
func BenchmarkPReluQuant(b *testing.B) {
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		for _, ashape := range [][]int{{32}, {64, 64, 32}} {
			xs := []int{1, 64, 64, 32}
			xv := make([]uint8, 64*64*32)
			av := make([]uint8, elemsOf(ashape))
			r := rand.New(rand.NewPCG(1, 2))
			for i := range xv {
				xv[i] = uint8(r.Uint32())
			}
			for i := range av {
				av[i] = uint8(r.Uint32())
			}
			zp := int64(0)
			if typ == ops.Uint8 {
				zp = 128
			}
			for _, path := range []string{"kernel", "table"} {
				name := typ.String() + "/alpha" + shapeName(ashape) + "/" + path
				b.Run(name, func(b *testing.B) {
					x := q(tensorOf(typ, xs, xv), 0.05, zp)
					alpha := q(tensorOf(typ, ashape, av), 0.01, zp)
					n := node(nil, []*ops.Tensor{x, alpha}, q(outTensor(typ), 0.04, zp))
					k := &PRelu{}
					if err := prepare(k, n); err != nil {
						b.Fatal(err)
					}
					if path == "table" && k.lut == nil {
						k.buildTable()
					}
					b.SetBytes(int64(len(xv)))
					b.ResetTimer()
					for range b.N {
						if err := k.Eval(n); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func elemsOf(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

func shapeName(s []int) string {
	out := ""
	for i, d := range s {
		if i > 0 {
			out += "x"
		}
		out += strconv.Itoa(d)
	}
	return out
}
