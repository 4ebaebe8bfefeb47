package builtin

import (
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: TFLite's kernel test
// vectors, every element size against the operators' definitions on random
// shapes, blocks and pads, the round trip, and the nodes Prepare refuses.

func spaceBatchNode(in *ops.Tensor, block, pads []int32) *ops.Node {
	sp := len(block)
	bt := constT(tensorOf(ops.Int32, []int{sp}, block))
	pt := constT(tensorOf(ops.Int32, []int{sp, 2}, pads))
	out := outTensor(in.Type)
	out.Quant = in.Quant
	return node(nil, []*ops.Tensor{in, bt, pt}, out)
}

func TestSpaceToBatchNDTFLiteVectors(t *testing.T) {
	cases := []struct {
		name         string
		shape        []int
		block, pads  []int32
		wantShape    []int
		want         []float32
		inputPattern int
	}{
		{"Simple", []int{1, 4, 4, 1}, []int32{2, 2}, []int32{0, 0, 0, 0}, []int{4, 2, 2, 1},
			[]float32{1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}, 16},
		{"MultipleInputBatches", []int{2, 2, 4, 1}, []int32{2, 2}, []int32{0, 0, 0, 0}, []int{8, 1, 2, 1},
			[]float32{1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}, 16},
		{"SimplePadding", []int{1, 5, 2, 1}, []int32{3, 2}, []int32{1, 0, 2, 0}, []int{6, 2, 2, 1},
			[]float32{0, 0, 0, 5, 0, 0, 0, 6, 0, 1, 0, 7, 0, 2, 0, 8, 0, 3, 0, 9, 0, 4, 0, 10}, 10},
		{"ComplexPadding", []int{1, 4, 2, 1}, []int32{3, 2}, []int32{1, 1, 2, 4}, []int{6, 2, 4, 1},
			[]float32{0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0, 8, 0, 0,
				0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0}, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := make([]float32, c.inputPattern)
			for i := range in {
				in[i] = float32(i + 1)
			}
			n := spaceBatchNode(tensorOf(ops.Float32, c.shape, in), c.block, c.pads)
			k := NewSpaceToBatchND()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, c.wantShape)
			if got := n.Outputs[0].Float32s(); !slices.Equal(got, c.want) {
				t.Fatalf("got %v\nwant %v", got, c.want)
			}
			noAllocs(t, k, n)
			// BATCH_TO_SPACE_ND with crops equal to the pads undoes it.
			back := spaceBatchNode(n.Outputs[0], c.block, c.pads)
			run(t, NewBatchToSpaceND(), back)
			wantShape(t, back.Outputs[0].Shape, c.shape)
			if got := back.Outputs[0].Float32s(); !slices.Equal(got, in) {
				t.Fatalf("round trip: got %v, want %v", got, in)
			}
		})
	}
}

// spaceBatchDims returns the 4-D view of a 3-D or 4-D shape and block/pad
// lists padded with the implicit width entries.
func spaceBatchDims(shape []int, block, pads []int32) (b, h, w, c, bh, bw, top, left int) {
	b, h, w, c = shape[0], shape[1], 1, shape[len(shape)-1]
	bh, bw, top = int(block[0]), 1, int(pads[0])
	if len(shape) == 4 {
		w, bw, left = shape[2], int(block[1]), int(pads[2])
	}
	return
}

// spaceToBatchRef follows the definition: pad, then out[(sh·bw+sw)·B + b,
// y, x] = padded[b, y·bh+sh, x·bw+sw]; pad bytes are fill.
func spaceToBatchRef(in []byte, elem int, shape []int, block, pads []int32, outShape []int, fill byte) []byte {
	B, H, W, C, bh, bw, top, left := spaceBatchDims(shape, block, pads)
	oB, oH, oW, _, _, _, _, _ := spaceBatchDims(outShape, block, pads)
	out := make([]byte, oB*oH*oW*C*elem)
	for ob := 0; ob < oB; ob++ {
		b, s := ob%B, ob/B
		sh, sw := s/bw, s%bw
		for y := 0; y < oH; y++ {
			for x := 0; x < oW; x++ {
				ih, iw := y*bh+sh-top, x*bw+sw-left
				for ch := 0; ch < C*elem; ch++ {
					o := ((ob*oH+y)*oW+x)*C*elem + ch
					if ih < 0 || ih >= H || iw < 0 || iw >= W {
						out[o] = fill
					} else {
						out[o] = in[((b*H+ih)*W+iw)*C*elem+ch]
					}
				}
			}
		}
	}
	return out
}

// batchToSpaceRef walks the output: out[b, oh, ow] comes from input batch
// (sh·bw+sw)·outB + b at ((oh+top)/bh, (ow+left)/bw) with sh, sw the
// remainders.
func batchToSpaceRef(in []byte, elem int, shape []int, block, crops []int32, outShape []int) []byte {
	_, H, W, C, bh, bw, top, left := spaceBatchDims(shape, block, crops)
	oB, oH, oW, _, _, _, _, _ := spaceBatchDims(outShape, block, crops)
	out := make([]byte, oB*oH*oW*C*elem)
	for b := 0; b < oB; b++ {
		for oh := 0; oh < oH; oh++ {
			for ow := 0; ow < oW; ow++ {
				ph, pw := oh+top, ow+left
				ib := ((ph%bh)*bw+pw%bw)*oB + b
				for ch := 0; ch < C*elem; ch++ {
					out[((b*oH+oh)*oW+ow)*C*elem+ch] = in[((ib*H+ph/bh)*W+pw/bw)*C*elem+ch]
				}
			}
		}
	}
	return out
}

func TestSpaceBatchNDAgainstDefinition(t *testing.T) {
	r := lcg(23)
	types := []ops.DataType{ops.Float32, ops.Uint8, ops.Int8, ops.Int16, ops.Int32, ops.Int64, ops.Bool, ops.Float16, ops.Uint32, ops.Float64}
	for trial := 0; trial < 300; trial++ {
		typ := types[trial%len(types)]
		rank := 3 + trial%2
		sp := rank - 2
		block := make([]int32, sp)
		pads := make([]int32, 2*sp)
		shape := []int{r.intn(1, 3)}
		for d := 0; d < sp; d++ {
			block[d] = int32(r.intn(1, 3))
			pads[2*d] = int32(r.intn(0, 3))
			size := r.intn(0, 5)
			// Choose the trailing pad so the padded size is a multiple of the block.
			rem := (size + int(pads[2*d])) % int(block[d])
			pads[2*d+1] = int32((int(block[d]) - rem) % int(block[d]))
			if trial%7 == 0 && size+int(pads[2*d]) >= int(block[d]) {
				pads[2*d+1] -= block[d] // a negative pad crops, as TFLite allows
			}
			shape = append(shape, size)
		}
		shape = append(shape, r.intn(1, 4))
		raw := make([]byte, prod(shape)*typ.Size())
		for i := range raw {
			raw[i] = byte(r.next())
		}
		in := tensorOf(typ, shape, raw)
		var fill byte
		if typ == ops.Int8 || typ == ops.Uint8 {
			zp := int64(r.intn(-20, 20))
			if typ == ops.Uint8 {
				zp += 128
			}
			q(in, 0.5, zp)
			fill = byte(zp)
		}
		n := spaceBatchNode(in, block, pads)
		k := NewSpaceToBatchND()
		if err := prepare(k, n); err != nil {
			t.Fatalf("%s %v block %v pads %v: Prepare: %v", typ, shape, block, pads, err)
		}
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		out := n.Outputs[0]
		want := spaceToBatchRef(raw, typ.Size(), shape, block, pads, out.Shape, fill)
		if !slices.Equal(out.Data[:len(want)], want) {
			t.Fatalf("SPACE_TO_BATCH_ND %s %v block %v pads %v: got %v want %v", typ, shape, block, pads, out.Data, want)
		}
		noAllocs(t, k, n)

		// BATCH_TO_SPACE_ND on the result with non-negative crops.
		crops := make([]int32, 2*sp)
		for d := 0; d < sp; d++ {
			full := out.Shape[d+1] * int(block[d])
			crops[2*d] = int32(r.intn(0, min(2, full)))
			crops[2*d+1] = int32(r.intn(0, min(2, full-int(crops[2*d]))))
		}
		bn := spaceBatchNode(out, block, crops)
		bk := NewBatchToSpaceND()
		if err := prepare(bk, bn); err != nil {
			t.Fatalf("BATCH_TO_SPACE_ND %s %v block %v crops %v: Prepare: %v", typ, out.Shape, block, crops, err)
		}
		if err := bk.Eval(bn); err != nil {
			t.Fatal(err)
		}
		want = batchToSpaceRef(out.Data, typ.Size(), out.Shape, block, crops, bn.Outputs[0].Shape)
		if got := bn.Outputs[0].Data[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("BATCH_TO_SPACE_ND %s %v block %v crops %v: got %v want %v", typ, out.Shape, block, crops, got, want)
		}
		noAllocs(t, bk, bn)
	}
}

func TestSpaceBatchNDVersions(t *testing.T) {
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for _, op := range []ops.BuiltinOperator{ops.OpSpaceToBatchND, ops.OpBatchToSpaceND} {
		for v := 1; v <= 5; v++ {
			if _, err := r.FindBuiltin(op, v); (err == nil) != (v <= 4) {
				t.Errorf("op %d version %d: %v (TFLite registers 1-4)", op, v, err)
			}
		}
	}
}

func TestSpaceBatchNDErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	nonConst := func(n *ops.Node, i int) *ops.Node { n.Inputs[i].Kind = ops.ArenaTensor; return n }
	withOut := func(n *ops.Node, out *ops.Tensor) *ops.Node { n.Outputs[0] = out; return n }
	type tc struct {
		name  string
		n     *ops.Node
		wants []string
	}
	common := func() []tc {
		return []tc{
			{"rank 2", spaceBatchNode(f32(4, 4), []int32{2}, []int32{0, 0}), []string{"rank 2"}},
			{"rank 5", spaceBatchNode(f32(1, 2, 2, 2, 1), []int32{2, 2, 2}, make([]int32, 6)), []string{"rank 5"}},
			{"block rank", spaceBatchNode(f32(4, 4, 4, 1), []int32{2}, []int32{0, 0}), []string{"block_shape", "need [2]"}},
			{"pads shape", node(nil, []*ops.Tensor{f32(4, 4, 4, 1), c32(2, 2), constT(tensorOf(ops.Int32, []int{1, 2}, []int32{0, 0}))}, outTensor(ops.Float32)), []string{"input 2", "need [2 2]"}},
			{"block 0", spaceBatchNode(f32(4, 4, 4, 1), []int32{0, 2}, []int32{0, 0, 0, 0}), []string{"block_shape", "entry 0 is 0"}},
			{"block -2", spaceBatchNode(f32(4, 4, 4, 1), []int32{2, -2}, []int32{0, 0, 0, 0}), []string{"entry 1 is -2"}},
			{"dynamic block", nonConst(spaceBatchNode(f32(4, 4, 4, 1), []int32{2, 2}, []int32{0, 0, 0, 0}), 1), []string{"input 1", "must be a constant tensor"}},
			{"dynamic pads", nonConst(spaceBatchNode(f32(4, 4, 4, 1), []int32{2, 2}, []int32{0, 0, 0, 0}), 2), []string{"input 2", "must be a constant tensor"}},
			{"int64 block", node(nil, []*ops.Tensor{f32(4, 4, 4, 1), constT(tensorOf(ops.Int64, []int{2}, []int64{2, 2})), constT(tensorOf(ops.Int32, []int{2, 2}, make([]int32, 4)))}, outTensor(ops.Float32)), []string{"block_shape", "int64"}},
			{"output type", withOut(spaceBatchNode(f32(4, 4, 4, 1), []int32{2, 2}, []int32{0, 0, 0, 0}), outTensor(ops.Int32)), []string{"output 0", "int32"}},
			{"quant differs", withOut(spaceBatchNode(q(tensorOf(ops.Int8, []int{4, 2, 2, 1}, make([]int8, 16)), 0.5, 1), []int32{2, 2}, []int32{0, 0, 0, 0}), q(outTensor(ops.Int8), 0.5, 2)), []string{"quantization"}},
			{"int16 zero point", spaceBatchNode(q(tensorOf(ops.Int16, []int{4, 2, 2, 1}, make([]int16, 16)), 0.5, 3), []int32{2, 2}, []int32{0, 0, 0, 0}), []string{"int16 zero point 3"}},
			{"string", spaceBatchNode(&ops.Tensor{Type: ops.String, Shape: []int{4, 2, 2, 1}}, []int32{2, 2}, []int32{0, 0, 0, 0}), []string{"string"}},
			{"complex128", spaceBatchNode(tensorOf(ops.Complex128, []int{4, 2, 2, 1}, make([]complex128, 16)), []int32{2, 2}, []int32{0, 0, 0, 0}), []string{"complex128"}},
			{"two inputs", node(nil, []*ops.Tensor{f32(4, 4, 4, 1), c32(2, 2)}, outTensor(ops.Float32)), []string{"2 inputs"}},
			{"missing pads", node(nil, []*ops.Tensor{f32(4, 4, 4, 1), c32(2, 2), nil}, outTensor(ops.Float32)), []string{"input 2"}},
		}
	}
	s2b := append(common(),
		tc{"not a multiple", spaceBatchNode(f32(1, 5, 4, 1), []int32{2, 2}, []int32{0, 0, 0, 0}), []string{"padded to 5", "block size 2"}},
		tc{"negative padded", spaceBatchNode(f32(1, 2, 4, 1), []int32{1, 2}, []int32{-2, -1, 0, 0}), []string{"negative"}},
		tc{"batch overflows", spaceBatchNode(f32(1, 1, 1, 1), []int32{1 << 16, 1 << 16}, []int32{0, 1<<16 - 1, 0, 1<<16 - 1}), []string{"overflows"}},
	)
	for _, c := range s2b {
		t.Run("SpaceToBatchND/"+c.name, func(t *testing.T) { wantPrepareError(t, NewSpaceToBatchND(), c.n, c.wants...) })
	}
	b2s := append(common(),
		tc{"batch not a multiple", spaceBatchNode(f32(6, 2, 2, 1), []int32{2, 2}, []int32{0, 0, 0, 0}), []string{"batch 6", "not a multiple"}},
		tc{"negative crop", spaceBatchNode(f32(4, 2, 2, 1), []int32{2, 2}, []int32{0, -1, 0, 0}), []string{"crops", "entry 1 is -1"}},
		tc{"crops too large", spaceBatchNode(f32(4, 2, 2, 1), []int32{2, 2}, []int32{3, 2, 0, 0}), []string{"exceed"}},
	)
	for _, c := range b2s {
		t.Run("BatchToSpaceND/"+c.name, func(t *testing.T) { wantPrepareError(t, NewBatchToSpaceND(), c.n, c.wants...) })
	}
	for _, k := range []ops.Kernel{NewSpaceToBatchND(), NewBatchToSpaceND()} {
		if err := k.Eval(spaceBatchNode(f32(4, 2, 2, 1), []int32{2, 2}, []int32{0, 0, 0, 0})); err == nil {
			t.Errorf("%T: Eval without Prepare and output memory succeeded", k)
		}
	}
}
