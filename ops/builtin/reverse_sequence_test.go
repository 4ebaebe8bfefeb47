package builtin

import (
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of REVERSE_SEQUENCE: TFLite's kernel test vector, random shapes,
// dimension pairs and lengths (0, negative, full) against the definition,
// and the errors.

func TestReverseSequenceTFLiteVector(t *testing.T) {
	// TFLite's FloatSeqDimIsGreater: [4, 3, 2], seq_dim 1, batch_dim 0,
	// lengths [3, 2, 3, 3].
	in := make([]float32, 24)
	for i := range in {
		in[i] = float32(i + 1)
	}
	n := node(&ReverseSequenceOptions{SeqDim: 1, BatchDim: 0}, []*ops.Tensor{tensorOf(ops.Float32, []int{4, 3, 2}, in), c32(3, 2, 3, 3)}, outTensor(ops.Float32))
	k := NewReverseSequence()
	run(t, k, n)
	want := []float32{5, 6, 3, 4, 1, 2, 9, 10, 7, 8, 11, 12, 17, 18, 15, 16, 13, 14, 23, 24, 21, 22, 19, 20}
	if got := n.Outputs[0].Float32s(); !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	noAllocs(t, k, n)
}

func TestReverseSequenceAgainstDefinition(t *testing.T) {
	r := lcg(71)
	types := []ops.DataType{ops.Float32, ops.Uint8, ops.Int16, ops.Int32, ops.Int64}
	for trial := 0; trial < 200; trial++ {
		typ := types[trial%len(types)]
		rank := r.intn(2, 4)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = r.intn(1, 4)
		}
		sd := r.intn(0, rank-1)
		bd := (sd + r.intn(1, rank-1)) % rank
		lens := make([]int64, shape[bd])
		for i := range lens {
			lens[i] = int64(r.intn(-1, shape[sd]))
		}
		raw := make([]byte, prod(shape)*typ.Size())
		for i := range raw {
			raw[i] = byte(r.next())
		}
		lt := indexTensor([]ops.DataType{ops.Int32, ops.Int64}[trial%2], []int{len(lens)}, lens)
		n := node(&ReverseSequenceOptions{SeqDim: sd, BatchDim: bd}, []*ops.Tensor{tensorOf(typ, shape, raw), lt}, outTensor(typ))
		k := NewReverseSequence()
		run(t, k, n)
		e := typ.Size()
		want := make([]byte, len(raw))
		forEach(shape, func(o []int) {
			in := append([]int{}, o...)
			if l := lens[o[bd]]; int64(o[sd]) < l {
				in[sd] = int(l) - 1 - o[sd]
			}
			copy(want[index(shape, o)*e:][:e], raw[index(shape, in)*e:][:e])
		})
		if got := n.Outputs[0].Data[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("%s %v seq_dim %d batch_dim %d lengths %v: got %v want %v", typ, shape, sd, bd, lens, got, want)
		}
		noAllocs(t, k, n)
	}
}

func TestReverseSequenceErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	rs := func(sd, bd int, in, l *ops.Tensor) *ops.Node {
		return node(&ReverseSequenceOptions{SeqDim: sd, BatchDim: bd}, []*ops.Tensor{in, l}, outTensor(in.Type))
	}
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"same dims", rs(1, 1, f32(2, 2), c32(1, 1)), []string{"must differ"}},
		{"seq_dim out of range", rs(2, 0, f32(2, 2), c32(1, 1)), []string{"seq_dim 2"}},
		{"negative batch_dim", rs(1, -1, f32(2, 2), c32(1, 1)), []string{"batch_dim -1"}},
		{"length count", rs(1, 0, f32(2, 2), c32(1)), []string{"1 lengths", "has 2"}},
		{"lengths rank", rs(1, 0, f32(2, 2), tensorOf(ops.Int32, []int{2, 1}, []int32{1, 1})), []string{"vector"}},
		{"int8", rs(1, 0, tensorOf(ops.Int8, []int{2, 2}, make([]int8, 4)), c32(1, 1)), []string{"int8"}},
		{"float lengths", rs(1, 0, f32(2, 2), f32(2)), []string{"seq_lengths", "float32"}},
		{"options", node(&OneHotOptions{}, []*ops.Tensor{f32(2, 2), c32(1, 1)}, outTensor(ops.Float32)), []string{"*ReverseSequenceOptions"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewReverseSequence(), c.n, c.wants...) })
	}
	// Any length beyond the sequence fails Eval (TFLite checks only the
	// first and writes out of bounds for the others).
	n := rs(1, 0, f32(2, 3), c32(3, 4))
	k := NewReverseSequence()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "entry 1 is 4") {
		t.Fatalf("Eval: %v", err)
	}
}
