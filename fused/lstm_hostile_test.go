package fused

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestLSTMFamilyHostileShapes perturbs one dimension, the rank or the type
// of one input of valid hybrid UNIDIRECTIONAL_SEQUENCE_LSTM, LSTM (FULL in
// every path, BASIC float and uint8) and BIDIRECTIONAL_SEQUENCE_LSTM
// (float, hybrid, with auxiliary inputs) nodes at a time: Prepare must
// either refuse or leave a node that Eval runs — or refuses because a
// buffer no longer matches — without panicking.
func TestLSTMFamilyHostileShapes(t *testing.T) {
	rng := newTestRand(111)
	types := []ops.DataType{ops.Float32, ops.Int8, ops.Uint8, ops.Int16, ops.Int32}
	accepted, evaluated := 0, 0
	for trial := 0; trial < 900; trial++ {
		s := lstmSpec{batch: 2, time: 2, nIn: 3, nCell: 4, nOut: 4, timeMajor: trial%2 == 0, act: ops.ActTanh,
			peephole: trial%3 == 0, cifg: trial%7 == 0, proj: trial%5 == 0}
		if s.proj {
			s.nOut = 3 + trial%3
		}
		s.randomize(rng)
		x := s.randomInput(rng)
		var n *ops.Node
		var k ops.Kernel
		switch trial % 9 {
		case 0:
			n, _ = hybridSpecNode(&s, x, trial%4 == 0)
			k = NewUnidirectionalSequenceLSTM()
		case 1:
			n, k = toLSTMOp(&s, s.node(x)), NewLSTM()
		case 2:
			hn, _ := hybridSpecNode(&s, x, true)
			n, k = toLSTMOp(&s, hn), NewLSTM()
		case 3:
			in, _, _, _, _ := integerSpecNode(&s, x)
			n, k = toLSTMOp(&s, in), NewLSTM()
		case 4:
			n, k = newBasicCell(rng, 2, 3, 4).node(ops.Float32), NewLSTM()
		case 5:
			n, k = basicUint8Node(), NewLSTM()
		default:
			fw, bw := s, s
			bw.randomize(rng)
			aux := []string{"", "cross", "bw"}[trial%3]
			var auxData []float32
			switch aux {
			case "cross":
				fw.nAux, bw.nAux = 2, 2
				fw.randomize(rng)
				bw.randomize(rng)
				auxData = randomVec(rng, s.batch*s.time*2)
			case "bw":
				auxData = s.randomInput(rng)
			}
			n, _, _ = bilstmNode(&fw, &bw, x, auxData, trial%2 == 1, aux, trial%9 == 8, trial%4 == 0)
			k = NewBidirectionalSequenceLSTM()
		}
		i := rng.IntN(len(n.Inputs))
		xt := n.Inputs[i]
		if xt == nil {
			continue
		}
		shape := append([]int(nil), xt.Shape...)
		switch rng.IntN(4) {
		case 0:
			if len(shape) > 0 {
				shape[rng.IntN(len(shape))] += rng.IntN(5) - 2
			}
		case 1:
			shape = append(shape, 1+rng.IntN(2))
		case 2:
			if len(shape) > 0 {
				shape = shape[:len(shape)-1]
			}
		case 3:
			xt.Type = types[rng.IntN(len(types))]
		}
		for j := range shape {
			shape[j] = max(shape[j], 0)
		}
		xt.Shape = shape
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("trial %d: input %d shape %v type %s: panic %v", trial, i, shape, xt.Type, r)
				}
			}()
			n.ResetScratch()
			if err := k.Prepare(n); err != nil {
				return
			}
			for _, out := range n.Outputs {
				out.Data = alignedBytes(out.Bytes())
			}
			for _, sz := range n.ScratchSizes() {
				n.Scratch = append(n.Scratch, alignedBytes(sz))
			}
			accepted++
			if k.Eval(n) == nil { // short data must be reported, not crash
				evaluated++
			}
		}()
	}
	t.Logf("%d perturbed nodes accepted by Prepare, %d of them evaluated", accepted, evaluated)
}

// basicUint8Node is a small valid quantised basic-cell LSTM node.
func basicUint8Node() *ops.Node {
	const batch, in, d = 2, 3, 4
	w := make([]uint8, 4*d*(in+d))
	for i := range w {
		w[i] = uint8(i * 37)
	}
	return &ops.Node{
		OpName: "LSTM", Op: ops.OpLSTM, Version: 2,
		Inputs: []*ops.Tensor{
			quant(&ops.Tensor{Type: ops.Uint8, Shape: []int{batch, in}, Data: alignedBytes(batch * in)}, 1.0/128, 128),
			quant(varTensor(ops.Uint8, []int{batch, d}), 1.0/128, 128),
			quant(constTensor(ops.Uint8, []int{4 * d, in + d}, w), 0.01, 128),
			quant(constTensor(ops.Int32, []int{4 * d}, make([]int32, 4*d)), 0.01/128, 0),
			quant(varTensor(ops.Int16, []int{batch, d}), 1.0/2048, 0),
		},
		Outputs: []*ops.Tensor{
			quant(&ops.Tensor{Type: ops.Uint8}, 1.0/128, 128), quant(&ops.Tensor{Type: ops.Int16}, 1.0/2048, 0),
			quant(&ops.Tensor{Type: ops.Uint8}, 1.0/128, 128), quant(&ops.Tensor{Type: ops.Int16}, 1.0/4096, 0),
		},
		Options: &LSTMOptions{Activation: ops.ActTanh, KernelType: LSTMBasic},
	}
}
