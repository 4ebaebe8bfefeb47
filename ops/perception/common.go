package perception

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Helpers shared by this package's kernels: the raw C option structs
// MediaPipe's and LiteRT's kernels read from custom_options, and the
// tensor checks.

// TfLitePadding values as the C struct fields hold them
// (tflite/core/c/builtin_op_data.h).
const (
	padUnknown int32 = 0
	padSame    int32 = 1
	padValid   int32 = 2
)

// rawInt32s reads the first count little-endian int32 fields of a C
// option struct that upstream kernels reinterpret from custom_options
// (node->custom_initial_data) without checking its length. The options
// must hold at least those fields; longer options (later fields of the
// struct, which these kernels do not read) are accepted.
func rawInt32s(opts []byte, count int, what string) ([]int32, error) {
	if len(opts) < 4*count {
		return nil, fmt.Errorf("custom_options: %d bytes, need at least %d (%s: %d int32 fields)", len(opts), 4*count, what, count)
	}
	v := make([]int32, count)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(opts[4*i:]))
	}
	return v, nil
}

// poolParams is the part of TfLitePoolParams MediaPipe's pooling kernels
// and LiteRT's MaxUnpooling2D read: six int32 fields, 24 bytes (the
// struct's computed paddings that follow are ignored; MediaPipe's models
// store 32 bytes, LiteRT's 40).
type poolParams struct {
	padding          int32
	strideW, strideH int
	filterW, filterH int
	activation       ops.Activation
}

// poolParamsBytes is the length of the fields poolParams reads.
const poolParamsBytes = 24

// decodePoolParams reads a raw TfLitePoolParams; it checks only the
// length (each kernel checks the fields it uses).
func decodePoolParams(opts []byte) (poolParams, error) {
	v, err := rawInt32s(opts, 6, "TfLitePoolParams: padding, stride_width, stride_height, filter_width, filter_height, activation")
	if err != nil {
		return poolParams{}, err
	}
	return poolParams{
		padding: v[0],
		strideW: int(v[1]), strideH: int(v[2]),
		filterW: int(v[3]), filterH: int(v[4]),
		activation: ops.Activation(v[5]),
	}, nil
}

// maxWindow bounds strides and filter sizes (they multiply image sizes).
const maxWindow = math.MaxInt16

// checkPositive checks that the named option values are in [1, maxWindow].
func checkPositive(names string, vs ...int) error {
	for _, v := range vs {
		if v <= 0 || v > maxWindow {
			return fmt.Errorf("custom_options: %s %v, need each in [1, %d]", names, vs, maxWindow)
		}
	}
	return nil
}

// floatActivationRange is TFLite's CalculateActivationRange for float:
// the clamp of ActivationFunctionWithMinMax. MediaPipe's pooling reads
// the activation from its options; activations other than NONE, RELU,
// RELU_N1_TO_1 and RELU6 (which upstream treats as NONE) are refused.
func floatActivationRange(a ops.Activation) (lo, hi float32, err error) {
	switch a {
	case ops.ActNone:
		return -math.MaxFloat32, math.MaxFloat32, nil
	case ops.ActRelu:
		return 0, math.MaxFloat32, nil
	case ops.ActReluN1To1:
		return -1, 1, nil
	case ops.ActRelu6:
		return 0, 6, nil
	}
	return 0, 0, fmt.Errorf("custom_options: fused activation %d is not supported (need NONE, RELU, RELU_N1_TO_1 or RELU6)", int32(a))
}

// check4D checks that t is a rank-4 tensor of type typ with positive
// dimensions whose element count fits in memory sizes.
func check4D(t *ops.Tensor, typ ops.DataType, label string) error {
	if t.Type != typ {
		return fmt.Errorf("%s: type %s, need %s", label, t.Type, typ)
	}
	if len(t.Shape) != 4 {
		return fmt.Errorf("%s: shape %v, need rank 4 (NHWC)", label, t.Shape)
	}
	for _, d := range t.Shape {
		if d <= 0 {
			return fmt.Errorf("%s: shape %v, need positive dimensions", label, t.Shape)
		}
	}
	if _, err := ops.ShapeElements(t.Shape, t.Type.Size()); err != nil {
		return fmt.Errorf("%s: %v", label, err)
	}
	return nil
}

// outShape4 checks an output shape [b, h, w, c] (positive, fits) and
// returns it.
func outShape4(label string, b, h, w, c int, typ ops.DataType) ([]int, error) {
	s := []int{b, h, w, c}
	for _, d := range s {
		if d <= 0 {
			return nil, fmt.Errorf("%s: computed shape %v, need positive dimensions", label, s)
		}
	}
	if _, err := ops.ShapeElements(s, typ.Size()); err != nil {
		return nil, fmt.Errorf("%s: computed shape %v: %v", label, s, err)
	}
	return s, nil
}

// computePadding is TFLite's ComputePadding (kernels/padding.h) with
// dilation 1: the leading padding of a window of size filter and stride
// giving out positions over in, max(((out−1)·stride + filter − in)/2, 0)
// with C's truncating division.
func computePadding(stride, in, filter, out int) int {
	return max(((out-1)*stride+filter-in)/2, 0)
}

// errShortData is returned by Eval when a tensor's bytes are fewer than
// its shape needs (tensors not allocated).
var errShortData = errors.New("tensor data is shorter than its shape requires (tensors not allocated?)")

// checkData checks that every non-nil tensor has the bytes its shape
// needs.
func checkData(ts ...*ops.Tensor) error {
	for _, t := range ts {
		if t != nil && len(t.Data) < t.Bytes() {
			return errShortData
		}
	}
	return nil
}
