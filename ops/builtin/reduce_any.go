package builtin

import "github.com/tflrun/tflrun/ops"

// NewReduceAny returns a REDUCE_ANY kernel for one node (a Reduce): on bool
// tensors, true when any element is, as TFLite's reduce.cc (false for an empty
// reduction).
func NewReduceAny() ops.Kernel { return &Reduce{op: &reduceAnyOp} }

var reduceAnyOp = reduceOp{
	name:  "REDUCE_ANY",
	types: []ops.DataType{ops.Bool},
	b: func(r *reduction, in, out []bool) {
		fillValue(out, false)
		reduceInto(r, in, out, func(a, v bool) bool { return a || v })
	},
}

func init() {
	register(ops.OpReduceAny, NewReduceAny, [2]int{1, 1})
}
