package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
)

// recurrentLoops counts the WHILE operators of m whose body looks like
// the step of a recurrent layer TensorFlow's converter left unfused
// (Keras 3 LSTM, GRU, SimpleRNN): the body writes a Flex TensorList, or
// it has a matrix product (FULLY_CONNECTED, BATCH_MATMUL) and a gate
// activation (LOGISTIC, TANH). It only reads the model's description:
// cheap enough to run before every run and bench.
func recurrentLoops(m *interpreter.Model) int {
	loops := 0
	for si := range m.Subgraphs {
		for _, op := range m.Subgraphs[si].Operators {
			o, ok := op.Options.(*builtin.WhileOptions)
			if op.Op != ops.OpWhile || !ok || o == nil || o.BodySubgraphIndex < 0 || o.BodySubgraphIndex >= len(m.Subgraphs) {
				continue
			}
			var list, product, gate bool
			for _, b := range m.Subgraphs[o.BodySubgraphIndex].Operators {
				switch {
				case strings.HasPrefix(b.Name, "FlexTensorList"):
					list = true
				case b.Op == ops.OpFullyConnected || b.Op == ops.OpBatchMatMul:
					product = true
				case b.Op == ops.OpLogistic || b.Op == ops.OpTanh:
					gate = true
				}
			}
			if list || product && gate {
				loops++
			}
		}
	}
	return loops
}

// printLoopHint writes the one-line suggestion to re-fuse a model with
// recurrent WHILE loops (nothing for other models).
func printLoopHint(w io.Writer, path string, m *interpreter.Model) {
	n := recurrentLoops(m)
	if n == 0 {
		return
	}
	what := "a WHILE loop that looks like an unfused recurrent layer (LSTM, GRU, SimpleRNN)"
	fused := "it by a fused operator, which runs"
	if n > 1 {
		what = fmt.Sprintf("%d WHILE loops that look like unfused recurrent layers (LSTM, GRU, SimpleRNN)", n)
		fused = "them by fused operators, which run"
	}
	fmt.Fprintf(w, "hint: %s has %s; `tflrun convert %s -o fused.tflite` can replace %s faster on long sequences (compare with tflrun bench)\n", path, what, path, fused)
}
