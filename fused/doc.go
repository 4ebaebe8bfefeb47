// Package fused holds tflrun's fused recurrent kernels: the LSTM family
// (UNIDIRECTIONAL_SEQUENCE_LSTM, LSTM with kernel_type FULL and BASIC,
// BIDIRECTIONAL_SEQUENCE_LSTM; float32, hybrid and full integer), the RNN
// family, SVDF and the custom UNIDIRECTIONAL_SEQUENCE_GRU.
//
// Every kernel follows TensorFlow Lite's builtin kernel of the same name
// (tensorflow/lite/kernels, now google-ai-edge/LiteRT tflite/kernels): the
// same gate order (input, forget, cell, output), the same float operation
// order where it is cheap to keep, and bit-exact integer arithmetic (TFLite's
// default double rounding, gemmlowp fixed-point activations). Where TFLite
// has a quirk that changes results (see each kernel's doc comment) it is
// reproduced on purpose; where TFLite would read or write outside a buffer
// or compute garbage, the kernel either computes the correct result (and
// says so in its doc comment, with a test against a float64 model) or
// Prepare refuses the model with an error.
//
// The LSTM kernels share one prepared direction (lstm_cell.go): the gate
// weights are re-laid at Prepare into one panel per operand, so each step
// runs one matrix×vector product per operand instead of one per gate.
//
// RegisterBuiltins adds the package's kernels to an ops.Resolver.
package fused
