package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestQuantAddMulVectorRuns checks the int8 and uint8 ADD, SUB and MUL,
// which run through arch's vector primitives for every broadcast
// (vectorRuns: run by run, tiled short rows, gathered operands), against
// the scalar formulas element by element, on every broadcast pattern
// class, with runs and spans longer than vectorRuns' buffers.
func TestQuantAddMulVectorRuns(t *testing.T) {
	shapes := [][2][]int{
		{{2, 3, 37}, {2, 3, 37}},   // equal
		{{2, 5, 19}, {1, 1, 19}},   // b repeats whole rows
		{{3, 300}, {1}},            // b a scalar, runs over the buffer
		{{1}, {2, 261}},            // a a scalar
		{{4, 7, 1}, {4, 7, 33}},    // a a column
		{{3, 1, 5}, {1, 6, 1}},     // both repeat (gathered)
		{{2, 1, 600}, {2, 9, 600}}, // a repeats rows
		{{1, 40, 30, 3}, {3}},      // b a short row, tiled
		{{1, 1, 1, 5}, {2, 70, 5}}, // a a short row, tiled, spans over rep
		{{2, 9, 70, 7}, {2, 1, 1, 7}},
		{{300, 1}, {1, 17}},     // outer product (gathered), over rep
		{{5, 1, 40}, {5, 3, 1}}, // column against rows
		{{0, 3}, {1, 3}},        // empty
	}
	r := lcg(31)
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		for _, act := range []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActRelu6} {
			for _, sh := range shapes {
				a := quantTensor(typ, sh[0], randFloats(&r, prod(sh[0]), -3, 2), -3, 2)
				b := quantTensor(typ, sh[1], randFloats(&r, prod(sh[1]), -1, 4), -1, 4)
				at, bt := a.Data, b.Data
				val := func(d []byte, i int) int32 {
					if typ == ops.Int8 {
						return int32(int8(d[i]))
					}
					return int32(d[i])
				}
				for _, op := range []string{"ADD", "SUB", "MUL"} {
					var k ops.Kernel
					var opts any
					var want func(x, y int32) int32
					if op == "ADD" {
						ka := NewAdd().(*Add)
						k, opts = ka, &AddOptions{Activation: act}
						want = func(x, y int32) int32 { sx, sy := ka.qp.scaledInputs(x, y); return ka.qp.finish(sx + sy) }
					} else if op == "SUB" {
						ks := NewSub().(*Sub)
						k, opts = ks, &SubOptions{Activation: act}
						want = func(x, y int32) int32 { sx, sy := ks.qp.scaledInputs(x, y); return ks.qp.finish(sx - sy) }
					} else {
						km := NewMul().(*Mul)
						k, opts = km, &MulOptions{Activation: act}
						want = km.quant
					}
					n := node(opts, []*ops.Tensor{a, b}, quantOut(typ, -6, 6))
					run(t, k, n)
					noAllocs(t, k, n)
					out := n.Outputs[0]
					rank := len(out.Shape)
					forEach(out.Shape, func(idx []int) {
						pick := func(s []int) int {
							src := make([]int, len(s))
							for d := range s {
								if s[d] != 1 {
									src[d] = idx[rank-len(s)+d]
								}
							}
							return index(s, src)
						}
						w := want(val(at, pick(sh[0])), val(bt, pick(sh[1])))
						if got := val(out.Data, index(out.Shape, idx)); got != w {
							t.Fatalf("%s %s act %v %v: %v = %d, want %d", typ, op, act, sh, idx, got, w)
						}
					})
				}
			}
		}
	}
}
