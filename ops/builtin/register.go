package builtin

import "github.com/tflrun/tflrun/ops"

// operator is one entry of the package's table of kernels: a builtin
// operator code, the versions its kernel implements and the kernel's
// constructor.
type operator struct {
	op       ops.BuiltinOperator
	versions [][2]int
	newK     func() ops.Kernel
}

// operators is the package's table of kernels. Each operator's file adds
// its own entry from an init function (register), so adding an operator
// touches no file but its own.
var operators []operator

// register adds the kernel made by newK to the package's table for the
// inclusive version ranges given. Each operator's file calls it from init
// with the versions TFLite's BuiltinOpResolver registers
// (tflite/core/kernels/register.cc), minus those whose features (per
// TFLite's op_version.cc) the kernel lacks; the comment beside the call
// says which.
func register(op ops.BuiltinOperator, newK func() ops.Kernel, versions ...[2]int) {
	operators = append(operators, operator{op: op, versions: versions, newK: newK})
}

// RegisterBuiltins adds every kernel of this package to r for the operator
// versions it implements (each operator's file registers its own versions
// from its init function). Registering again replaces earlier
// registrations of the same versions.
func RegisterBuiltins(r *ops.Resolver) {
	for _, o := range operators {
		for _, v := range o.versions {
			r.AddBuiltin(o.op, v[0], v[1], o.newK)
		}
	}
}
