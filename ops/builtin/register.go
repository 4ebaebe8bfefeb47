package builtin

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// operator is one entry of the package's table of kernels: a builtin
// operator code, the versions its kernel implements and the kernel's
// constructor.
type operator struct {
	op       ops.BuiltinOperator
	custom   string // a custom operator's name (op is then BuiltinCustom)
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

// registerCustom adds the kernel of a custom operator that TFLite's
// BuiltinOpResolver ships (TFLite_Detection_PostProcess, AudioSpectrogram,
// Mfcc), looked up by its custom name; custom operators have no versions.
func registerCustom(name string, newK func() ops.Kernel) {
	operators = append(operators, operator{op: ops.BuiltinCustom, custom: name, newK: newK})
}

// optionsDecoders holds the decoder of every builtin options table this
// package's kernels read, by table type. Each operator's file adds the
// decoder of its own table from init (registerOptions); a table several
// operators share (ReducerOptions, Pool2DOptions) is registered by the
// family's common file.
var optionsDecoders = map[schema.BuiltinOptions]ops.OptionsDecoder{}

// registerOptions adds the decoder of the options table typ to the
// package's table.
func registerOptions(typ schema.BuiltinOptions, dec ops.OptionsDecoder) {
	optionsDecoders[typ] = dec
}

// optionsDecoders2 is optionsDecoders for the tables of TFLite's second
// options union (BuiltinOptions2: the StableHLO operators' options).
var optionsDecoders2 = map[schema.BuiltinOptions2]ops.OptionsDecoder{}

// registerOptions2 adds the decoder of the BuiltinOptions2 table typ to
// the package's table.
func registerOptions2(typ schema.BuiltinOptions2, dec ops.OptionsDecoder) {
	optionsDecoders2[typ] = dec
}

// flatTable is what the generated accessors of every schema table have.
type flatTable interface {
	Init(buf []byte, i flatbuffers.UOffsetT)
}

// initTable points the generated accessors o at the options table t.
func initTable(o flatTable, t ops.OptionsTable) {
	o.Init(t.Bytes, flatbuffers.UOffsetT(t.Pos))
}

// intList copies a flatbuffer vector of n int32 values.
func intList(n int, get func(int) int32) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = int(get(i))
	}
	return l
}

// RegisterBuiltins adds every kernel of this package to r for the operator
// versions it implements (each operator's file registers its own versions
// from its init function), the custom operators TFLite's builtin resolver
// ships (by name), and the decoders of the builtin options tables
// those kernels read. Registering again replaces earlier registrations of
// the same versions.
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
	for typ, dec := range optionsDecoders2 {
		r.AddOptions2(uint8(typ), dec)
	}
}
