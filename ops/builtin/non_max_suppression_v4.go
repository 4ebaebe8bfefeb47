package builtin

import "github.com/tflrun/tflrun/ops"

// NON_MAX_SUPPRESSION_V4 (tf.image.non_max_suppression_padded): the
// NonMaxSuppression kernel, which also accepts the soft form's six inputs
// as TFLite's shared kernel does. Version 1, as TFLite's register.cc.
func init() { register(ops.OpNonMaxSuppressionV4, NewNonMaxSuppression, [2]int{1, 1}) }
