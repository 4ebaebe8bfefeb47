package builtin

import (
	"slices"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Tests of DEPTH_TO_SPACE: TFLite's kernel test vectors
// (depth_to_space_test.cc), every type against the operator's definition
// on random shapes and block sizes, the options decoder, and the nodes
// TFLite refuses.

func depthToSpaceNode(in *ops.Tensor, block int) *ops.Node {
	return node(&DepthToSpaceOptions{BlockSize: block}, []*ops.Tensor{in}, outTensor(in.Type))
}

func TestDepthToSpaceTFLiteVectors(t *testing.T) {
	t.Run("Float32", func(t *testing.T) {
		n := depthToSpaceNode(tensorOf(ops.Float32, []int{1, 1, 1, 4}, []float32{1.4, 2.3, 3.2, 4.1}), 2)
		run(t, NewDepthToSpace(), n)
		wantShape(t, n.Outputs[0].Shape, []int{1, 2, 2, 1})
		if got, want := n.Outputs[0].Float32s(), []float32{1.4, 2.3, 3.2, 4.1}; !slices.Equal(got, want) {
			t.Fatalf("Float32: %v, want %v", got, want)
		}
	})
	t.Run("Uint8", func(t *testing.T) {
		n := depthToSpaceNode(tensorOf(ops.Uint8, []int{1, 1, 2, 4}, []uint8{1, 2, 3, 4, 5, 6, 7, 8}), 2)
		run(t, NewDepthToSpace(), n)
		wantShape(t, n.Outputs[0].Shape, []int{1, 2, 4, 1})
		equalInts(t, "Uint8", n.Outputs[0].Uint8s(), []int{1, 2, 5, 6, 3, 4, 7, 8})
	})
	t.Run("Int8", func(t *testing.T) {
		n := depthToSpaceNode(tensorOf(ops.Int8, []int{1, 2, 1, 4}, []int8{1, 2, 3, 4, 5, 6, 7, 8}), 2)
		run(t, NewDepthToSpace(), n)
		wantShape(t, n.Outputs[0].Shape, []int{1, 4, 2, 1})
		equalInts(t, "Int8", n.Outputs[0].Int8s(), []int{1, 2, 3, 4, 5, 6, 7, 8})
	})
	t.Run("Int32", func(t *testing.T) {
		in := tensorOf(ops.Int32, []int{1, 2, 2, 4}, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
		n := depthToSpaceNode(in, 2)
		run(t, NewDepthToSpace(), n)
		wantShape(t, n.Outputs[0].Shape, []int{1, 4, 4, 1})
		equalInts(t, "Int32", n.Outputs[0].Int32s(), []int{1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16})
	})
	t.Run("Int64", func(t *testing.T) {
		n := depthToSpaceNode(tensorOf(ops.Int64, []int{1, 1, 1, 1}, []int64{4}), 1)
		run(t, NewDepthToSpace(), n)
		wantShape(t, n.Outputs[0].Shape, []int{1, 1, 1, 1})
		equalInts(t, "Int64", n.Outputs[0].Int64s(), []int{4})
	})
}

// depthToSpaceRef places every input element where the definition sends
// it: input depth index c = (dy·bs + dx)·outDepth + d of pixel (y, x)
// lands at output pixel (y·bs + dy, x·bs + dx), depth d (TensorFlow's DCR
// order). It walks the input, the kernel walks the output.
func depthToSpaceRef(in []int64, shape []int, bs int) []int64 {
	b, h, w, c := shape[0], shape[1], shape[2], shape[3]
	oc, oh, ow := c/(bs*bs), h*bs, w*bs
	out := make([]int64, len(in))
	i := 0
	for n := 0; n < b; n++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				for ci := 0; ci < c; ci++ {
					dy, dx, d := ci/(bs*oc), ci/oc%bs, ci%oc
					out[((n*oh+y*bs+dy)*ow+x*bs+dx)*oc+d] = in[i]
					i++
				}
			}
		}
	}
	return out
}

// widen returns t's elements as int64 (float32 by their bits).
func widen(t *ops.Tensor) []int64 {
	n := t.NumElements()
	v := make([]int64, n)
	for i := range v {
		switch t.Type {
		case ops.Float32:
			v[i] = int64(ops.View[uint32](t.Data)[i])
		case ops.Uint8:
			v[i] = int64(t.Uint8s()[i])
		case ops.Int8:
			v[i] = int64(t.Int8s()[i])
		case ops.Uint16:
			v[i] = int64(t.Uint16s()[i])
		case ops.Int32:
			v[i] = int64(t.Int32s()[i])
		case ops.Int64:
			v[i] = t.Int64s()[i]
		}
	}
	return v
}

func TestDepthToSpaceAgainstDefinition(t *testing.T) {
	r := lcg(17)
	types := []ops.DataType{ops.Float32, ops.Uint8, ops.Int8, ops.Uint16, ops.Int32, ops.Int64}
	for trial := 0; trial < 200; trial++ {
		typ := types[trial%len(types)]
		bs := r.intn(1, 4)
		shape := []int{r.intn(1, 3), r.intn(1, 5), r.intn(1, 5), bs * bs * r.intn(1, 4)}
		if trial%25 == 0 {
			shape[r.intn(0, 3)] = 0 // empty tensors too
		}
		cnt := prod(shape)
		raw := make([]byte, cnt*typ.Size())
		for i := range raw {
			raw[i] = byte(r.next())
		}
		in := tensorOf(typ, shape, raw)
		n := depthToSpaceNode(in, bs)
		k := NewDepthToSpace()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, []int{shape[0], shape[1] * bs, shape[2] * bs, shape[3] / (bs * bs)})
		want := depthToSpaceRef(widen(in), shape, bs)
		got := widen(n.Outputs[0])
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s %v block %d: element %d is %#x, want %#x", typ, shape, bs, i, got[i], want[i])
			}
		}
		noAllocs(t, k, n)
	}
}

func TestDepthToSpaceOptionsDecoder(t *testing.T) {
	b := flatbuffers.NewBuilder(64)
	b.Finish((&schema.DepthToSpaceOptionsT{BlockSize: 3}).Pack(b))
	buf := b.FinishedBytes()
	got, err := decodeDepthToSpaceOptions(ops.OptionsTable{Type: uint8(schema.BuiltinOptionsDepthToSpaceOptions), Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := got.(*DepthToSpaceOptions); !ok || o.BlockSize != 3 {
		t.Fatalf("decoded %#v, want block_size 3", got)
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for v := 1; v <= 3; v++ {
		_, err := r.FindBuiltin(ops.OpDepthToSpace, v)
		if (err == nil) != (v <= 2) {
			t.Errorf("version %d: %v (TFLite registers 1-2)", v, err)
		}
	}
}

// TestDepthToSpaceErrors feeds the nodes TFLite's Prepare refuses, and a
// few more; each must fail at Prepare naming the problem.
func TestDepthToSpaceErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"block_size 0", depthToSpaceNode(f32(1, 1, 1, 4), 0), []string{"block_size 0"}},
		{"block_size -2", depthToSpaceNode(f32(1, 1, 1, 4), -2), []string{"block_size -2"}},
		{"no options", node(nil, []*ops.Tensor{f32(1, 1, 1, 4)}, outTensor(ops.Float32)), []string{"block_size 0"}},
		{"wrong options", node(&SplitOptions{NumSplits: 2}, []*ops.Tensor{f32(1, 1, 1, 4)}, outTensor(ops.Float32)), []string{"need *DepthToSpaceOptions"}},
		// TFLite's BadBlockSize: depth 4 is not a multiple of 4².
		{"depth 4, block 4", depthToSpaceNode(f32(1, 1, 1, 4), 4), []string{"depth 4", "block_size 4"}},
		{"depth 6, block 2", depthToSpaceNode(f32(1, 2, 2, 6), 2), []string{"depth 6"}},
		// 8 is a multiple of 4 but not of 4²: the second division catches it.
		{"depth 8, block 4", depthToSpaceNode(f32(1, 2, 2, 8), 4), []string{"depth 8"}},
		{"depth 3, block 2^31-1", depthToSpaceNode(f32(1, 1, 1, 3), 1<<31-1), []string{"depth 3"}},
		{"height overflows", depthToSpaceNode(f32(1, 3, 1, 0), 1<<30), []string{"overflows"}},
		{"rank 3", depthToSpaceNode(f32(1, 2, 4), 2), []string{"rank 3", "4-D"}},
		{"rank 5", depthToSpaceNode(f32(1, 1, 1, 1, 4), 2), []string{"rank 5"}},
		{"int16", depthToSpaceNode(tensorOf(ops.Int16, []int{1, 1, 1, 4}, make([]int16, 4)), 2), []string{"int16"}},
		{"bool", depthToSpaceNode(tensorOf(ops.Bool, []int{1, 1, 1, 4}, make([]bool, 4)), 2), []string{"bool"}},
		{"float16", depthToSpaceNode(tensorOf(ops.Float16, []int{1, 1, 1, 4}, make([]uint16, 4)), 2), []string{"float16"}},
		{"output type", node(&DepthToSpaceOptions{BlockSize: 2}, []*ops.Tensor{f32(1, 1, 1, 4)}, outTensor(ops.Int32)), []string{"output 0", "int32"}},
		{"two inputs", node(&DepthToSpaceOptions{BlockSize: 2}, []*ops.Tensor{f32(1, 1, 1, 4), f32(1)}, outTensor(ops.Float32)), []string{"2 inputs"}},
		{"no input", node(&DepthToSpaceOptions{BlockSize: 2}, []*ops.Tensor{nil}, outTensor(ops.Float32)), []string{"input 0"}},
		{"no output", node(&DepthToSpaceOptions{BlockSize: 2}, []*ops.Tensor{f32(1, 1, 1, 4)}), []string{"0 outputs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantPrepareError(t, NewDepthToSpace(), c.n, c.wants...)
		})
	}
	// Eval before a successful Prepare has nothing to read.
	n := depthToSpaceNode(f32(1, 1, 1, 4), 2)
	if err := NewDepthToSpace().Eval(n); err == nil {
		t.Fatal("Eval without Prepare and output memory succeeded")
	}
}
