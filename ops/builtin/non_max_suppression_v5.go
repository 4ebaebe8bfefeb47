package builtin

import "github.com/tflrun/tflrun/ops"

// NON_MAX_SUPPRESSION_V5 (tf.image.non_max_suppression_with_scores, soft
// NMS): the NonMaxSuppression kernel, which also accepts the hard form's
// five inputs as TFLite's shared kernel does. Version 1, as TFLite's
// register.cc.
func init() { register(ops.OpNonMaxSuppressionV5, NewNonMaxSuppression, [2]int{1, 1}) }
