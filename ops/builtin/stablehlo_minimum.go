package builtin

import "github.com/tflrun/tflrun/ops"

// NewStablehloMinimum returns a STABLEHLO_MINIMUM kernel for one node: the smaller of
// the two inputs' elements, as TFLite's stablehlo_elementwise.h (the
// family's rules are in stablehlo_elementwise_common.go). Version 1, as
// TFLite's register.cc.
func NewStablehloMinimum() ops.Kernel { return &stablehloBinary{op: stablehloMin} }

func init() {
	register(ops.OpStablehloMinimum, NewStablehloMinimum, [2]int{1, 1})
}
