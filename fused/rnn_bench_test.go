package fused

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Benchmarks of the RNN family, SVDF and GRU at representative sizes:
// input 64, units 128 and 256, batch 1 and 4, 32 time steps per
// iteration. Each reports ns per time step (ns/step, the whole batch).
//
//	go test ./fused -run '^$' -bench 'RNNFamily|SVDF|GRU'

const benchInput, benchSteps = 64, 32

var benchUnits = []int{128, 256}
var benchBatches = []int{1, 4}

// benchPrepare is prepared for benchmarks.
func benchPrepare(b *testing.B, k ops.Kernel, n *ops.Node) {
	b.Helper()
	n.ResetScratch()
	if err := k.Prepare(n); err != nil {
		b.Fatalf("Prepare: %v", err)
	}
	for _, out := range n.Outputs {
		out.Data = alignedBytes(out.Bytes())
	}
	for _, sz := range n.ScratchSizes() {
		n.Scratch = append(n.Scratch, alignedBytes(sz))
	}
}

// benchRun times evals calls of k.Eval per iteration and reports ns per
// time step, wall clock (ns/step) and, where the OS provides it, the
// thread's CPU time (cpu-ns/step), which is far less disturbed on a shared
// machine.
func benchRun(b *testing.B, k ops.Kernel, n *ops.Node, evals int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := threadCPUNanos()
	for i := 0; i < b.N; i++ {
		for e := 0; e < evals; e++ {
			if err := k.Eval(n); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu1 := threadCPUNanos()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchSteps, "ns/step")
	if cpu0 >= 0 && cpu1 >= 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N)/benchSteps, "cpu-ns/step")
	}
}

func BenchmarkRNNFamily(b *testing.B) {
	for _, mode := range []string{"float", "hybrid"} {
		hybrid := mode == "hybrid"
		for _, units := range benchUnits {
			for _, batch := range benchBatches {
				r := newTestRand(1)
				w := newRNNWeights(r, units, benchInput, 0)
				b.Run(fmt.Sprintf("UNIDIRECTIONAL_SEQUENCE_RNN/%s/units%d/batch%d", mode, units, batch), func(b *testing.B) {
					n, _ := seqNode(w, batch, benchSteps, false, ops.ActTanh, hybrid, false)
					k := NewUnidirectionalSequenceRNN()
					benchPrepare(b, k, n)
					copy(n.Inputs[0].Float32s(), uniform(r, n.Inputs[0].NumElements(), 1))
					benchRun(b, k, n, 1)
				})
				b.Run(fmt.Sprintf("RNN/%s/units%d/batch%d", mode, units, batch), func(b *testing.B) {
					n, _ := rnnNode(w, batch, ops.ActTanh, hybrid, false)
					k := NewRNN()
					benchPrepare(b, k, n)
					copy(n.Inputs[0].Float32s(), uniform(r, n.Inputs[0].NumElements(), 1))
					benchRun(b, k, n, benchSteps)
				})
				b.Run(fmt.Sprintf("BIDIRECTIONAL_SEQUENCE_RNN/%s/units%d/batch%d", mode, units, batch), func(b *testing.B) {
					f := newBiRNN(2, birnnCase{batch: batch, steps: benchSteps, nIn: benchInput, fwU: units, bwU: units,
						merge: true, hybrid: hybrid, act: ops.ActTanh})
					k := NewBidirectionalSequenceRNN()
					benchPrepare(b, k, f.n)
					copy(f.n.Inputs[0].Float32s(), uniform(r, f.n.Inputs[0].NumElements(), 1))
					benchRun(b, k, f.n, 1)
				})
			}
		}
	}
}

func BenchmarkSVDF(b *testing.B) {
	const memory, rank = 8, 1
	for _, mode := range []string{"float", "hybrid", "integer"} {
		for _, units := range benchUnits {
			for _, batch := range benchBatches {
				b.Run(fmt.Sprintf("%s/units%d/batch%d", mode, units, batch), func(b *testing.B) {
					r := newTestRand(3)
					F := units * rank
					var n *ops.Node
					if mode == "integer" {
						wt := make([]int16, F*memory)
						for i := range wt {
							wt[i] = int16(r.IntN(8001) - 4000)
						}
						wf := make([]int8, F*benchInput)
						for i := range wf {
							wf[i] = int8(r.IntN(255) - 127)
						}
						n = &ops.Node{OpName: "SVDF", Op: ops.OpSVDF, Version: 3,
							Inputs: []*ops.Tensor{
								quant(actTensor(ops.Int8, batch, benchInput), 1.0/128, 0),
								quant(constTensor(ops.Int8, []int{F, benchInput}, wf), 0.004, 0),
								quant(constTensor(ops.Int16, []int{F, memory}, wt), 0.5/4000, 0),
								quant(constTensor(ops.Int32, []int{units}, make([]int32, units)), 0.004*0.5/4000, 0),
								quant(varTensor(ops.Int16, []int{batch, memory * F}), 0.004, 0),
							},
							Outputs: []*ops.Tensor{quant(outTensor(ops.Int8), 0.02, 0)},
							Options: &SVDFOptions{Rank: rank, Activation: ops.ActRelu}}
						in := n.Inputs[0].Int8s()
						for i := range in {
							in[i] = int8(r.IntN(256) - 128)
						}
					} else {
						n = svdfNode(batch, benchInput, units, rank, memory, uniform(r, F*benchInput, 0.2),
							uniform(r, F*memory, 0.5), uniform(r, units, 0.2), ops.ActRelu, mode == "hybrid", false)
						copy(n.Inputs[0].Float32s(), uniform(r, batch*benchInput, 1))
					}
					k := NewSVDF()
					benchPrepare(b, k, n)
					benchRun(b, k, n, benchSteps)
				})
			}
		}
	}
}

func BenchmarkGRU(b *testing.B) {
	for _, units := range benchUnits {
		for _, batch := range benchBatches {
			b.Run(fmt.Sprintf("float/units%d/batch%d", units, batch), func(b *testing.B) {
				r := newTestRand(4)
				W := benchInput + units
				n := gruNode(benchSteps, batch, benchInput, units, uniform(r, 2*units*W, 0.1), uniform(r, 2*units, 0.5),
					uniform(r, units*W, 0.1), uniform(r, units, 0.5))
				k := NewUnidirectionalSequenceGRU()
				benchPrepare(b, k, n)
				copy(n.Inputs[0].Float32s(), uniform(r, n.Inputs[0].NumElements(), 1))
				benchRun(b, k, n, 1)
			})
		}
	}
}
