package builtin

import "github.com/tflrun/tflrun/ops"

// NewReduceMin returns a REDUCE_MIN kernel for one node (a Reduce): the smallest
// element, as TFLite's reduce.cc, for float32, int32, int64, and int8,
// uint8, int16 compared raw (the input and output quantisation must be
// equal). NaN inputs give unspecified results as in TFLite.
func NewReduceMin() ops.Kernel { return &Reduce{op: &reduceMinOp} }

func init() {
	register(ops.OpReduceMin, NewReduceMin, [2]int{1, 3})
}

var reduceMinOp = reduceOp{
	name:  "REDUCE_MIN",
	types: []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Int16},
	f32:   minInto[float32],
	i8:    minInto[int8],
	u8:    minInto[uint8],
	i16:   minInto[int16],
	i32:   minInto[int32],
	i64:   minInto[int64],
}

func minInto[T float32 | int8 | uint8 | int16 | int32 | int64](r *reduction, in, out []T, lowest, highest T) {
	fillValue(out, highest)
	// Whole runs per call, the comparison inline (not a call per element).
	reduceRuns(r, in, out, func(a T, row []T) T {
		for _, v := range row {
			if v < a {
				a = v
			}
		}
		return a
	}, func(o, row []T) {
		o = o[:len(row)]
		for j, v := range row {
			if v < o[j] {
				o[j] = v
			}
		}
	})
}
