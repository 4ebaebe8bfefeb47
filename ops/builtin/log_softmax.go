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
//   - uint8 (op version 1) and int8 (op version 2): TFLite's builtin
//     kernel (kGenericOptimized) runs optimized_ops::LogSoftmax<T> for
//     both, with the float table of PopulateSoftmaxLookupTable (β = 1):
//     table[255−d] = expf(−in_scale·d), indexed by x − max + 255, a float32
//     row sum s, and y = rint(in_scale/out_scale·x − (in_scale·max +
//     logf(s))/out_scale) + zero point, clamped to the type's range. (Its
//     fixed-point reference_integer_ops::LogSoftmax is only the reference
//     kernel's int8 path; it differs by one step on some inputs.) As
//     TFLite requires, the output scale is exactly 16/256 and its zero
//     point 255 for uint8, 127 for int8.
type LogSoftmax struct {
	depth, rows int
	// uint8 and int8: the exp table, the two scales and the output zero
	// point.
	table             [256]float32
	inScale, outScale float32
	outZP             int32
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
		return k.prepareQuant(in, n.Output(0), 255)
	case ops.Int8:
		return k.prepareQuant(in, n.Output(0), 127)
	}
	return nil
}

// prepareQuant checks the quantisation TFLite's LogSoftmaxPrepare
// requires of a uint8 or int8 output (scale 16/256, zero point zp) and
// builds PopulateSoftmaxLookupTable's table with β = 1.
func (k *LogSoftmax) prepareQuant(in, out *ops.Tensor, zp int32) error {
	var err error
	if k.inScale, _, err = perTensorQuant(in, "input 0"); err != nil {
		return err
	}
	if k.outScale, k.outZP, err = perTensorQuant(out, "output 0"); err != nil {
		return err
	}
	// TFLite compares the float32 scale with 16/256 exactly.
	if k.outScale != 16.0/256 {
		return fmt.Errorf("output 0: scale %g, %v LOG_SOFTMAX needs 16/256", k.outScale, in.Type)
	}
	if k.outZP != zp {
		return fmt.Errorf("output 0: zero point %d, %v LOG_SOFTMAX needs %d", k.outZP, in.Type, zp)
	}
	scale := float32(-k.inScale)
	for d := 0; d <= 255; d++ {
		k.table[255-d] = expf(float32(scale * float32(d)))
	}
	return nil
}

// logSoftmaxTable is optimized_ops::LogSoftmax<T>'s row loop for uint8
// and int8 (lo, hi: the type's range; the row maximum starts at lo). The
// float32 conversions keep every product rounded on its own (no fused
// multiply-add), as TFLite's x86 build computes it.
func logSoftmaxTable[T uint8 | int8](k *LogSoftmax, x, y []T, lo, hi int32) {
	d := k.depth
	ratio := float32(k.inScale / k.outScale)
	for r := 0; r < k.rows; r++ {
		row, orow := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
		maxVal := T(lo)
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
			q := f32ToInt32(float32(math.RoundToEven(float64(lp)))) + k.outZP
			orow[i] = T(ops.ClampInt32(q, lo, hi))
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
		logSoftmaxTable(k, in.Uint8s(), out.Uint8s(), 0, 255)
		return nil
	case ops.Int8:
		logSoftmaxTable(k, in.Int8s(), out.Int8s(), -128, 127)
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
