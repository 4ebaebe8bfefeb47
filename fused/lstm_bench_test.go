package fused

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Benchmarks on the shapes of the real models: MNIST LSTM(20) over 28 rows
// of 28 pixels, and one DTLN step of LSTM(128) on 257 features.
func BenchmarkUnidirectionalSequenceLSTM(b *testing.B) {
	shapes := []struct {
		name                  string
		batch, time, in, cell int
	}{
		{"mnist_28x28_cell20", 1, 28, 28, 20},
		{"dtln_1x257_cell128", 1, 1, 257, 128},
	}
	for _, sh := range shapes {
		for _, integer := range []bool{false, true} {
			kind := "float32"
			if integer {
				kind = "int8"
			}
			b.Run(fmt.Sprintf("%s/%s", sh.name, kind), func(b *testing.B) {
				s := &lstmSpec{batch: sh.batch, time: sh.time, nIn: sh.in, nCell: sh.cell, nOut: sh.cell, act: ops.ActTanh}
				s.randomize(newTestRand(71))
				x := s.randomInput(newTestRand(72))
				var n *ops.Node
				if integer {
					n, _, _, _, _ = integerSpecNode(s, x)
				} else {
					n = s.node(x)
				}
				k := NewUnidirectionalSequenceLSTM()
				n.ResetScratch()
				if err := k.Prepare(n); err != nil {
					b.Fatal(err)
				}
				n.Outputs[0].Data = alignedBytes(n.Outputs[0].Bytes())
				for _, sz := range n.ScratchSizes() {
					n.Scratch = append(n.Scratch, alignedBytes(sz))
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := k.Eval(n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
