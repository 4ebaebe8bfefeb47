package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of quantised REDUCE_PROD. The expected codes are worked by hand
// from TFLite's optimised QuantizedReduceProd (reduce.cc, optimized/
// reduce.h): per-step rescale by s = in_scale/out_scale^(1/n) through
// MultiplyByQuantizedMultiplier's int64 form, then a last rescale, out_zp
// and saturation.

func prodQ8(shape []int, v []int8, s float32, zp int64) *ops.Tensor {
	return q(tensorOf(ops.Int8, shape, v), s, zp)
}

func TestReduceProdInt8Rescale(t *testing.T) {
	// in_scale 0.1875, out_scale 0.0625, n = 2: s = 0.1875/0.25 = 0.75
	// exactly, multiplier 0.75·2^31, shift 0; the 16-bit multiplier is
	// 24576 and each rescale is floor((x·24576 + 2^14) / 2^15) =
	// floor(0.75x + 0.5), ties toward +∞. in_zp 3, out_zp −5.
	in := prodQ8([]int{5, 2}, []int8{
		5, 1, // d = 2, −2: 2·−2 = −4 → −3; final −2.25 → −2; −7
		127, 126, // d = 124, 123: 15252 → 11439 → 8579; saturates to 127
		1, 4, // d = −2, 1: −2 → −1 (tie −1.5 goes up); final −0.75 → −1; −6
		-128, 127, // d = −131, 124: −16244 → −12183 → −9137; saturates to −128
		5, 4, // d = 2, 1: 2 → 2 (tie 1.5 up); final 1.5 → 2; −3
	}, 0.1875, 3)
	out := reduceRun(t, NewReduceProd(), in, []int32{-1}, true, q(outTensor(ops.Int8), 0.0625, -5))
	wantShape(t, out.Shape, []int{5, 1})
	equalInts(t, "prod int8", out.Int8s(), []int{-7, 127, -6, -128, -3})
}

func TestReduceProdInt8Order(t *testing.T) {
	// Reducing axis 0 of a [3, 2] input multiplies each column top to
	// bottom; the rounding at every step makes the order matter. in_scale
	// 0.1, out_scale 0.02, n = 3: s = 0.1/0.02^(1/3) ≈ 0.368403, multiplier
	// 1582279516, shift −1 (TFLite's QuantizeMultiplier). Column 0 is
	// −12, −12, −11 → −79 + 1; column 1, the same values in reverse order,
	// gives −80 + 1.
	in := prodQ8([]int{3, 2}, []int8{-12, -11, -12, -12, -11, -12}, 0.1, 0)
	k := NewReduceProd()
	out := reduceRun(t, k, in, []int32{0, -2, 0}, false, q(outTensor(ops.Int8), 0.02, 1))
	wantShape(t, out.Shape, []int{2})
	if r := k.(*Reduce); r.mult != 1582279516 || r.shift != -1 {
		t.Errorf("step multiplier %d shift %d, want 1582279516 −1", r.mult, r.shift)
	}
	equalInts(t, "prod int8 order", out.Int8s(), []int{-78, -79})
}

func TestReduceProdInt16(t *testing.T) {
	// Zero points 0, s = 0.75 as in the int8 case. d = 300, 200: 60000 →
	// 45000 → 33750, saturates; −3, 5: −15 → −11 → −8; −300, 200
	// saturates low.
	in := q(tensorOf(ops.Int16, []int{3, 2}, []int16{300, 200, -3, 5, -300, 200}), 0.1875, 0)
	out := reduceRun(t, NewReduceProd(), in, []int32{1}, false, q(outTensor(ops.Int16), 0.0625, 0))
	equalInts(t, "prod int16", out.Int16s(), []int{32767, -8, -32768})

	// Large accumulators show the 16-bit multiplier of the int64
	// MultiplyByQuantizedMultiplier: s = 0.001/sqrt(out_scale) has
	// multiplier 1586864096 (reduced to 24213) and shift −7, and 31176 ·
	// −29053 ends at −30187, where the full 31-bit multiplier would give
	// −30186.
	cases := []struct {
		outScale    float32
		a, b        int16
		mult, shift int
		want        int
	}{
		{0.030005456879734993, 31176, -29053, 1586864096, -7, -30187},
		{0.0023921080864965916, 17197, -4378, 1405042513, -5, -31473},
	}
	for _, c := range cases {
		k := NewReduceProd()
		in := q(tensorOf(ops.Int16, []int{2}, []int16{c.a, c.b}), 0.001, 0)
		out := reduceRun(t, k, in, []int32{0}, false, q(outTensor(ops.Int16), c.outScale, 0))
		if r := k.(*Reduce); int(r.mult) != c.mult || r.shift != c.shift {
			t.Errorf("out scale %g: multiplier %d shift %d, want %d %d", c.outScale, r.mult, r.shift, c.mult, c.shift)
		}
		equalInts(t, "prod int16 multiplier", out.Int16s(), []int{c.want})
	}
}

func TestReduceProdQuantCopyAndEmpty(t *testing.T) {
	// Every reduced dimension of size 1: TFLite's optimised kernel copies
	// the codes unchanged although the scales differ.
	in := prodQ8([]int{3, 1}, []int8{-100, 7, 120}, 0.5, 4)
	out := reduceRun(t, NewReduceProd(), in, []int32{1}, false, q(outTensor(ops.Int8), 0.01, -9))
	wantShape(t, out.Shape, []int{3})
	equalInts(t, "prod copy", out.Int8s(), []int{-100, 7, 120})
	// A scalar input is copied too.
	out = reduceRun(t, NewReduceProd(), prodQ8([]int{}, []int8{-33}, 0.5, 4), []int32{}, false, q(outTensor(ops.Int8), 0.01, -9))
	equalInts(t, "prod scalar", out.Int8s(), []int{-33})
	// Nothing reduced into each output: 1.0 quantised, 1/0.0625 − 5 = 11,
	// and saturated when 1.0 is outside the output's range.
	empty := prodQ8([]int{0, 2}, []int8{}, 0.5, 0)
	out = reduceRun(t, NewReduceProd(), empty, []int32{0}, false, q(outTensor(ops.Int8), 0.0625, -5))
	equalInts(t, "prod empty", out.Int8s(), []int{11, 11})
	empty = q(tensorOf(ops.Int16, []int{0, 2}, []int16{}), 0.5, 0)
	out = reduceRun(t, NewReduceProd(), empty, []int32{0}, true, q(outTensor(ops.Int16), 1e-6, 0))
	wantShape(t, out.Shape, []int{1, 2})
	equalInts(t, "prod empty int16", out.Int16s(), []int{32767, 32767})
}

func TestReduceProdQuantErrors(t *testing.T) {
	ax := func(v ...int32) *ops.Tensor { return constT(tensorOf(ops.Int32, []int{len(v)}, v)) }
	in := func() *ops.Tensor { return prodQ8([]int{2, 3}, make([]int8, 6), 0.5, 0) }
	out := func() *ops.Tensor { return q(outTensor(ops.Int8), 0.25, 0) }
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{in(), ax(2)}, out()), "axis 2")
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{in(), ax(0, -3)}, out()), "axis -3")
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{in(), tensorOf(ops.Int32, []int{1}, []int32{0})}, out()), "constant")
	// uint8 is not among TFLite's quantised prod types.
	u8 := q(tensorOf(ops.Uint8, []int{2}, []uint8{1, 2}), 0.5, 0)
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{u8, ax(0)}, q(outTensor(ops.Uint8), 0.5, 0)), "REDUCE_PROD")
	// int16 needs zero points 0.
	i16 := q(tensorOf(ops.Int16, []int{2}, []int16{1, 2}), 0.5, 1)
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{i16, ax(0)}, q(outTensor(ops.Int16), 0.5, 0)), "zero points 0")
	// Unquantised int8, and a step scale beyond TFLite's shift range
	// (1000/sqrt(1e-6) = 1e6).
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{2}, []int8{1, 2}), ax(0)}, out()), "quantization")
	big := prodQ8([]int{2}, []int8{1, 2}, 1000, 0)
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{big, ax(0)}, q(outTensor(ops.Int8), 1e-6, 0)), "2^14")
	// Input and output types differ.
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{in(), ax(0)}, q(outTensor(ops.Int16), 0.25, 0)), "type")
}
