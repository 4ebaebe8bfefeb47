package builtin

import (
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SPACE_TO_DEPTH: every type against the definition on random
// shapes and block sizes (and DEPTH_TO_SPACE undoing it), and the nodes
// Prepare refuses.

func TestSpaceToDepthAgainstDefinition(t *testing.T) {
	r := lcg(29)
	types := []ops.DataType{ops.Float32, ops.Uint8, ops.Int8, ops.Int32, ops.Int64}
	for trial := 0; trial < 200; trial++ {
		typ := types[trial%len(types)]
		bs := r.intn(1, 4)
		shape := []int{r.intn(1, 3), bs * r.intn(0, 3), bs * r.intn(1, 3), r.intn(1, 5)}
		raw := make([]byte, prod(shape)*typ.Size())
		for i := range raw {
			raw[i] = byte(r.next())
		}
		n := node(&SpaceToDepthOptions{BlockSize: bs}, []*ops.Tensor{tensorOf(typ, shape, raw)}, outTensor(typ))
		k := NewSpaceToDepth()
		run(t, k, n)
		B, H, W, C := shape[0], shape[1], shape[2], shape[3]
		wantShape(t, n.Outputs[0].Shape, []int{B, H / bs, W / bs, C * bs * bs})
		e := typ.Size()
		want := make([]byte, len(raw))
		for b := 0; b < B; b++ {
			for y := 0; y < H; y++ {
				for x := 0; x < W; x++ {
					for c := 0; c < C; c++ {
						oc := ((y%bs)*bs+x%bs)*C + c
						o := ((b*(H/bs)+y/bs)*(W/bs)+x/bs)*C*bs*bs + oc
						i := ((b*H+y)*W+x)*C + c
						copy(want[o*e:o*e+e], raw[i*e:i*e+e])
					}
				}
			}
		}
		if got := n.Outputs[0].Data[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("%s %v block %d: got %v want %v", typ, shape, bs, got, want)
		}
		noAllocs(t, k, n)
		// DEPTH_TO_SPACE undoes it.
		back := node(&DepthToSpaceOptions{BlockSize: bs}, []*ops.Tensor{n.Outputs[0]}, outTensor(typ))
		run(t, NewDepthToSpace(), back)
		if got := back.Outputs[0].Data[:len(raw)]; !slices.Equal(got, raw) {
			t.Fatalf("%s %v block %d: DEPTH_TO_SPACE does not undo it", typ, shape, bs)
		}
	}
}

func TestSpaceToDepthErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	s2d := func(in *ops.Tensor, bs int) *ops.Node {
		return node(&SpaceToDepthOptions{BlockSize: bs}, []*ops.Tensor{in}, outTensor(in.Type))
	}
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"block 0", s2d(f32(1, 2, 2, 1), 0), []string{"block_size 0"}},
		{"block -1", s2d(f32(1, 2, 2, 1), -1), []string{"block_size -1"}},
		{"no options", node(nil, []*ops.Tensor{f32(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"block_size 0"}},
		{"wrong options", node(&DepthToSpaceOptions{BlockSize: 2}, []*ops.Tensor{f32(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"*SpaceToDepthOptions"}},
		{"height 3", s2d(f32(1, 3, 2, 1), 2), []string{"height 3"}},
		{"width 5", s2d(f32(1, 2, 5, 1), 2), []string{"width 5"}},
		{"rank 3", s2d(f32(2, 2, 1), 2), []string{"rank 3"}},
		{"int16", s2d(tensorOf(ops.Int16, []int{1, 2, 2, 1}, make([]int16, 4)), 2), []string{"int16"}},
		{"output type", node(&SpaceToDepthOptions{BlockSize: 2}, []*ops.Tensor{f32(1, 2, 2, 1)}, outTensor(ops.Int32)), []string{"differs"}},
		{"depth overflow", s2d(f32(1, 0, 1<<16, 1<<16), 1<<16), []string{"overflows"}},
		{"two inputs", node(&SpaceToDepthOptions{BlockSize: 2}, []*ops.Tensor{f32(1, 2, 2, 1), f32(1)}, outTensor(ops.Float32)), []string{"2 inputs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewSpaceToDepth(), c.n, c.wants...) })
	}
}
