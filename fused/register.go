package fused

import "github.com/tflrun/tflrun/ops"

// RegisterBuiltins adds the package's kernels to r:
// UNIDIRECTIONAL_SEQUENCE_LSTM versions 1–4 (the versions TFLite's builtin
// resolver registers; version 4 adds diagonal recurrent weights, which the
// float path implements and the integer path refuses at Prepare).
func RegisterBuiltins(r *ops.Resolver) {
	r.AddBuiltin(ops.OpUnidirectionalSequenceLSTM, 1, 4, NewUnidirectionalSequenceLSTM)
}
