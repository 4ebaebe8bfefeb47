package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of TRANSPOSE and REVERSE_V2: TFLite's kernel-test vectors
// (transpose_test.cc, reverse_test.cc) and naive multi-index references on
// random shapes.

func TestTransposeReverse(t *testing.T) {
	r := lcg(6)
	for trial := 0; trial < 31; trial++ {
		rank := r.intn(1, 6)
		hi := 4
		if trial >= 25 {
			// Extents past transposeTile's tile edge, with size-1 and
			// mergeable dimensions, so the collapsed forms are covered.
			rank, hi = r.intn(2, 4), 45
		}
		shape := make([]int, rank)
		for d := range shape {
			shape[d] = r.intn(1, hi)
		}
		if trial >= 25 && rank == 4 {
			shape[0], shape[3] = 1, r.intn(1, 9)
		}
		perm := make([]int32, rank)
		for i := range perm {
			perm[i] = int32(i)
		}
		for i := rank - 1; i > 0; i-- {
			j := r.intn(0, i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		if trial == 25 || trial == 26 {
			// The NCHW↔NHWC pair, the tiled matrix path for certain.
			rank, shape = 4, []int{1, 7, 40, 35}
			perm = []int32{0, 2, 3, 1}
			if trial == 26 {
				perm = []int32{0, 3, 1, 2}
			}
		}
		if trial%3 == 0 {
			perm[0] -= int32(rank) // negative entries count from the end
		}
		data := f32Seq(prod(shape))
		for _, typ := range []ops.DataType{ops.Float32, ops.Int8, ops.Int16, ops.Int64} {
			var in *ops.Tensor
			switch typ {
			case ops.Float32:
				in = tensorOf(ops.Float32, shape, data)
			case ops.Int8:
				v := make([]int8, len(data))
				for i := range v {
					v[i] = int8(i)
				}
				in = tensorOf(ops.Int8, shape, v)
			case ops.Int16:
				v := make([]int16, len(data))
				for i := range v {
					v[i] = int16(i)
				}
				in = tensorOf(ops.Int16, shape, v)
			default:
				v := make([]int64, len(data))
				for i := range v {
					v[i] = int64(i)
				}
				in = tensorOf(ops.Int64, shape, v)
			}
			n := node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{rank}, perm))}, outTensor(typ))
			k := NewTranspose()
			run(t, k, n)
			out := n.Outputs[0]
			p := make([]int, rank)
			for i, v := range perm {
				p[i] = (int(v) + rank) % rank
			}
			forEach(out.Shape, func(idx []int) {
				src := make([]int, rank)
				for i := range idx {
					src[p[i]] = idx[i]
				}
				want := index(shape, src)
				var got int
				switch typ {
				case ops.Float32:
					got = int(out.Float32s()[index(out.Shape, idx)])
				case ops.Int8:
					got = int(uint8(out.Int8s()[index(out.Shape, idx)]))
					want &= 0xff
				case ops.Int16:
					got = int(out.Int16s()[index(out.Shape, idx)])
				default:
					got = int(out.Int64s()[index(out.Shape, idx)])
				}
				if got != want {
					t.Fatalf("transpose %v perm %v (%s): output %v = %d, want %d", shape, perm, typ, idx, got, want)
				}
			})
			noAllocs(t, k, n)
		}
		// REVERSE_V2 over a random subset of axes.
		var axes []int32
		for d := 0; d < rank; d++ {
			if r.intn(0, 1) == 1 {
				axes = append(axes, int32(d))
			}
		}
		n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, shape, data), constT(tensorOf(ops.Int32, []int{len(axes)}, axes))}, outTensor(ops.Float32))
		k := NewReverseV2()
		run(t, k, n)
		forEach(shape, func(idx []int) {
			src := append([]int(nil), idx...)
			for _, a := range axes {
				src[a] = shape[a] - 1 - idx[a]
			}
			if got := n.Outputs[0].Float32s()[index(shape, idx)]; int(got) != index(shape, src) {
				t.Fatalf("reverse %v axes %v: %v = %v", shape, axes, idx, got)
			}
		})
		noAllocs(t, k, n)
	}
	// ReverseOpTest.FloatOneDimension and TransposeTest.TestRefOps2D.
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{4}, []float32{1, 2, 3, 4}), constT(tensorOf(ops.Int32, []int{1}, []int32{0}))}, outTensor(ops.Float32))
	run(t, NewReverseV2(), n)
	nearFloats(t, "reverse 1-D", n.Outputs[0].Float32s(), []float64{4, 3, 2, 1}, 0)
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3, 2}, f32Seq(6)), constT(tensorOf(ops.Int32, []int{2}, []int32{1, 0}))}, outTensor(ops.Float32))
	run(t, NewTranspose(), n)
	nearFloats(t, "transpose 2-D", n.Outputs[0].Float32s(), []float64{0, 2, 4, 1, 3, 5}, 0)
	wantPrepareError(t, NewTranspose(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3, 2}, f32Seq(6)), constT(tensorOf(ops.Int32, []int{2}, []int32{1, 1}))}, outTensor(ops.Float32)), "twice")
	wantPrepareError(t, NewReverseV2(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3, 2}, f32Seq(6)), constT(tensorOf(ops.Int32, []int{1}, []int32{2}))}, outTensor(ops.Float32)), "axis 2")
}

// TestTransposeTileBytes checks the byte matrix transpose (8×8 register
// blocks, 64×64 tiles, strips, thin matrices) against the definition on
// every shape up to 70×70 and on shapes past one tile with ragged edges.
func TestTransposeTileBytes(t *testing.T) {
	r := lcg(14)
	check := func(rows, cols int) {
		src := make([]byte, rows*cols)
		for i := range src {
			src[i] = byte(r.intn(0, 255))
		}
		dst := make([]byte, rows*cols+8)
		for i := range dst {
			dst[i] = 0xa5
		}
		// Band by band, as the threads of Eval call it; each band
		// must write its rows only.
		for lo := 0; lo < rows; lo += transposeBand {
			hi := min(lo+transposeBand, rows)
			transposeTileBytes(dst[:rows*cols], src, rows, cols, lo, hi)
			for i := hi * cols; i < len(dst); i++ {
				if dst[i] != 0xa5 {
					t.Fatalf("%d×%d: rows [%d, %d) wrote byte %d", rows, cols, lo, hi, i)
				}
			}
		}
		for rr := 0; rr < rows; rr++ {
			for c := 0; c < cols; c++ {
				if got, want := dst[rr*cols+c], src[c*rows+rr]; got != want {
					t.Fatalf("%d×%d: [%d][%d] = %d, want %d", rows, cols, rr, c, got, want)
				}
			}
		}
		for i := rows * cols; i < len(dst); i++ {
			if dst[i] != 0xa5 {
				t.Fatalf("%d×%d: wrote past the end", rows, cols)
			}
		}
	}
	for rows := 0; rows <= 70; rows++ {
		for cols := 0; cols <= 70; cols++ {
			check(rows, cols)
		}
	}
	for _, sh := range [][2]int{{4800, 8}, {8, 4800}, {3, 19764}, {19764, 3}, {130, 201}, {257, 65}, {1, 300}, {300, 1}} {
		check(sh[0], sh[1])
	}
}
