package builtin

import "github.com/tflrun/tflrun/ops"

// NewReal returns a REAL kernel for one node: the real part of every
// element of a complex64 (→ float32) or complex128 (→ float64) tensor, as
// TFLite's complex_support.cc. Version 1, as TFLite's register.cc.
func NewReal() ops.Kernel {
	return &complexPart{name: "REAL", part: func(re, _ float64) float64 { return re }}
}

func init() { register(ops.OpReal, NewReal, [2]int{1, 1}) }
