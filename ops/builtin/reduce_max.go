package builtin

import "github.com/tflrun/tflrun/ops"

// NewReduceMax returns a REDUCE_MAX kernel for one node (a Reduce): the largest
// element, as TFLite's reduce.cc, for float32, int32, int64, and int8,
// uint8, int16 compared raw (the input and output quantisation must be
// equal). NaN inputs give unspecified results as in TFLite.
func NewReduceMax() ops.Kernel { return &Reduce{op: &reduceMaxOp} }

func init() {
	register(ops.OpReduceMax, NewReduceMax, [2]int{1, 3})
}

var reduceMaxOp = reduceOp{
	name:  "REDUCE_MAX",
	types: []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Int16},
	f32:   maxInto[float32],
	i8:    maxInto[int8],
	u8:    maxInto[uint8],
	i16:   maxInto[int16],
	i32:   maxInto[int32],
	i64:   maxInto[int64],
}

func maxInto[T float32 | int8 | uint8 | int16 | int32 | int64](r *reduction, in, out []T, lowest, highest T) {
	fillValue(out, lowest)
	// Whole runs per call, the comparison inline (not a call per element).
	reduceRuns(r, in, out, func(a T, row []T) T {
		for _, v := range row {
			if v > a {
				a = v
			}
		}
		return a
	}, func(o, row []T) {
		o = o[:len(row)]
		for j, v := range row {
			if v > o[j] {
				o[j] = v
			}
		}
	})
}
