package builtin

import (
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// NewArgMin returns an ARG_MIN kernel for one node (an ArgMinMax): the
// index of the first smallest element along the axis.
func NewArgMin() ops.Kernel { return &ArgMinMax{} }

func init() {
	register(ops.OpArgMin, NewArgMin, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsArgMinOptions, decodeArgMinOptions)
}

// decodeArgMinOptions decodes TFLite's ArgMinOptions table.
func decodeArgMinOptions(t ops.OptionsTable) (any, error) {
	var o schema.ArgMinOptions
	initTable(&o, t)
	return &ArgMinMaxOptions{OutputType: ops.DataType(o.OutputType())}, nil
}
