package builtin

import "github.com/tflrun/tflrun/ops"

// NewReduceAll returns a REDUCE_ALL kernel for one node (a Reduce): on bool
// tensors, true when every element is, as TFLite's reduce.cc (true for an empty
// reduction).
func NewReduceAll() ops.Kernel { return &Reduce{op: &reduceAllOp} }

var reduceAllOp = reduceOp{
	name:  "REDUCE_ALL",
	types: []ops.DataType{ops.Bool},
	b: func(r *reduction, in, out []bool) {
		fillValue(out, true)
		reduceInto(r, in, out, func(a, v bool) bool { return a && v })
	},
}

func init() {
	register(ops.OpReduceAll, NewReduceAll, [2]int{1, 1})
}
