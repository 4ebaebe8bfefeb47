package builtin

import "github.com/tflrun/tflrun/ops"

// NewLogicalNot returns a LOGICAL_NOT kernel for one node (a Unary): bool
// in, bool out, as TFLite's elementwise.cc.
func NewLogicalNot() ops.Kernel { return &Unary{op: &logicalNotOp} }

var logicalNotOp = unaryOp{
	name:  "LOGICAL_NOT",
	types: []ops.DataType{ops.Bool},
	eval: func(k *Unary, in, out *ops.Tensor, cnt int) error {
		if k.typ != ops.Bool {
			return errUnaryType
		}
		o := out.Bools()[:cnt]
		for i, v := range in.Bools()[:cnt] {
			o[i] = !v
		}
		return nil
	},
}

func init() {
	register(ops.OpLogicalNot, NewLogicalNot, [2]int{1, 1})
}
