package builtin

import (
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// NewArgMax returns an ARG_MAX kernel for one node (an ArgMinMax): the
// index of the first largest element along the axis.
func NewArgMax() ops.Kernel { return &ArgMinMax{max: true} }

func init() {
	register(ops.OpArgMax, NewArgMax, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsArgMaxOptions, decodeArgMaxOptions)
}

// decodeArgMaxOptions decodes TFLite's ArgMaxOptions table.
func decodeArgMaxOptions(t ops.OptionsTable) (any, error) {
	var o schema.ArgMaxOptions
	initTable(&o, t)
	return &ArgMinMaxOptions{OutputType: ops.DataType(o.OutputType())}, nil
}
