package interpreter

import (
	"github.com/tflrun/tflrun/fused"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
)

// DefaultResolver returns a new resolver holding every kernel tflrun
// ships: the builtin operators of package ops/builtin and the fused
// recurrent operators of package fused. Add custom kernels to it with AddCustom
// before passing it in Options.
func DefaultResolver() *ops.Resolver {
	r := ops.NewResolver()
	builtin.RegisterBuiltins(r)
	fused.RegisterBuiltins(r)
	return r
}
