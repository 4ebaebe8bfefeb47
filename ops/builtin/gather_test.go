package builtin

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's gather_test.cc (Shuffle, Test0DIndex,
// Test0DIndexWith0DResult, Test2DIndexWith2DResult, Duplicate, Slice,
// Axis1, Axis10DIndex, Axis1Slice, LastAxis, LastAxis0DIndex, BatchDims1,
// BatchDims2, NegativeBatchDims, BatchDimsEqualIndexDims, Int32/Int64
// indices on every type, ErrorOnOutOfBounds*) and EMBEDDING_LOOKUP's
// embedding_lookup_test.cc (SimpleTest, Simple2DTest, HybridTest).

func TestGatherTFLiteVectors(t *testing.T) {
	f := []float32{-2, 0.2, 0.7, 0.8}
	for _, tc := range []struct {
		name            string
		shape, idxShape []int
		data            []float32
		idx             []int32
		axis, batchDims int
		wantShape       []int
		want            []float64
	}{
		{"Shuffle", []int{2, 2}, []int{2}, f, []int32{1, 0}, 0, 0, []int{2, 2}, []float64{0.7, 0.8, -2, 0.2}},
		{"Test0DIndex", []int{2, 2}, []int{}, f, []int32{1}, 0, 0, []int{2}, []float64{0.7, 0.8}},
		{"Test0DIndexWith0DResult", []int{3}, []int{}, []float32{1, 2, 3}, []int32{1}, 0, 0, []int{}, []float64{2}},
		{"Test1DInput1DIndex", []int{3}, []int{1}, []float32{1, 3, 5}, []int32{1}, 0, 0, []int{1}, []float64{3}},
		{"Test2DIndexWith2DResult", []int{3}, []int{1, 2}, []float32{1, 2, 3}, []int32{1, 0}, 0, 0, []int{1, 2}, []float64{2, 1}},
		{"Duplicate", []int{1, 2, 2}, []int{2}, f, []int32{0, 0}, 0, 0, []int{2, 2, 2}, []float64{-2, 0.2, 0.7, 0.8, -2, 0.2, 0.7, 0.8}},
		{"Slice", []int{4, 1}, []int{2}, f, []int32{1, 3}, 0, 0, []int{2, 1}, []float64{0.2, 0.8}},
		{"Axis1", []int{1, 2, 3}, []int{2}, []float32{1, 2, 3, 4, 5, 6}, []int32{1, 0}, 1, 0, []int{1, 2, 3}, []float64{4, 5, 6, 1, 2, 3}},
		{"Axis10DIndex", []int{1, 3, 2}, []int{}, []float32{1, 2, 3, 4, 5, 6}, []int32{1}, 1, 0, []int{1, 2}, []float64{3, 4}},
		{"Axis1Slice", []int{1, 4, 2}, []int{2}, []float32{1, 2, 3, 4, 5, 6, 7, 8}, []int32{3, 1}, 1, 0, []int{1, 2, 2}, []float64{7, 8, 3, 4}},
		{"LastAxis", []int{1, 2, 3}, []int{2}, []float32{1, 2, 3, 4, 5, 6}, []int32{2, 0}, -1, 0, []int{1, 2, 2}, []float64{3, 1, 6, 4}},
		{"LastAxis0DIndex", []int{1, 2, 3}, []int{}, []float32{1, 2, 3, 4, 5, 6}, []int32{2}, -1, 0, []int{1, 2}, []float64{3, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := node(&GatherOptions{Axis: tc.axis, BatchDims: tc.batchDims}, []*ops.Tensor{tensorOf(ops.Float32, tc.shape, tc.data), tensorOf(ops.Int32, tc.idxShape, tc.idx)}, outTensor(ops.Float32))
			k := NewGather()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, tc.wantShape)
			nearFloats(t, "output", n.Outputs[0].Float32s(), tc.want, 1e-7)
			noAllocs(t, k, n)
		})
	}
}

func TestGatherBatchDims(t *testing.T) {
	data := make([]int8, 60)
	for i := range data {
		data[i] = int8(i)
	}
	idx := []int32{1, 0, 0, 1, 1, 0, 0, 1}
	want1 := []int{5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 22, 23, 24, 15, 16, 17,
		18, 19, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 35, 36, 37, 38, 39, 30, 31, 32, 33, 34, 30, 31, 32, 33, 34, 35,
		36, 37, 38, 39, 50, 51, 52, 53, 54, 45, 46, 47, 48, 49, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54}
	want2 := []int{5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
		35, 36, 37, 38, 39, 30, 31, 32, 33, 34, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54}
	for _, tc := range []struct {
		name            string
		shape           []int
		axis, batchDims int
		wantShape       []int
		want            []int
	}{
		{"BatchDims1", []int{2, 2, 3, 5}, 2, 1, []int{2, 2, 2, 2, 5}, want1},
		{"NegativeBatchDims", []int{2, 2, 3, 5}, 2, -2, []int{2, 2, 2, 2, 5}, want1},
		{"BatchDims2", []int{2, 2, 3, 5}, 2, 2, []int{2, 2, 2, 5}, want2},
		{"BatchDimsEqualIndexDims", []int{2, 2, 2, 5}, 3, 3, []int{2, 2, 2}, []int{1, 5, 10, 16, 21, 25, 30, 36}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := node(&GatherOptions{Axis: tc.axis, BatchDims: tc.batchDims}, []*ops.Tensor{tensorOf(ops.Int8, tc.shape, data[:prod(tc.shape)]), tensorOf(ops.Int32, []int{2, 2, 2}, idx)}, outTensor(ops.Int8))
			k := NewGather()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, tc.wantShape)
			equalInts(t, "output", n.Outputs[0].Int8s(), tc.want)
			noAllocs(t, k, n)
		})
	}
}

func TestGatherTypes(t *testing.T) {
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Int64, ops.Float32, ops.Float16, ops.BFloat16, ops.Bool} {
		for _, it := range []ops.DataType{ops.Int32, ops.Int64, ops.Int16} {
			in := &ops.Tensor{Type: typ, Shape: []int{2, 2}, Data: alignedBytes(4 * typ.Size())}
			for e := 0; e < 4; e++ {
				in.Data[e*typ.Size()] = byte(10 + e) // distinct low bytes
			}
			var idx *ops.Tensor
			switch it {
			case ops.Int32:
				idx = tensorOf(ops.Int32, []int{2}, []int32{1, 0})
			case ops.Int64:
				idx = tensorOf(ops.Int64, []int{2}, []int64{1, 0})
			default:
				idx = tensorOf(ops.Int16, []int{2}, []int16{1, 0})
			}
			n := node(&GatherOptions{}, []*ops.Tensor{in, idx}, outTensor(typ))
			run(t, NewGather(), n)
			for e, want := range []byte{12, 13, 10, 11} {
				if got := n.Outputs[0].Data[e*typ.Size()]; got != want {
					t.Fatalf("%s with %s indices: element %d = %d, want %d", typ, it, e, got, want)
				}
			}
		}
	}
}

func TestGatherErrors(t *testing.T) {
	f := tensorOf(ops.Float32, []int{2, 2}, []float32{-2, 0.2, 0.7, 0.8})
	for _, idx := range [][]int32{{3, 1}, {-1, 0}} {
		n := node(&GatherOptions{}, []*ops.Tensor{f, tensorOf(ops.Int32, []int{2}, idx)}, outTensor(ops.Float32))
		k := NewGather()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "outside [0, 2)") {
			t.Fatalf("indices %v: Eval error %v, want an out-of-range error", idx, err)
		}
	}
	i2 := tensorOf(ops.Int32, []int{2}, []int32{0, 1})
	for _, tc := range []struct {
		name string
		n    *ops.Node
		frag string
	}{
		{"axis", node(&GatherOptions{Axis: 2}, []*ops.Tensor{f, i2}, outTensor(ops.Float32)), "axis 2"},
		{"batch dims", node(&GatherOptions{Axis: 0, BatchDims: 1}, []*ops.Tensor{f, i2}, outTensor(ops.Float32)), "batch_dims"},
		{"index type", node(&GatherOptions{}, []*ops.Tensor{f, tensorOf(ops.Float32, []int{1}, []float32{0})}, outTensor(ops.Float32)), "input 1 (indices)"},
		{"out type", node(&GatherOptions{}, []*ops.Tensor{f, i2}, outTensor(ops.Int32)), "output 0: type int32"},
		{"string", node(&GatherOptions{}, []*ops.Tensor{{Type: ops.String, Shape: []int{2}}, i2}, outTensor(ops.String)), "not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantPrepareError(t, NewGather(), tc.n, tc.frag) })
	}
}

func TestEmbeddingLookup(t *testing.T) {
	// SimpleTest: a [3, 2, 4] table whose element [i, j, k] is i + j/10 +
	// k/100, looked up with ids {1, 0, 2}.
	table := make([]float32, 24)
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			for k := 0; k < 4; k++ {
				table[(i*2+j)*4+k] = float32(i) + float32(j)/10 + float32(k)/100
			}
		}
	}
	n := node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{3}, []int32{1, 0, 2}), tensorOf(ops.Float32, []int{3, 2, 4}, table)}, outTensor(ops.Float32))
	k := NewEmbeddingLookup()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{3, 2, 4})
	var want []float64
	for _, r := range []int{1, 0, 2} {
		for _, v := range table[r*8 : r*8+8] {
			want = append(want, float64(v))
		}
	}
	nearFloats(t, "SimpleTest", n.Outputs[0].Float32s(), want, 0)
	noAllocs(t, k, n)

	// HybridTest: an int8 table with scale 1/127 dequantised to float, and
	// per-row scales.
	q := []int8{1, 2, 3, 4, -1, -2, -3, -4, 127, -127, 0, 5}
	for _, scales := range [][]float32{{1.0 / 127}, {0.5, 0.25, 0.125}} {
		vt := constT(tensorOf(ops.Int8, []int{3, 4}, q))
		vt.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, len(scales))}
		n := node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{2, 0}), vt}, outTensor(ops.Float32))
		run(t, NewEmbeddingLookup(), n)
		s2, s0 := scales[0], scales[0]
		if len(scales) > 1 {
			s2, s0 = scales[2], scales[0]
		}
		want := []float64{127 * float64(s2), -127 * float64(s2), 0, 5 * float64(s2), float64(s0), 2 * float64(s0), 3 * float64(s0), 4 * float64(s0)}
		nearFloats(t, "hybrid", n.Outputs[0].Float32s(), want, 1e-6)
	}
	// Out-of-range ids fail at Eval.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{3}), tensorOf(ops.Float32, []int{3, 2, 4}, table)}, outTensor(ops.Float32))
	k = NewEmbeddingLookup()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "outside [0, 3)") {
		t.Fatalf("Eval error %v", err)
	}
	wantPrepareError(t, NewEmbeddingLookup(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{0}), tensorOf(ops.Float32, []int{3}, []float32{1, 2, 3})}, outTensor(ops.Float32)), "rank 1")
	wantPrepareError(t, NewEmbeddingLookup(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{0}), tensorOf(ops.Float32, []int{3, 1}, []float32{1, 2, 3})}, outTensor(ops.Float32)), "input 0 (ids)")
}

// TestGatherRowSizes: the fixed-size row copies give what copy gives, for
// every row size from 1 to 140 bytes (the sizes with a fixed copy and
// those around them), indices repeated and in any order.
func TestGatherRowSizes(t *testing.T) {
	for row := 1; row <= 140; row++ {
		const rows, picks = 9, 13
		data := make([]uint8, rows*row)
		for i := range data {
			data[i] = uint8(i*31 + row)
		}
		idx := make([]int32, picks)
		for i := range idx {
			idx[i] = int32((i * 5) % rows)
		}
		n := node(&GatherOptions{}, []*ops.Tensor{tensorOf(ops.Uint8, []int{rows, row}, data), tensorOf(ops.Int32, []int{picks}, idx)}, outTensor(ops.Uint8))
		k := NewGather()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		got := n.Outputs[0].Data
		for i, v := range idx {
			if !bytes.Equal(got[i*row:(i+1)*row], data[int(v)*row:int(v+1)*row]) {
				t.Fatalf("row %d bytes: pick %d (row %d) differs", row, i, v)
			}
		}
	}
}

// BenchmarkGatherEmbedding is a text classifier's embedding lookup: 256
// rows of 16 float32 from a 10003-row table (go test ./ops/builtin
// -bench GatherEmbedding).
func BenchmarkGatherEmbedding(b *testing.B) {
	const vocab, dim, seq = 10003, 16, 256
	table := make([]float32, vocab*dim)
	idx := make([]int32, seq)
	for i := range idx {
		idx[i] = int32((i * 7919) % vocab)
	}
	n := node(&GatherOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{vocab, dim}, table), tensorOf(ops.Int32, []int{1, seq}, idx)}, outTensor(ops.Float32))
	k := NewGather()
	if err := prepare(k, n); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := k.Eval(n); err != nil {
			b.Fatal(err)
		}
	}
}
