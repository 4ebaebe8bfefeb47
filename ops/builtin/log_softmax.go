package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// LogSoftmax is the kernel of TFLite's LOG_SOFTMAX operator for float32:
// along the last dimension, y = x − max − log(Σ e^(x − max)), in float32
// as TFLite's reference LogSoftmax (the sum accumulated in order).
// Quantised LOG_SOFTMAX is not supported.
type LogSoftmax struct {
	depth, rows int
}

// NewLogSoftmax returns a LOG_SOFTMAX kernel for one node.
func NewLogSoftmax() ops.Kernel { return &LogSoftmax{} }

func init() {
	register(ops.OpLogSoftmax, NewLogSoftmax, [2]int{1, 2})
}

// Prepare checks the types.
func (k *LogSoftmax) Prepare(n *ops.Node) error {
	*k = LogSoftmax{}
	in, _, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32); err != nil {
		return fmt.Errorf("%v; quantised LOG_SOFTMAX is not supported", err)
	}
	if in.Rank() < 1 {
		return errors.New("input 0: rank 0, need at least 1")
	}
	k.depth = in.Shape[in.Rank()-1]
	if k.depth > 0 {
		k.rows = in.NumElements() / k.depth
	}
	return nil
}

// Eval normalises each row.
func (k *LogSoftmax) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("LOG_SOFTMAX: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	x, y := in.Float32s(), out.Float32s()
	d := k.depth
	for r := 0; r < k.rows; r++ {
		row, orow := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
		m := float32(-math.MaxFloat32)
		for _, v := range row {
			if v > m {
				m = v
			}
		}
		var sum float32
		for _, v := range row {
			sum += expf(v - m)
		}
		ls := float32(math.Log(float64(sum)))
		for i, v := range row {
			orow[i] = v - m - ls
		}
	}
	return nil
}
