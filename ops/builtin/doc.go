// Package builtin holds tflrun's builtin non-recurrent kernels: one file per
// TensorFlow Lite operator (conv_2d.go, abs.go, reduce_max.go, …), named
// after the operator as in TensorFlow Lite Micro's kernels directory, with
// the helpers a family of operators shares in a file named for the family
// (conv_common.go, pool_common.go, elementwise_common.go, …).
//
// The semantics of every kernel follow TensorFlow Lite's builtin kernels
// (tensorflow/lite/kernels, now google-ai-edge/LiteRT tflite/kernels): the
// same rounding, saturation and quantisation arithmetic, so integer models
// give TFLite's outputs bit for bit. Each kernel's doc comment names the
// type paths it implements and those it refuses at Prepare.
//
// RegisterBuiltins adds the package's kernels to an ops.Resolver; the
// interpreter's DefaultResolver does so for every interpreter.
package builtin
