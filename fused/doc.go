// Package fused holds tflrun's fused recurrent kernels: the LSTM family
// (UNIDIRECTIONAL_SEQUENCE_LSTM today), and the place where the RNN, GRU
// and SVDF kernels will live.
//
// Every kernel follows TensorFlow Lite's builtin kernel of the same name
// (tensorflow/lite/kernels, now google-ai-edge/LiteRT tflite/kernels): the
// same gate order (input, forget, cell, output), the same float operation
// order where it is cheap to keep, and bit-exact integer arithmetic (TFLite's
// default double rounding, gemmlowp fixed-point activations). Where TFLite
// has a quirk that changes results (see each kernel's doc comment) it is
// reproduced on purpose; where TFLite would read or write outside a buffer
// or compute garbage, Prepare refuses the model with an error instead.
//
// RegisterBuiltins adds the package's kernels to an ops.Resolver.
package fused
