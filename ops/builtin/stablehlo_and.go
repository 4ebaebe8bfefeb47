package builtin

import "github.com/tflrun/tflrun/ops"

// NewStablehloAnd returns a STABLEHLO_AND kernel for one node: the bitwise (bool: logical) AND of
// the two inputs' elements, as TFLite's stablehlo_elementwise.h (the
// family's rules are in stablehlo_elementwise_common.go). Version 1, as
// TFLite's register.cc.
func NewStablehloAnd() ops.Kernel { return &stablehloBinary{op: stablehloAnd} }

func init() {
	register(ops.OpStablehloAnd, NewStablehloAnd, [2]int{1, 1})
}
