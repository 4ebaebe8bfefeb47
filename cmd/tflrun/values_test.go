package main

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestTopKHeap compares the heap's top k with a full sort, on random
// values with many ties, NaNs and infinities, for float32 and a
// quantised type.
func TestTopKHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(300)
		k := r.IntN(12)
		vals := make([]float32, n)
		data := make([]byte, 4*n)
		for i := range vals {
			switch r.IntN(10) {
			case 0:
				vals[i] = float32(math.NaN())
			case 1:
				vals[i] = float32(math.Inf(1 - 2*r.IntN(2)))
			default:
				vals[i] = float32(r.IntN(7)) - 3
			}
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(vals[i]))
		}
		tf := &ops.Tensor{Type: ops.Float32, Shape: []int{n}, Data: data}
		q := &ops.Tensor{Type: ops.Int8, Shape: []int{n}, Data: make([]byte, n), Quant: &ops.Quantization{Scale: []float32{0.5}, ZeroPoint: []int64{3}}}
		for i := range q.Data {
			q.Data[i] = byte(int8(r.IntN(9) - 4))
		}
		for _, tt := range []*ops.Tensor{tf, q} {
			var all []classScore
			for i := 0; i < n; i++ {
				v, _ := element(tt.Type, tt.Data, i)
				if tt.Quant != nil {
					v = (v - 3) * 0.5
				}
				all = append(all, classScore{Class: i, Value: v})
			}
			slices.SortStableFunc(all, func(a, b classScore) int {
				if better(a, b) {
					return -1
				}
				if better(b, a) {
					return 1
				}
				return 0
			})
			want := all[:min(k, n)]
			got := topK(tt, k)
			if len(got) != len(want) {
				t.Fatalf("%s n=%d k=%d: %d entries, want %d", tt.Type, n, k, len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Class != w.Class || !(g.Value == w.Value || math.IsNaN(g.Value) && math.IsNaN(w.Value)) {
					t.Fatalf("%s n=%d k=%d: entry %d = %+v, want %+v", tt.Type, n, k, i, g, w)
				}
			}
		}
	}
}
