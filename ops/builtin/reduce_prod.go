package builtin

import "github.com/tflrun/tflrun/ops"

// NewReduceProd returns a REDUCE_PROD kernel for one node (a Reduce), as
// TFLite's reduce.cc: float32 (multiplied in input order), int32 and int64
// (wrapping). Quantised REDUCE_PROD is not supported.
func NewReduceProd() ops.Kernel { return &Reduce{op: &reduceProdOp} }

var reduceProdOp = reduceOp{
	name:  "REDUCE_PROD",
	types: []ops.DataType{ops.Float32, ops.Int32, ops.Int64},
	f32:   prodInto[float32],
	i32:   prodInto[int32],
	i64:   prodInto[int64],
}

func init() {
	register(ops.OpReduceProd, NewReduceProd, [2]int{1, 2})
}

func prodInto[T float32 | int32 | int64](r *reduction, in, out []T, _, _ T) {
	fillValue(out, 1)
	reduceInto(r, in, out, func(a, v T) T { return a * v })
}
