package builtin

import "github.com/tflrun/tflrun/ops"

// NewStablehloMultiply returns a STABLEHLO_MULTIPLY kernel for one node: the product of
// the two inputs' elements, as TFLite's stablehlo_elementwise.h (the
// family's rules are in stablehlo_elementwise_common.go). Version 1, as
// TFLite's register.cc.
func NewStablehloMultiply() ops.Kernel { return &stablehloBinary{op: stablehloMul} }

func init() {
	register(ops.OpStablehloMultiply, NewStablehloMultiply, [2]int{1, 1})
}
