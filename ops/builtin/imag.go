package builtin

import "github.com/tflrun/tflrun/ops"

// NewImag returns an IMAG kernel for one node: the imaginary part of every
// element of a complex64 (→ float32) or complex128 (→ float64) tensor, as
// TFLite's complex_support.cc. Version 1, as TFLite's register.cc.
func NewImag() ops.Kernel {
	return &complexPart{name: "IMAG", part: func(_, im float64) float64 { return im }}
}

func init() { register(ops.OpImag, NewImag, [2]int{1, 1}) }
