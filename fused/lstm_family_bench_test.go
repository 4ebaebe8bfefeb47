package fused

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// BenchmarkLSTMFamily times the LSTM family at the representative sizes of
// issue 3: input 64, cell (= output) 128 and 256, batch 1 and 4, 32 time
// steps, time-major (so a batch of 4 advances together), for each path:
// UNIDIRECTIONAL_SEQUENCE_LSTM float32, hybrid (asymmetric inputs) and
// int8x8_16; the LSTM operator (one step per Eval, 32 Evals); and
// BIDIRECTIONAL_SEQUENCE_LSTM float32 and hybrid (both directions per
// step). Each reports ns per time step (ns/step).
func BenchmarkLSTMFamily(b *testing.B) {
	const steps, nIn = 32, 64
	for _, op := range []string{"usl", "lstm", "bilstm"} {
		for _, path := range []string{"float32", "hybrid", "int8"} {
			if op == "bilstm" && path == "int8" {
				continue // TFLite has no integer BIDIRECTIONAL_SEQUENCE_LSTM
			}
			for _, cell := range []int{128, 256} {
				for _, batch := range []int{1, 4} {
					name := fmt.Sprintf("%s/%s/cell%d/batch%d", op, path, cell, batch)
					b.Run(name, func(b *testing.B) {
						benchLSTM(b, op, path, batch, steps, nIn, cell)
					})
				}
			}
		}
	}
}

func benchLSTM(b *testing.B, op, path string, batch, steps, nIn, cell int) {
	s := &lstmSpec{batch: batch, time: steps, nIn: nIn, nCell: cell, nOut: cell, timeMajor: true, act: ops.ActTanh}
	s.randomize(newTestRand(71))
	x := s.randomInput(newTestRand(72))
	var n *ops.Node
	var k ops.Kernel
	evals := 1
	var steps8 []byte // the LSTM operator's input, one time step per Eval
	switch op {
	case "usl", "lstm":
		switch path {
		case "float32":
			n = s.node(x)
		case "hybrid":
			n, _ = hybridSpecNode(s, x, true)
		case "int8":
			n, _, _, _, _ = integerSpecNode(s, x)
		}
		k = NewUnidirectionalSequenceLSTM()
		if op == "lstm" {
			steps8 = n.Inputs[0].Data
			n, k, evals = toLSTMOp(s, n), NewLSTM(), steps
		}
	case "bilstm":
		fw, bw := *s, *s
		bw.randomize(newTestRand(73))
		n, _, _ = bilstmNode(&fw, &bw, x, nil, true, "", path == "hybrid", true)
		k = NewBidirectionalSequenceLSTM()
	}
	n.ResetScratch()
	if err := k.Prepare(n); err != nil {
		b.Fatal(err)
	}
	for _, o := range n.Outputs {
		o.Data = alignedBytes(o.Bytes())
	}
	for _, sz := range n.ScratchSizes() {
		n.Scratch = append(n.Scratch, alignedBytes(sz))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for e := 0; e < evals; e++ {
			if steps8 != nil {
				in := n.Inputs[0].Data
				copy(in, steps8[e*len(in):])
			}
			if err := k.Eval(n); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps), "ns/step")
}
