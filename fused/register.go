package fused

import "github.com/tflrun/tflrun/ops"

// RegisterBuiltins adds the package's kernels to r, each for the versions
// TFLite's builtin resolver registers: UNIDIRECTIONAL_SEQUENCE_LSTM 1–4,
// LSTM 1–4 and BIDIRECTIONAL_SEQUENCE_LSTM 1–3 (UNIDIRECTIONAL_SEQUENCE_LSTM
// version 4 adds diagonal recurrent weights, which the float and hybrid
// paths implement and the integer path refuses at Prepare; version 5, int16
// activations, is not registered); RNN, UNIDIRECTIONAL_SEQUENCE_RNN and
// BIDIRECTIONAL_SEQUENCE_RNN 1–3; SVDF 1–4; and the custom operator
// UNIDIRECTIONAL_SEQUENCE_GRU (GRUCustomName), looked up by name.
func RegisterBuiltins(r *ops.Resolver) {
	r.AddBuiltin(ops.OpUnidirectionalSequenceLSTM, 1, 4, NewUnidirectionalSequenceLSTM)
	// LSTM (kernel_type FULL and BASIC): versions 1–4, as TFLite registers.
	r.AddBuiltin(ops.OpLSTM, 1, 4, NewLSTM)
	// BIDIRECTIONAL_SEQUENCE_LSTM: versions 1–3, as TFLite registers.
	r.AddBuiltin(ops.OpBidirectionalSequenceLSTM, 1, 3, NewBidirectionalSequenceLSTM)
	// The RNN family and SVDF: the versions TFLite's builtin resolver
	// registers (RNN family 1–3: float, hybrid, asymmetric hybrid; SVDF
	// 1–4: float, hybrid, integer, asymmetric hybrid). The GRU is TFLite's
	// experimental custom operator, looked up by name.
	r.AddBuiltin(ops.OpRNN, 1, 3, NewRNN)
	r.AddBuiltin(ops.OpUnidirectionalSequenceRNN, 1, 3, NewUnidirectionalSequenceRNN)
	r.AddBuiltin(ops.OpBidirectionalSequenceRNN, 1, 3, NewBidirectionalSequenceRNN)
	r.AddBuiltin(ops.OpSVDF, 1, 4, NewSVDF)
	r.AddCustom(GRUCustomName, NewUnidirectionalSequenceGRU)
}
