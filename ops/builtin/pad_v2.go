package builtin

import "github.com/tflrun/tflrun/ops"

// PADV2 is PAD with the padding value given by input 2; the Pad kernel
// (pad.go) serves both, as TFLite's pad.cc does.
func init() {
	register(ops.OpPadV2, NewPad, [2]int{1, 6})
}
