package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func resizeRun(t *testing.T, k ops.Kernel, opts *ResizeOptions, in *ops.Tensor, h, w int32) *ops.Tensor {
	t.Helper()
	return runOut(t, k, opts, []*ops.Tensor{in, c32(h, w)}, outTensor(in.Type))
}
