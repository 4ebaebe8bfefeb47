package interpreter

import (
	"sync"

	"github.com/tflrun/tflrun/fused"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/builtin"
	"github.com/tflrun/tflrun/ops/flex"
	"github.com/tflrun/tflrun/ops/perception"
	"github.com/tflrun/tflrun/ops/signal"
)

// DefaultResolver returns a new resolver holding every kernel tflrun
// ships: the builtin operators of package ops/builtin and the fused
// recurrent operators of package fused, and the Flex (TensorFlow)
// operators of package ops/flex (TensorList), and the vision custom
// operators of package ops/perception (MediaPipe, LiteRT perception), and
// the audio front-end operators of TensorFlow Lite Micro's Signal library
// (package ops/signal: SignalRfft, SignalFilterBank, …). Add custom
// kernels to it with AddCustom before passing it in Options.
func DefaultResolver() *ops.Resolver {
	r := ops.NewResolver()
	builtin.RegisterBuiltins(r)
	fused.RegisterBuiltins(r)
	flex.RegisterCustom(r)
	perception.RegisterCustom(r)
	signal.RegisterCustom(r)
	return r
}

// optionsDecoders is the resolver whose options decoders Load uses: every
// builtin options table the kernels of DefaultResolver read is decoded at
// load time, by the package that holds the kernel (TFLite's parser, too,
// decodes builtin options when it builds the graph). Tables no kernel
// reads stay undecoded (OperatorInfo.Options nil).
var optionsDecoders = sync.OnceValue(DefaultResolver)
