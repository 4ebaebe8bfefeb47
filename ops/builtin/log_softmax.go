package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// LogSoftmax is the kernel of TFLite's LOG_SOFTMAX operator: along the
// last dimension, y = x − max − log(Σ e^(x − max)).
//
// Type paths:
//
//   - float32: in float32 as TFLite's reference LogSoftmax (the sum
//     accumulated in order);
//
//   - uint8 (op version 1): TFLite's builtin kernel, optimized_ops::
//     LogSoftmax with the float table of PopulateSoftmaxLookupTable
//     (β = 1): table[255−d] = expf(−in_scale·d), a float32 row sum s, and
//     y = rint(in_scale/out_scale·x − (in_scale·max + logf(s))/out_scale)
//
//   - 255, clamped to [0, 255]. As TFLite requires, the output scale is
//     exactly 16/256 and its zero point 255.
//
//   - int8 (op version 2): TFLite's fixed-point reference kernel
//     (log_softmax_int8.go); the output scale must be exactly 16/256 and
//     its zero point 127.
type LogSoftmax struct {
	depth, rows int
	// uint8: the exp table and the two scales.
	table             [256]float32
	inScale, outScale float32
	// int8: the fixed-point parameters.
	i8 logSoftmaxInt8Params
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
	if err := requireType(in, "input 0", ops.Float32, ops.Uint8, ops.Int8); err != nil {
		return err
	}
	if in.Rank() < 1 {
		return errors.New("input 0: rank 0, need at least 1")
	}
	k.depth = in.Shape[in.Rank()-1]
	if k.depth > 0 {
		k.rows = in.NumElements() / k.depth
	}
	switch in.Type {
	case ops.Uint8:
		return k.prepareUint8(in, n.Output(0))
	case ops.Int8:
		return k.prepareInt8(in, n.Output(0))
	}
	return nil
}

// prepareUint8 checks the quantisation TFLite's LogSoftmaxPrepare
// requires and builds PopulateSoftmaxLookupTable's table with β = 1.
func (k *LogSoftmax) prepareUint8(in, out *ops.Tensor) error {
	var err error
	if k.inScale, _, err = perTensorQuant(in, "input 0"); err != nil {
		return err
	}
	var outZP int32
	if k.outScale, outZP, err = perTensorQuant(out, "output 0"); err != nil {
		return err
	}
	// TFLite compares the float32 scale with 16/256 exactly.
	if k.outScale != 16.0/256 {
		return fmt.Errorf("output 0: scale %g, uint8 LOG_SOFTMAX needs 16/256", k.outScale)
	}
	if outZP != 255 {
		return fmt.Errorf("output 0: zero point %d, uint8 LOG_SOFTMAX needs 255", outZP)
	}
	scale := float32(-k.inScale)
	for d := 0; d <= 255; d++ {
		k.table[255-d] = expf(float32(scale * float32(d)))
	}
	return nil
}

// logSoftmaxUint8 is optimized_ops::LogSoftmax's uint8 row loop. The
// float32 conversions keep every product rounded on its own (no fused
// multiply-add), as TFLite's x86 build computes it.
func (k *LogSoftmax) logSoftmaxUint8(x, y []uint8) {
	d := k.depth
	ratio := float32(k.inScale / k.outScale)
	for r := 0; r < k.rows; r++ {
		row, orow := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
		var maxVal uint8
		for _, v := range row {
			maxVal = max(maxVal, v)
		}
		off := 255 - int(maxVal)
		var sum float32
		for _, v := range row {
			sum += k.table[off+int(v)]
		}
		logSum := float32(math.Log(float64(sum)))
		pre := float32(float32(float32(k.inScale*float32(maxVal))+logSum) / k.outScale)
		for i, v := range row {
			lp := float32(float32(ratio*float32(v)) - pre)
			q := f32ToInt32(float32(math.RoundToEven(float64(lp)))) + 255
			orow[i] = uint8(ops.ClampInt32(q, 0, 255))
		}
	}
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
	switch in.Type {
	case ops.Uint8:
		k.logSoftmaxUint8(in.Uint8s(), out.Uint8s())
		return nil
	case ops.Int8:
		k.logSoftmaxInt8(in.Int8s(), out.Int8s())
		return nil
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
