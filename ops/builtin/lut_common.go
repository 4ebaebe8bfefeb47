package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// lutPopulate8 fills a 256-entry lookup table mapping every int8 or uint8
// input value to f(real input) quantised to the output — TFLite's
// LUTPopulate<int8_t/uint8_t> (kernels/internal/common.h). The
// arithmetic is float32 as there: dequantise as in_scale·(q − in_zp),
// apply f, multiply by 1/out_scale, round half away from zero, add the
// output zero point, clamp to the type's range. The table is indexed by
// the input byte (an int8 value v sits at index uint8(v)).
func lutPopulate8(typ ops.DataType, inScale float32, inZP int32, outScale float32, outZP int32, f func(float32) float32, lut *[256]uint8) {
	lo, hi := int32(0), int32(255)
	if typ == ops.Int8 {
		lo, hi = -128, 127
	}
	inv := float32(1) / outScale
	for v := lo; v <= hi; v++ {
		deq := float32(inScale * float32(v-inZP))
		tr := f(deq)
		rescaled := roundf(float32(tr * inv))
		qv := f32ToInt32(float32(rescaled + float32(outZP)))
		qv = ops.ClampInt32(qv, lo, hi)
		lut[uint8(v)] = uint8(qv)
	}
}

// sigmoidf is TFLite's float32 transform for LOGISTIC tables,
// 1/(1+e^−x) in float32 arithmetic.
func sigmoidf(x float32) float32 { return float32(1) / float32(1+expf(-x)) }

// lookup8 maps every byte of in through lut into out, with the vector
// table lookup arch.LookupBytes.
func lookup8(in, out []byte, lut *[256]uint8) {
	arch.LookupBytes(out[:len(in)], in, lut)
}

// elementwiseUnary holds the checks every one-input, one-output
// elementwise kernel (activations, QUANTIZE, DEQUANTIZE) shares.
func elementwiseUnary(n *ops.Node) (in, out *ops.Tensor, err error) {
	if err := n.CheckIO(1, 1, 1); err != nil {
		return nil, nil, err
	}
	if in, err = n.RequireInput(0); err != nil {
		return nil, nil, err
	}
	out = n.Output(0)
	if out == nil {
		return nil, nil, errors.New("output 0 is missing")
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// sameTypeUnary is elementwiseUnary plus TFLite's GenericPrepare checks:
// the output type equals the input type and the output takes the input's
// shape.
func sameTypeUnary(n *ops.Node) (in, out *ops.Tensor, err error) {
	in, out, err = elementwiseUnary(n)
	if err != nil {
		return nil, nil, err
	}
	if out.Type != in.Type {
		return nil, nil, fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	out.Shape = copyShape(in.Shape)
	return in, out, nil
}

// lutPopulate16Double is TFLite's LUTPopulateInt16<double>, the form the
// int16 SOFTMAX builds its tables with (gelu.go's lutPopulate16 is the
// float32 one): 512 equal steps over the real input range of the int16
// quantisation (inScale, inZP); each sample is f(x) in output steps
// (65536 of them over the output's real range), rounded half away from
// zero, then nudged by half the error that linear interpolation makes at
// the step's midpoint, clamped to int16; the last entry is f at the
// range's top. All in float64. Look it up with lutLookup16.
func lutPopulate16Double(t *[513]int16, inScale float64, inZP int32, outScale float64, outZP int32, f func(float64) float64) {
	inMin := inScale * float64(math.MinInt16-inZP)
	inMax := inScale * float64(math.MaxInt16-inZP)
	outMin := outScale * float64(math.MinInt16-outZP)
	outMax := outScale * float64(math.MaxInt16-outZP)
	const steps = 512
	step := (inMax - inMin) / steps
	half := step / 2
	inv := 65536 / (outMax - outMin)
	clamp := func(v float64) int16 { return int16(min(max(v, math.MinInt16), math.MaxInt16)) }
	// The explicit float64 conversions keep the compiler from fusing a
	// multiply and an add (arm64 would), which rounds differently.
	for i := 0; i < steps; i++ {
		x := inMin + float64(float64(i)*step)
		val := f(x)
		mid := f(x + half)
		next := f(inMin + float64(float64(i+1)*step))
		sample := math.Round(val * inv)
		interp := math.Round((float64(next*inv) + math.Round(val*inv)) / 2)
		bias := math.Round((interp - math.Round(mid*inv)) / 2)
		t[i] = clamp(sample - bias)
	}
	t[steps] = clamp(math.Round(f(inMax) * inv))
}

// unarySplit splits an elementwise one-input kernel over threads: output
// element i depends on input element i alone, so every split of the
// elements gives the same bits, provided the split points fall on
// multiples of splitBlock (Eigen-order kernels such as
// arch.LogisticEigenF32 treat the elements in packets from the start and
// a scalar tail at the end). A kernel calls init with its part method once
// at Prepare (a method value made at each Eval would allocate) and run
// from Eval; the part reads the tensors in in and out, which run clears
// when it returns.
type unarySplit struct {
	in, out *ops.Tensor
	count   int
	elems   func(lo, hi int)
	fn      func(worker, lo, hi int)
}

// splitBlock is the granularity, in elements, of unarySplit's parts.
const splitBlock = 64

// init sets the part function, which computes the elements [lo, hi).
func (u *unarySplit) init(elems func(lo, hi int)) {
	u.elems = elems
	u.fn = u.blocks
}

// blocks is the range function handed to ops.Node.Parallel.
func (u *unarySplit) blocks(_, lo, hi int) {
	u.elems(lo*splitBlock, min(hi*splitBlock, u.count))
}

// run calls the part function over the elements [0, count) on the node's
// threads; cost is the work of one element in element operations
// (ops.Node.Parallel).
func (u *unarySplit) run(n *ops.Node, in, out *ops.Tensor, count, cost int) {
	u.in, u.out, u.count = in, out, count
	n.Parallel((count+splitBlock-1)/splitBlock, count*cost, u.fn)
	u.in, u.out = nil, nil
}
