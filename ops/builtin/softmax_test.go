package builtin

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Float vector from TFLite's activations_test.cc (Softmax4D, beta 0.1);
// quantised paths checked against a float64 softmax (within one step, the
// table and float32 sums of TFLite's kernel) and against hand-computed
// values of the table algorithm.

var softmaxIn = []float32{0, -6, 2, 4, 3, -2, 10, 1}

func softmaxRef(x []float32, depth int, beta float64) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x)/depth; r++ {
		mx := math.Inf(-1)
		for _, v := range x[r*depth : (r+1)*depth] {
			mx = math.Max(mx, float64(v))
		}
		s := 0.0
		for i, v := range x[r*depth : (r+1)*depth] {
			out[r*depth+i] = math.Exp((float64(v) - mx) * beta)
			s += out[r*depth+i]
		}
		for i := range x[r*depth : (r+1)*depth] {
			out[r*depth+i] /= s
		}
	}
	return out
}

func TestSoftmaxFloat(t *testing.T) {
	n := node(&SoftmaxOptions{Beta: 0.1}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 1, 4}, softmaxIn)}, outTensor(ops.Float32))
	k := NewSoftmax()
	run(t, k, n)
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{.23463, .12877, .28658, .35003, .22528, .13664, .45365, .18443}, 1e-5)
	nearFloats(t, "output vs float64", n.Outputs[0].Float32s(), softmaxRef(softmaxIn, 4, 0.1), 1e-6)
	noAllocs(t, k, n)
}

func TestSoftmaxQuantized(t *testing.T) {
	const inScale = 20.0 / 255 // input range [-10, 10]
	r := lcg(11)
	x := make([]float32, 3*17)
	for i := range x {
		x[i] = r.float(-10, 10)
	}
	for _, tc := range []struct {
		in, out     ops.DataType
		inZP, outZP int64
		outScale    float32
	}{
		{ops.Int8, ops.Int8, 0, -128, 1.0 / 256},
		{ops.Uint8, ops.Uint8, 128, 0, 1.0 / 256},
		{ops.Int8, ops.Int16, 0, 0, 1.0 / 32768},
		{ops.Uint8, ops.Int16, 128, -32768, 1.0 / 65536},
	} {
		t.Run(tc.in.String()+"→"+tc.out.String(), func(t *testing.T) {
			lo, hi, _ := ops.TypeRange(tc.in)
			xq := quantizeTo(x, inScale, int32(tc.inZP), lo, hi)
			var inT *ops.Tensor
			if tc.in == ops.Int8 {
				inT = tensorOf(ops.Int8, []int{3, 17}, toInt8(xq))
			} else {
				inT = tensorOf(ops.Uint8, []int{3, 17}, toUint8(xq))
			}
			n := node(&SoftmaxOptions{Beta: 1.3}, []*ops.Tensor{q(inT, inScale, tc.inZP)}, q(outTensor(tc.out), tc.outScale, tc.outZP))
			k := NewSoftmax()
			run(t, k, n)
			// Reference on the dequantised input.
			deq := make([]float32, len(xq))
			for i, v := range xq {
				deq[i] = float32(float64(v-int32(tc.inZP)) * inScale)
			}
			ref := softmaxRef(deq, 17, 1.3)
			var got []int64
			switch tc.out {
			case ops.Int8:
				for _, v := range n.Outputs[0].Int8s() {
					got = append(got, int64(v))
				}
			case ops.Uint8:
				for _, v := range n.Outputs[0].Uint8s() {
					got = append(got, int64(v))
				}
			default:
				for _, v := range n.Outputs[0].Int16s() {
					got = append(got, int64(v))
				}
			}
			olo, ohi, _ := ops.TypeRange(tc.out)
			for i, p := range ref {
				want := math.Min(math.Max(math.Round(p/float64(tc.outScale))+float64(tc.outZP), float64(olo)), float64(ohi))
				if tc.out == ops.Uint8 {
					want = math.Min(math.Round(p/float64(tc.outScale)), 255)
				}
				if math.Abs(float64(got[i])-want) > 1 {
					t.Fatalf("element %d: got %d, float64 reference %v", i, got[i], want)
				}
			}
			noAllocs(t, k, n)
		})
	}
}

// Hand-computed from the table algorithm: a row {0, 0} of int8 input gives
// table entries e^0 = 1 twice, sum 2, p = 1/(2/256) = 128 → 128−128 = 0.
func TestSoftmaxInt8Uniform(t *testing.T) {
	n := node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{q(tensorOf(ops.Int8, []int{1, 2}, []int8{5, 5}), 0.1, 0)}, q(outTensor(ops.Int8), 1.0/256, -128))
	run(t, NewSoftmax(), n)
	equalInts(t, "output", n.Outputs[0].Int8s(), []int{0, 0})
	// uint8: p = 128 exactly → 128.
	n = node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{q(tensorOf(ops.Uint8, []int{1, 2}, []uint8{9, 9}), 0.1, 0)}, q(outTensor(ops.Uint8), 1.0/256, 0))
	run(t, NewSoftmax(), n)
	equalInts(t, "output", n.Outputs[0].Uint8s(), []int{128, 128})
}

func TestSoftmaxErrors(t *testing.T) {
	in := func() *ops.Tensor { return q(tensorOf(ops.Int8, []int{1, 4}, make([]int8, 4)), 0.1, 0) }
	wantPrepareError(t, NewSoftmax(), node(nil, []*ops.Tensor{in()}, q(outTensor(ops.Int8), 1.0/256, 0)), "output 0", "zero point 0", "-128")
	wantPrepareError(t, NewSoftmax(), node(nil, []*ops.Tensor{in()}, q(outTensor(ops.Int8), 1.0/128, -128)), "output 0", "scale")
	wantPrepareError(t, NewSoftmax(), node(nil, []*ops.Tensor{in()}, outTensor(ops.Float32)), "output 0", "float32")
	wantPrepareError(t, NewSoftmax(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, nil, []float32{1})}, outTensor(ops.Float32)), "rank 0")
}

// int16 SOFTMAX: rows against float64 (TFLite's table-based kernel is
// within a few Q0.15 steps), a saturated row, Eval without allocations,
// and the quantisation it refuses. Bit-exact cases against TensorFlow
// Lite are in testdata/intexact/softmax_int16_*.
func TestSoftmaxInt16(t *testing.T) {
	in := []int16{0, 1000, -2000, 32767, -32768, 5, 5, 300, 12000, -12000, 0, 1}
	const inScale = 1.0 / 4096
	n := node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{q(tensorOf(ops.Int16, []int{3, 4}, in), inScale, 0)}, q(outTensor(ops.Int16), 1.0/32768, 0))
	k := NewSoftmax()
	run(t, k, n)
	got := n.Outputs[0].Int16s()
	for r := 0; r < 3; r++ {
		row := in[r*4 : r*4+4]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = max(mx, float64(v)*inScale)
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(float64(v)*inScale - mx)
		}
		for i, v := range row {
			want := math.Exp(float64(v)*inScale-mx) / sum * 32768
			if d := math.Abs(float64(got[r*4+i]) - min(want, 32767)); d > 40 {
				t.Errorf("row %d element %d: got %d, want %.1f", r, i, got[r*4+i], want)
			}
		}
	}
	noAllocs(t, k, n)

	x := func(zp int64) *ops.Tensor { return q(tensorOf(ops.Int16, []int{2}, []int16{1, 2}), 1.0/4096, zp) }
	wantPrepareError(t, NewSoftmax(), node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{x(1)}, q(outTensor(ops.Int16), 1.0/32768, 0)), "zero points")
	wantPrepareError(t, NewSoftmax(), node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{x(0)}, q(outTensor(ops.Int16), 1.0/256, 0)), "output 0", "2^-15")
	wantPrepareError(t, NewSoftmax(), node(&SoftmaxOptions{Beta: 0}, []*ops.Tensor{x(0)}, q(outTensor(ops.Int16), 1.0/32768, 0)), "input 0", "multiplier")
	wantPrepareError(t, NewSoftmax(), node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{x(0)}, q(outTensor(ops.Int8), 1.0/256, -128)), "output 0", "int8")
}

// BenchmarkSoftmaxInt8 times int8 SOFTMAX on yolo11n's two shapes: the
// distribution-focal-loss rows of 16 ([1,4,16,8400] transposed to rows of
// 16) and the attention rows of 400: go test ./ops/builtin -bench
// SoftmaxInt8 (kernel: softmaxQuant through Eval; ref: softmaxQuantRef).
func BenchmarkSoftmaxInt8(b *testing.B) {
	for _, shape := range [][]int{{33600, 16}, {800, 400}} {
		b.Run(fmt.Sprintf("rows%dx%d", shape[0], shape[1]), func(b *testing.B) {
			r := lcg(5)
			x := make([]int8, shape[0]*shape[1])
			for i := range x {
				x[i] = int8(r.intn(-128, 127))
			}
			n := node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{q(tensorOf(ops.Int8, shape, x), 0.17, -20)}, q(outTensor(ops.Int8), 1.0/256, -128))
			k := NewSoftmax()
			if err := prepare(k, n); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(x)))
			b.Run("kernel", func(b *testing.B) {
				for b.Loop() {
					if err := k.Eval(n); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("ref", func(b *testing.B) { // TFLite's loop as written
				for b.Loop() {
					softmaxQuantRef(k.(*Softmax), n.Inputs[0].Int8s(), n.Outputs[0], 0, shape[0])
				}
			})
		})
	}
}

// TestSoftmaxQuantMatchesRef holds the quantised row loop to TFLite's
// loop as written (softmaxQuantRef), bit for bit: int8 and uint8 inputs,
// every output type, row lengths 1..70, input scales and betas from flat
// to steep tables, rows of equal values and of both extremes, and output
// scales small enough that a row takes the reference path.
func TestSoftmaxQuantMatchesRef(t *testing.T) {
	r := lcg(29)
	for trial := 0; trial < 400; trial++ {
		inT := []ops.DataType{ops.Int8, ops.Uint8}[trial%2]
		outT := inT
		outScale, outZP := float32(1.0/256), int64(0)
		switch trial % 6 {
		case 0, 1:
			if inT == ops.Int8 {
				outZP = -128
			}
		case 2, 3:
			outT, outScale, outZP = ops.Int16, 1.0/32768, 0
		case 4:
			outT, outScale, outZP = ops.Int16, 1.0/65536, -32768
		case 5:
			outT, outScale, outZP = ops.Int16, 1e-9, int64(r.intn(-5, 5)) // inv ≥ 2^23: the reference path
		}
		depth := r.intn(1, 70)
		rows := r.intn(1, 11)
		shape := []int{rows, depth}
		inScale := []float32{0.001, 0.02, 0.1, 0.17, 0.5, 2}[r.intn(0, 5)]
		beta := []float32{1, 0.3, 1.7}[r.intn(0, 2)]
		raw := make([]byte, rows*depth)
		mode := r.intn(0, 3)
		for i := range raw {
			switch mode {
			case 0:
				raw[i] = byte(r.intn(0, 255))
			case 1:
				raw[i] = byte(r.intn(0, 1) * 255) // both extremes (as int8: -1 and 0; 0x80 and 0x7f below)
			case 2:
				raw[i] = 0x80 - byte(r.intn(0, 1))
			default:
				raw[i] = 7
			}
		}
		in := q(tensorOf(inT, shape, raw), inScale, int64(r.intn(0, 3)))
		n := node(&SoftmaxOptions{Beta: beta}, []*ops.Tensor{in}, q(outTensor(outT), outScale, outZP))
		k := NewSoftmax()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		want := q(&ops.Tensor{Type: outT, Shape: shape, Data: make([]byte, len(n.Outputs[0].Data))}, outScale, outZP)
		sk := k.(*Softmax)
		if inT == ops.Int8 {
			softmaxQuantRef(sk, in.Int8s(), want, 0, rows)
		} else {
			softmaxQuantRef(sk, in.Uint8s(), want, 0, rows)
		}
		for i := range want.Data {
			if n.Outputs[0].Data[i] != want.Data[i] {
				t.Fatalf("%s→%s scale %g beta %g, out scale %g zp %d, rows %d×%d: byte %d is %d, the reference loop gives %d",
					inT, outT, inScale, beta, outScale, outZP, rows, depth, i, n.Outputs[0].Data[i], want.Data[i])
			}
		}
	}
}

func TestRoundPosF32(t *testing.T) {
	for _, p := range []float32{0, 0.49999997, 0.5, 0.50000006, 1.4999999, 1.5, 2.5, 127.5, 255.49998, 8388607.5, 1e-45} {
		if got, want := roundPosF32(p), f32ToInt32(roundf(p)); got != want {
			t.Errorf("roundPosF32(%v) = %d, roundf gives %d", p, got, want)
		}
		// softmaxRowInt8's rounding.
		if got, want := int32(float64(p)+0.5), f32ToInt32(roundf(p)); got != want {
			t.Errorf("⌊float64(%v) + 1/2⌋ = %d, roundf gives %d", p, got, want)
		}
	}
}
