package builtin

import "github.com/tflrun/tflrun/ops"

// NewComplexAbs returns a COMPLEX_ABS kernel for one node: the magnitude
// hypot(re, im) of every element of a complex64 (→ float32) or complex128
// (→ float64) tensor, as TFLite's complex_support.cc (std::abs). Version
// 1, as TFLite's register.cc.
func NewComplexAbs() ops.Kernel {
	return &complexPart{name: "COMPLEX_ABS", part: complexAbs, part32: complexAbs32, abs32: true}
}

func init() { register(ops.OpComplexAbs, NewComplexAbs, [2]int{1, 1}) }
