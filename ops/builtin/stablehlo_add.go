package builtin

import "github.com/tflrun/tflrun/ops"

// NewStablehloAdd returns a STABLEHLO_ADD kernel for one node: the sum of
// the two inputs' elements, as TFLite's stablehlo_elementwise.h (the
// family's rules are in stablehlo_elementwise_common.go). Version 1, as
// TFLite's register.cc.
func NewStablehloAdd() ops.Kernel { return &stablehloBinary{op: stablehloAdd} }

func init() {
	register(ops.OpStablehloAdd, NewStablehloAdd, [2]int{1, 1})
}
