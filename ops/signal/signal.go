// Package signal holds tflrun's kernels for the custom operators of
// TensorFlow Lite Micro's Signal library (tflite-micro signal/micro/kernels,
// arithmetic in signal/src): the audio front ends TFLite Micro's keyword
// spotting examples ship (micro_speech's audio_preprocessor_int8.tflite and
// audio_preprocessor_float.tflite) are built from them. Their custom codes
// are SignalWindow, SignalFftAutoScale, SignalRfft, SignalIrfft,
// SignalEnergy, SignalFilterBank, SignalFilterBankSquareRoot,
// SignalFilterBankSpectralSubtraction, SignalFilterBankLog, SignalPCAN,
// SignalFramer, SignalStacker, SignalOverlapAdd and SignalDelay, every
// operator TFLite Micro's signal/micro/kernels registers (Names lists
// them). Stock TensorFlow Lite has no kernels for them (it refuses such a
// model); tflrun's default resolver has.
//
// The integer arithmetic is TFLite Micro's bit for bit: wrap-around where
// its C++ wraps (16-bit stores, 32-bit sums), the same rounding shifts, the
// same lookup tables; the fixed-point FFTs are kissfft v130's (the version
// TFLite Micro builds, its kiss_fftr and radix-2/4 butterflies with their
// per-stage scaling). Each operator's file names the sources it follows.
//
// Options are the FlexBuffer map TensorFlow writes from the op's
// attributes; TFLite Micro's Init reads its values by position (the keys
// in sorted order). tflrun reads the same positions and also checks each
// key's name and type, and validates what TFLite Micro trusts (sizes,
// index ranges, shift amounts), so that a hostile model gets an error, not
// a read out of bounds. Errors name the input, output or option; the
// interpreter adds the operator.
//
// SignalFilterBankSpectralSubtraction, SignalDelay, SignalFramer,
// SignalStacker and SignalOverlapAdd keep state across Invoke (a noise
// estimate, delay lines, frame buffers) in the kernel, as TFLite Micro
// does; it is cleared at AllocateTensors (Prepare) and by the
// interpreter's ResetVariableTensors (the ops.StatefulKernel hook, TFLite
// Micro's Reset).
//
// RegisterCustom adds the kernels to a resolver;
// interpreter.DefaultResolver does so.
package signal

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// kernels holds the package's kernels by custom code; each operator's
// file adds its own entry from init.
var kernels = ops.CustomKernels{}

func register(name string, newK func() ops.Kernel) { kernels.Register(name, newK) }

// RegisterCustom adds every kernel of this package to r under its custom
// code ("SignalRfft", …).
func RegisterCustom(r *ops.Resolver) { kernels.AddTo(r) }

// Names lists the custom codes this package has kernels for, sorted.
func Names() []string { return kernels.Names() }

// optKind is the FlexBuffer type an option must have.
type optKind uint8

const (
	optInt  optKind = iota // an int or uint that fits int32 (ElementAsInt32)
	optBool                // a bool, or an int 0/1 (ElementAsBool)
)

// option names one value TFLite Micro's Init reads: the key at its
// position in the sorted map.
type option struct {
	key  string
	kind optKind
}

// readOptions decodes n's custom_options, a FlexBuffer map, and returns
// the values of want in order. want[i] is the key TFLite Micro reads at
// position i (FlexbufferWrapper::ElementAsInt32(i) on the map's values):
// the map must hold that key there, of the right type. The map may hold
// further keys after them (TensorFlow's "T", …) only where TFLite Micro
// does not read.
func readOptions(n *ops.Node, want ...option) ([]int64, error) {
	if len(n.CustomOptions) == 0 {
		return nil, fmt.Errorf("custom_options are missing (%s reads its parameters from a FlexBuffer map)", n.OpName)
	}
	m, err := flexbuffers.RootMap(n.CustomOptions)
	if err != nil {
		return nil, fmt.Errorf("custom_options: %v", err)
	}
	if m.Len() < len(want) {
		return nil, fmt.Errorf("custom_options: the map has %d entries, %s reads %d", m.Len(), n.OpName, len(want))
	}
	vals := make([]int64, len(want))
	for i, w := range want {
		k, err := m.Key(i)
		if err != nil {
			return nil, fmt.Errorf("custom_options: key %d: %v", i, err)
		}
		if k != w.key {
			return nil, fmt.Errorf("custom_options: entry %d is %q, %s reads %q there", i, k, n.OpName, w.key)
		}
		v, err := m.Value(i)
		if err != nil {
			return nil, fmt.Errorf("custom_options: %q: %v", w.key, err)
		}
		switch t := v.Type(); {
		case w.kind == optBool && t == flexbuffers.TypeBool:
			b, err := v.AsBool()
			if err != nil {
				return nil, fmt.Errorf("custom_options: %q: %v", w.key, err)
			}
			if b {
				vals[i] = 1
			}
			continue
		case t == flexbuffers.TypeInt || t == flexbuffers.TypeUint:
		default:
			want := "an int"
			if w.kind == optBool {
				want = "a bool"
			}
			return nil, fmt.Errorf("custom_options: %q is a FlexBuffer %s, need %s", w.key, t, want)
		}
		x, err := v.AsInt()
		if v.Type() == flexbuffers.TypeUint {
			var u uint64
			if u, err = v.AsUint(); err == nil {
				if u > math.MaxInt32 {
					return nil, fmt.Errorf("custom_options: %q = %d does not fit int32", w.key, u)
				}
				x = int64(u)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("custom_options: %q: %v", w.key, err)
		}
		if w.kind == optBool {
			if x != 0 && x != 1 {
				return nil, fmt.Errorf("custom_options: %q = %d, need a bool", w.key, x)
			}
		} else if x < math.MinInt32 || x > math.MaxInt32 {
			return nil, fmt.Errorf("custom_options: %q = %d does not fit int32", w.key, x)
		}
		vals[i] = x
	}
	return vals, nil
}

// checkRange returns an error naming option key when v is outside
// [lo, hi].
func checkRange(key string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("options: %s = %d, need %d to %d", key, v, lo, hi)
	}
	return nil
}

// tensorCheck verifies that t (labelled label) exists, has type typ and,
// when rank ≥ 0, that rank; it returns its element count.
func tensorCheck(t *ops.Tensor, label string, typ ops.DataType, rank int) (int, error) {
	if t == nil {
		return 0, fmt.Errorf("%s is missing", label)
	}
	if t.Type != typ {
		return 0, fmt.Errorf("%s: type %s, need %s", label, t.Type, typ)
	}
	if rank >= 0 && len(t.Shape) != rank {
		return 0, fmt.Errorf("%s: shape %v, need rank %d", label, t.Shape, rank)
	}
	c, err := ops.ShapeElements(t.Shape, t.Type.Size())
	if err != nil {
		return 0, fmt.Errorf("%s: %v", label, err)
	}
	return c, nil
}

// input and output fetch node tensors by index with a label for errors.
func input(n *ops.Node, i int, role string, typ ops.DataType, rank int) (*ops.Tensor, int, error) {
	t := n.Input(i)
	c, err := tensorCheck(t, fmt.Sprintf("input %d (%s)", i, role), typ, rank)
	return t, c, err
}

func output(n *ops.Node, i int, role string, typ ops.DataType) (*ops.Tensor, error) {
	t := n.Output(i)
	if t == nil {
		return nil, fmt.Errorf("output %d (%s) is missing", i, role)
	}
	if t.Type != typ {
		return nil, fmt.Errorf("output %d (%s): type %s, need %s", i, role, t.Type, typ)
	}
	return t, nil
}

// constInt16s returns a constant int16 input's values (the filter bank's
// tables): Prepare reads them to check every index they hold.
func constInt16s(t *ops.Tensor, label string) ([]int16, error) {
	if !t.IsConstant() {
		return nil, fmt.Errorf("%s: must be a constant tensor (its values index the other inputs)", label)
	}
	return ops.View[int16](t.Data)[:t.NumElements()], nil
}

// errShort is Eval's error when a tensor's data is shorter than its shape
// says (not allocated); preallocated so the check costs nothing.
var errShort = errors.New("tensor data is shorter than its shape requires (tensors not allocated?)")

// hasData reports whether every tensor holds its bytes.
func hasData(ts ...*ops.Tensor) bool {
	for _, t := range ts {
		if len(t.Data) < t.Bytes() {
			return false
		}
	}
	return true
}

// msb32 is TFLite Micro's MostSignificantBit32 as built with GCC or Clang
// (signal/src/msb_32.cc): the 1-based index of the highest set bit, and 32
// for 0 (32 - __builtin_clz path; x86 and Arm builds take it).
func msb32(x uint32) uint32 {
	if x == 0 {
		return 32
	}
	return uint32(32 - bits.LeadingZeros32(x))
}

// msb64 is MostSignificantBit64 likewise (64 for 0).
func msb64(x uint64) uint32 {
	if x == 0 {
		return 64
	}
	return uint32(64 - bits.LeadingZeros64(x))
}

func copyShape(s []int) []int { return append([]int{}, s...) }
