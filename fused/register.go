package fused

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// operator is one entry of the package's table of kernels: a builtin
// operator code with the versions its kernel implements, or a custom
// operator's name, and the kernel's constructor.
type operator struct {
	op       ops.BuiltinOperator
	custom   string
	versions [][2]int
	newK     func() ops.Kernel
}

// operators is the package's table of kernels. Each operator's file adds
// its own entry from an init function (register, registerCustom).
var operators []operator

// register adds the builtin kernel made by newK to the package's table for
// the inclusive version ranges given: the versions TFLite's builtin
// resolver registers, minus those whose features the kernel lacks (the
// comment beside each call says which).
func register(op ops.BuiltinOperator, newK func() ops.Kernel, versions ...[2]int) {
	operators = append(operators, operator{op: op, versions: versions, newK: newK})
}

// registerCustom adds the kernel of a custom operator, looked up by name.
func registerCustom(name string, newK func() ops.Kernel) {
	operators = append(operators, operator{op: ops.BuiltinCustom, custom: name, newK: newK})
}

// optionsDecoders holds the decoder of every builtin options table this
// package's kernels read, by table type; each operator's file adds its own
// from init (registerOptions).
var optionsDecoders = map[schema.BuiltinOptions]ops.OptionsDecoder{}

// registerOptions adds the decoder of the options table typ to the
// package's table.
func registerOptions(typ schema.BuiltinOptions, dec ops.OptionsDecoder) {
	optionsDecoders[typ] = dec
}

// flatTable is what the generated accessors of every schema table have.
type flatTable interface {
	Init(buf []byte, i flatbuffers.UOffsetT)
}

// initTable points the generated accessors o at the options table t.
func initTable(o flatTable, t ops.OptionsTable) {
	o.Init(t.Bytes, flatbuffers.UOffsetT(t.Pos))
}

// RegisterBuiltins adds the package's kernels to r, each for the versions
// TFLite's builtin resolver registers (each operator's file registers its
// own from its init function): UNIDIRECTIONAL_SEQUENCE_LSTM 1–4, LSTM 1–4
// and BIDIRECTIONAL_SEQUENCE_LSTM 1–3; RNN, UNIDIRECTIONAL_SEQUENCE_RNN and
// BIDIRECTIONAL_SEQUENCE_RNN 1–3; SVDF 1–4; and the custom operator
// UNIDIRECTIONAL_SEQUENCE_GRU (GRUCustomName), looked up by name; and the
// decoders of the builtin options tables those kernels read.
func RegisterBuiltins(r *ops.Resolver) {
	for _, o := range operators {
		if o.op == ops.BuiltinCustom {
			r.AddCustom(o.custom, o.newK)
			continue
		}
		for _, v := range o.versions {
			r.AddBuiltin(o.op, v[0], v[1], o.newK)
		}
	}
	for typ, dec := range optionsDecoders {
		r.AddOptions(uint8(typ), dec)
	}
}
