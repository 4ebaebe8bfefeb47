package builtin

import "github.com/tflrun/tflrun/ops"

// NewStablehloMaximum returns a STABLEHLO_MAXIMUM kernel for one node: the larger of
// the two inputs' elements, as TFLite's stablehlo_elementwise.h (the
// family's rules are in stablehlo_elementwise_common.go). Version 1, as
// TFLite's register.cc.
func NewStablehloMaximum() ops.Kernel { return &stablehloBinary{op: stablehloMax} }

func init() {
	register(ops.OpStablehloMaximum, NewStablehloMaximum, [2]int{1, 1})
}
