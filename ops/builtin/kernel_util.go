package builtin

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// This file holds the small checks and numeric helpers the builtin kernels
// of this package share: per-tensor quantisation checks, float→int
// conversion with the x86 semantics TFLite's reference machine has, and
// shape helpers. Nothing here allocates on the Eval paths.

// ioLabel names a node input or output for error messages: "input 1
// (weights)" or "output 0".
func ioLabel(kind string, i int, role string) string {
	if role == "" {
		return fmt.Sprintf("%s %d", kind, i)
	}
	return fmt.Sprintf("%s %d (%s)", kind, i, role)
}

// requireType returns an error naming the tensor when its type is not one
// of want.
func requireType(t *ops.Tensor, label string, want ...ops.DataType) error {
	for _, w := range want {
		if t.Type == w {
			return nil
		}
	}
	if len(want) == 1 {
		return fmt.Errorf("%s: type %s, need %s", label, t.Type, want[0])
	}
	return fmt.Errorf("%s: type %s not supported (supported: %v)", label, t.Type, want)
}

// perTensorQuant checks that t carries usable affine quantisation (at
// least one scale, finite and > 0) and returns its first scale and zero
// point, as TFLite's tensor->params does. The zero point must lie in the
// range of t's type when t is an 8- or 16-bit integer tensor.
func perTensorQuant(t *ops.Tensor, label string) (scale float32, zp int32, err error) {
	if t.Quant == nil || len(t.Quant.Scale) == 0 {
		return 0, 0, fmt.Errorf("%s: %s tensor has no quantization parameters", label, t.Type)
	}
	s := t.Quant.Scale[0]
	if !(s > 0) || math.IsInf(float64(s), 0) {
		return 0, 0, fmt.Errorf("%s: quantization scale %g must be finite and > 0", label, s)
	}
	var z int64
	if len(t.Quant.ZeroPoint) > 0 {
		z = t.Quant.ZeroPoint[0]
	}
	if lo, hi, ok := ops.TypeRange(t.Type); ok && t.Type != ops.Int32 {
		if z < int64(lo) || z > int64(hi) {
			return 0, 0, fmt.Errorf("%s: zero point %d outside the %s range [%d, %d]", label, z, t.Type, lo, hi)
		}
	} else if z < math.MinInt32 || z > math.MaxInt32 {
		return 0, 0, fmt.Errorf("%s: zero point %d overflows int32", label, z)
	}
	return s, int32(z), nil
}

// channelScales checks a per-channel quantisation of t along dimension 0
// with n channels (every scale finite and > 0) and returns the scales.
func channelScales(t *ops.Tensor, label string, n int) ([]float32, error) {
	q := t.Quant
	if q == nil || len(q.Scale) == 0 {
		return nil, fmt.Errorf("%s: %s tensor has no quantization parameters", label, t.Type)
	}
	if len(q.Scale) != n {
		return nil, fmt.Errorf("%s: %d per-channel scales, need %d", label, len(q.Scale), n)
	}
	if q.QuantizedDimension != 0 {
		return nil, fmt.Errorf("%s: per-channel quantization along dimension %d, need 0", label, q.QuantizedDimension)
	}
	for i, s := range q.Scale {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return nil, fmt.Errorf("%s: channel %d scale %g must be finite and > 0", label, i, s)
		}
	}
	return q.Scale, nil
}

// isPerChannel reports whether t's quantisation has more than one scale,
// TFLite's test for per-channel quantisation.
func isPerChannel(t *ops.Tensor) bool { return t.Quant != nil && len(t.Quant.Scale) > 1 }

// isQuantized reports whether t has quantisation parameters at all
// (TFLite: quantization.type != kTfLiteNoQuantization).
func isQuantized(t *ops.Tensor) bool { return t.Quant != nil && len(t.Quant.Scale) > 0 }

// f32ToInt32 converts like a C static_cast<int32_t>(float) compiled for
// x86 (cvttss2si): truncation toward zero, and the "integer indefinite"
// value math.MinInt32 for NaN and out-of-range inputs. TFLite's reference
// machine is x86, so its kernels produce exactly this on overflow; Go's own
// conversion is implementation-defined there and differs on arm64.
func f32ToInt32(f float32) int32 {
	if f != f || f >= 2147483648 || f < -2147483648 {
		return math.MinInt32
	}
	return int32(f)
}

// f64ToInt32 is f32ToInt32 for a double (cvttsd2si).
func f64ToInt32(f float64) int32 {
	if f != f || f >= 2147483648 || f <= -2147483649 {
		return math.MinInt32
	}
	return int32(f)
}

// roundf is C's roundf: round half away from zero in float32.
func roundf(x float32) float32 { return float32(math.Round(float64(x))) }

// expf returns e^x rounded to float32. glibc's expf is correctly rounded in
// practice, and so is rounding the float64 result (barring double-rounding
// ties, which do not occur for exp at float32 precision in practice).
func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

// tanhf returns tanh(x) rounded to float32 (see expf about accuracy).
func tanhf(x float32) float32 { return float32(math.Tanh(float64(x))) }

// copyShape returns a fresh copy of dims, so kernels never alias another
// tensor's shape slice.
func copyShape(dims []int) []int {
	out := make([]int, len(dims))
	copy(out, dims)
	return out
}

// setShape stores dims as t's shape, reusing t.Shape's array when it has
// room (Eval-time resizes must not allocate).
func setShape(t *ops.Tensor, dims []int) {
	if cap(t.Shape) >= len(dims) {
		t.Shape = t.Shape[:len(dims)]
	} else {
		t.Shape = make([]int, len(dims))
	}
	copy(t.Shape, dims)
}

// checkData verifies before Eval touches them that the tensors' data
// buffers hold at least their shapes' bytes, so a mis-sized buffer is an
// error and not an out-of-range panic.
func checkData(ts ...*ops.Tensor) error {
	for _, t := range ts {
		if t == nil {
			continue
		}
		if len(t.Data) < t.Bytes() {
			return errShortData
		}
	}
	return nil
}

// errShortData is returned by Eval when a tensor buffer is shorter than its
// shape says; it is preallocated so the check costs nothing.
var errShortData = errors.New("tensor data is shorter than its shape requires (tensors not allocated?)")

// numElementsChecked is ShapeElements for a tensor, naming it on error.
func numElementsChecked(t *ops.Tensor, label string) (int, error) {
	n, err := ops.ShapeElements(t.Shape, t.Type.Size())
	if err != nil {
		return 0, fmt.Errorf("%s: %v", label, err)
	}
	return n, nil
}

// unaryCopyIO is the common Prepare of the kernels that only rearrange
// their single data input: one input of a fixed-size type (extra inputs,
// such as an axis, are allowed), one output of the same type.
func unaryCopyIO(n *ops.Node) (in, out *ops.Tensor, err error) {
	if len(n.Outputs) != 1 {
		return nil, nil, fmt.Errorf("has %d outputs, needs 1", len(n.Outputs))
	}
	if in, err = n.RequireInput(0); err != nil {
		return nil, nil, err
	}
	if out = n.Output(0); out == nil {
		return nil, nil, errors.New("output 0 is missing")
	}
	if in.Type.Size() == 0 {
		return nil, nil, fmt.Errorf("input 0: type %s is not supported", in.Type)
	}
	if out.Type != in.Type {
		return nil, nil, fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// copyEval copies n bytes from input 0 to output 0 (nothing when the
// planner gave both one buffer, see interpreter.inPlaceAliases).
func copyEval(n *ops.Node, bytes int) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil || len(in.Data) < bytes || len(out.Data) < bytes {
		return errShortData
	}
	if bytes > 0 && unsafe.SliceData(out.Data) == unsafe.SliceData(in.Data) {
		return nil // the planner gave both the same buffer (in place)
	}
	copy(out.Data[:bytes], in.Data[:bytes])
	return nil
}

// halfToFloat32 converts an IEEE 754 binary16 value exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// loadInt reads element i of an int8, uint8, int16 or int32 tensor, or of
// a packed int4, uint4 or int2 one.
func loadInt(t *ops.Tensor, i int) int32 {
	switch t.Type {
	case ops.Int4, ops.Uint4, ops.Int2:
		return loadPacked(t.Type, t.Data, i)
	case ops.Int8:
		return int32(int8(t.Data[i]))
	case ops.Uint8:
		return int32(t.Data[i])
	case ops.Int16:
		return int32(int16(uint16(t.Data[2*i]) | uint16(t.Data[2*i+1])<<8))
	}
	return int32(uint32(t.Data[4*i]) | uint32(t.Data[4*i+1])<<8 | uint32(t.Data[4*i+2])<<16 | uint32(t.Data[4*i+3])<<24)
}

// storeInt writes v (already in range) as element i of an int8, uint8,
// int16 or int32 tensor, or of a packed int4, uint4 or int2 one.
func storeInt(t *ops.Tensor, i int, v int32) {
	switch t.Type {
	case ops.Int4, ops.Uint4, ops.Int2:
		storePacked(t.Type, t.Data, i, v)
	case ops.Int8, ops.Uint8:
		t.Data[i] = byte(v)
	case ops.Int16:
		t.Data[2*i], t.Data[2*i+1] = byte(v), byte(v>>8)
	default:
		t.Data[4*i], t.Data[4*i+1], t.Data[4*i+2], t.Data[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
}

// sameQuant checks that a quantised tensor t carries out's scale and zero
// point, as the copying kernels (PACK, UNPACK, SPLIT, …) require.
func sameQuant(t, out *ops.Tensor, label string) error {
	if !isQuantized(t) && !isQuantized(out) {
		return nil
	}
	if t.Scale() != out.Scale() || t.ZeroPoint() != out.ZeroPoint() {
		return fmt.Errorf("%s: quantization (scale %g, zero point %d) differs from the output's (%g, %d); values are copied, not rescaled", label, t.Scale(), t.ZeroPoint(), out.Scale(), out.ZeroPoint())
	}
	return nil
}
