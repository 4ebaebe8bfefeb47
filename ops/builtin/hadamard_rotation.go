package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// HadamardRotationName is the custom operator name TFLite's
// BuiltinOpResolver registers the AI Edge Quantizer's Hadamard rotation
// under.
const HadamardRotationName = "aeq.hadamard_rotation"

// HadamardRotation is the kernel of TFLite's custom operator
// aeq.hadamard_rotation (LiteRT tflite/kernels/hadamard_rotation.cc): the
// normalised fast Walsh–Hadamard transform of consecutive chunks of
// hadamard_size elements.
//
// The output holds a copy of the input, and then chunk i (elements
// [i·hs, (i+1)·hs)) is transformed in place for i < batch · features ·
// ⌊size / hs⌋, where a rank-3 input is [batch, features, size] and any
// other input reads its first two dimensions as [features, size] with
// batch 1 (so a rank-4 input transforms only its leading chunks, as
// TFLite does). Each stage h = 1, 2, 4, … < hs replaces the pair
// (x, y) = (d[j], d[j+h]) by (x + y, x − y) in float32, then every
// element is multiplied by float32(1 / √hs) (the quotient in double, as
// std::sqrt of an int). A hadamard_size that is not a power of two (a
// negative one included) transforms nothing, the output is the copy
// (TFLite prints "hadamard_size needs to be a power of 2" and returns);
// a size larger than the last dimension transforms nothing either.
//
// Types: float32, and int32 whose bits TFLite transforms as float32
// (its Eval reads data.f whatever the type); the output must have the
// input's type and element count (TFLite memcpys input bytes into it
// and does not resize it: the output keeps the model's shape). Every
// arithmetic result that is NaN follows x86 SSE: a NaN operand comes out
// quieted, the first one when both are, and an invalid operation gives
// the negative default NaN 0xffc00000; so the int32 path is bit-exact
// on every host.
//
// Options, a FlexBuffers map as TFLite's Prepare reads it:
// hadamard_size (AsInt32; 0 is refused, TFLite would divide by it) and
// random_binary_vector (each element AsInt8; an untyped vector, anything
// else reads as empty, as the C++ AsVector). TFLite's Eval does not use
// the vector (the quantizer folds the signs into the weights); it is
// decoded and kept in RandomBinaryVector.
type HadamardRotation struct {
	// Size is hadamard_size; RandomBinaryVector the decoded signs.
	Size               int
	RandomBinaryVector []int8
	transforms         int
	pow2               bool
	norm               float32
	data               []uint32 // the output's bits during Eval
	partFn             func(worker, lo, hi int)
}

// NewHadamardRotation returns an aeq.hadamard_rotation kernel for one
// node.
func NewHadamardRotation() ops.Kernel { return &HadamardRotation{} }

func init() { registerCustom(HadamardRotationName, NewHadamardRotation) }

// decodeHadamardOptions reads the custom options as TFLite's Prepare does.
func decodeHadamardOptions(b []byte) (int32, []int8, error) {
	if len(b) == 0 {
		return 0, nil, errors.New("custom_options are missing (aeq.hadamard_rotation reads hadamard_size from a FlexBuffer map)")
	}
	m, err := flexbuffers.RootMap(b)
	if err != nil {
		return 0, nil, fmt.Errorf("custom_options: %v", err)
	}
	hs, err := m.Int("hadamard_size")
	if err != nil {
		return 0, nil, fmt.Errorf("custom_options: %v", err)
	}
	v, err := m.Get("random_binary_vector")
	if err != nil {
		return 0, nil, fmt.Errorf("custom_options: \"random_binary_vector\": %v", err)
	}
	var signs []int8
	if v.Type() == flexbuffers.TypeVector || v.Type() == flexbuffers.TypeMap {
		vec, err := v.AsVector()
		if err != nil {
			return 0, nil, fmt.Errorf("custom_options: \"random_binary_vector\": %v", err)
		}
		signs = make([]int8, vec.Len())
		for i := range signs {
			e, err := vec.At(i)
			if err == nil {
				var x int64
				if x, err = e.AsInt(); err == nil {
					signs[i] = int8(x)
					continue
				}
			}
			return 0, nil, fmt.Errorf("custom_options: \"random_binary_vector\" element %d: %v", i, err)
		}
	}
	return int32(hs), signs, nil
}

// Prepare decodes the options and checks the node.
func (k *HadamardRotation) Prepare(n *ops.Node) error {
	*k = HadamardRotation{}
	k.partFn = k.part
	hs, signs, err := decodeHadamardOptions(n.CustomOptions)
	if err != nil {
		return err
	}
	if hs == 0 {
		return errors.New("options: hadamard_size is 0 (or missing); TFLite's kernel divides by it")
	}
	k.Size, k.RandomBinaryVector = int(hs), signs
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Int32); err != nil {
		return err
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	cnt, err := numElementsChecked(in, "input 0")
	if err != nil {
		return err
	}
	if in.Rank() < 2 {
		return fmt.Errorf("input 0: rank %d, aeq.hadamard_rotation reads two dimensions at least", in.Rank())
	}
	if out.Shape == nil {
		out.Shape = copyShape(in.Shape)
	}
	oc, err := numElementsChecked(out, "output 0")
	if err != nil {
		return err
	}
	if oc != cnt {
		return fmt.Errorf("output 0: shape %v holds %d elements, the input %v holds %d (TFLite copies the input into it unresized)", out.Shape, oc, in.Shape, cnt)
	}
	batch, features, size := 1, in.Shape[0], in.Shape[1]
	if in.Rank() == 3 {
		batch, features, size = in.Shape[0], in.Shape[1], in.Shape[2]
	}
	if hs < 0 || hs&(hs-1) != 0 {
		return nil // TFLite leaves the copy
	}
	per := size / k.Size
	if per > 0 && features > 0 && batch > 0 {
		t := int64(batch) * int64(features) * int64(per)
		if t*int64(k.Size) > int64(cnt) {
			return fmt.Errorf("input 0: shape %v: %d chunks of %d elements exceed its %d elements (TFLite would write past it)", in.Shape, t, k.Size, cnt)
		}
		k.transforms = int(t)
	}
	k.pow2 = true
	k.norm = float32(1 / math.Sqrt(float64(k.Size)))
	return nil
}

// Eval copies the input and transforms its chunks.
func (k *HadamardRotation) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("aeq.hadamard_rotation: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	b := in.Bytes()
	copy(out.Data[:b], in.Data[:b])
	if !k.pow2 || k.transforms == 0 {
		return nil
	}
	k.data = ops.View[uint32](out.Data[:b])
	stages := bitsLen(k.Size)
	n.Parallel(k.transforms, k.transforms*k.Size*(stages+1), k.partFn)
	k.data = nil
	return nil
}

func bitsLen(n int) int {
	s := 0
	for h := 1; h < n; h *= 2 {
		s++
	}
	return s
}

// part transforms the chunks [lo, hi).
func (k *HadamardRotation) part(_, lo, hi int) {
	hs := k.Size
	for c := lo; c < hi; c++ {
		fwhtX86(k.data[c*hs:(c+1)*hs], k.norm)
	}
}

// fwhtX86 is TFLite's FWHTFast on one chunk of float32 bits: the
// butterflies stage by stage, then the scaling, each operation with x86
// SSE NaN results.
func fwhtX86(d []uint32, norm float32) {
	n := len(d)
	for h := 1; h < n; h *= 2 {
		for i := 0; i < n; i += 2 * h {
			for j := i; j < i+h; j++ {
				x, y := d[j], d[j+h]
				d[j] = x86Add(x, y)
				d[j+h] = x86Sub(x, y)
			}
		}
	}
	nb := math.Float32bits(norm)
	for i, v := range d {
		d[i] = x86Mul(v, nb)
	}
}

// flushSubnormal returns the bits of a subnormal float32 as a zero of
// the same sign: TensorFlow Lite's results on the x86 machines checked
// take subnormal operands as zero and flush subnormal results (DAZ and
// FTZ), which the int32 path, whose small integers are subnormal bit
// patterns, shows on every element.
func flushSubnormal(u uint32) uint32 {
	if u&0x7f800000 == 0 {
		return u & 0x80000000
	}
	return u
}

// x86DefaultNaN is the NaN an invalid SSE operation (Inf − Inf, 0·Inf)
// produces: the "real indefinite", negative.
const x86DefaultNaN = 0xffc00000

// x86NaN returns the result of an SSE arithmetic instruction whose exact
// result r is NaN, given its operands a (first) and b: the first NaN
// operand quieted, else the default NaN.
func x86NaN(a, b uint32) uint32 {
	switch {
	case a&0x7fffffff > 0x7f800000:
		return a | 0x400000
	case b&0x7fffffff > 0x7f800000:
		return b | 0x400000
	}
	return x86DefaultNaN
}

func x86Add(a, b uint32) uint32 {
	r := math.Float32frombits(flushSubnormal(a)) + math.Float32frombits(flushSubnormal(b))
	if r != r {
		return x86NaN(a, b)
	}
	return flushSubnormal(math.Float32bits(r))
}

func x86Sub(a, b uint32) uint32 {
	r := math.Float32frombits(flushSubnormal(a)) - math.Float32frombits(flushSubnormal(b))
	if r != r {
		return x86NaN(a, b)
	}
	return flushSubnormal(math.Float32bits(r))
}

func x86Mul(a, b uint32) uint32 {
	r := math.Float32frombits(flushSubnormal(a)) * math.Float32frombits(flushSubnormal(b))
	if r != r {
		return x86NaN(a, b)
	}
	return flushSubnormal(math.Float32bits(r))
}
