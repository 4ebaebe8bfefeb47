package builtin

import (
	"math"
	"sort"
	"sync"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the float16 SOFTMAX path (op version 4). TFLite's tests have
// no float16 softmax case, so the float32 vector of activations_test.cc
// (Softmax4D, beta 0.1) is checked in half precision, and random rows
// bit for bit against refHalfSoftmax, which redoes TFLite's reference
// kernel in float64-checked steps with an independent rounding to half.

// halfTable lists every finite non-negative half as float64, ascending,
// for refHalf.
var halfTable = sync.OnceValue(func() []float64 {
	var v []float64
	for h := 0; h < 0x7c00; h++ {
		m, e := h&0x3ff, h>>10
		if e == 0 {
			v = append(v, math.Ldexp(float64(m), -24))
		} else {
			v = append(v, math.Ldexp(float64(m|0x400), e-25))
		}
	}
	return v
})

// refHalf rounds f to the nearest half, ties to the even encoding, by a
// search of every half (independent of float32ToHalf's bit arithmetic).
func refHalf(f float64) uint16 {
	if math.IsNaN(f) {
		return 0x7e00
	}
	var sign uint16
	if math.Signbit(f) {
		sign, f = 0x8000, -f
	}
	tab := halfTable()
	if f >= 65520 { // halfway between 65504 and 65536: rounds up to Inf
		return sign | 0x7c00
	}
	i := sort.SearchFloat64s(tab, f) // tab[i] >= f
	if i == len(tab) {               // (65504, 65520): rounds down to the largest half
		return sign | uint16(i-1)
	}
	if tab[i] == f {
		return sign | uint16(i)
	}
	lo, hi := tab[i-1], tab[i]
	switch {
	case f-lo < hi-f:
		return sign | uint16(i-1)
	case f-lo > hi-f:
		return sign | uint16(i)
	case (i-1)%2 == 0:
		return sign | uint16(i-1)
	}
	return sign | uint16(i)
}

func refHalfValue(h uint16) float64 {
	if h&0x7c00 == 0x7c00 {
		if h&0x3ff != 0 {
			return math.NaN()
		}
		if h&0x8000 != 0 {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	v := halfTable()[h&0x7fff]
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// refHalfSoftmax is TFLite's float16 reference softmax of one row: a
// max from −65504, float32 differences, products and exponentials, a
// float32 sum of the unrounded exponentials, two roundings to half.
func refHalfSoftmax(x []uint16, beta float32) []uint16 {
	mx := -65504.0
	for _, v := range x {
		if f := refHalfValue(v); mx < f {
			mx = f
		}
	}
	e := make([]float32, len(x))
	var sum float32
	for i, v := range x {
		d := float32(refHalfValue(v) - mx) // exact in float64, rounded once
		e[i] = float32(math.Exp(float64(float32(d * beta))))
		sum += e[i]
	}
	y := make([]uint16, len(x))
	for i := range x {
		y[i] = refHalf(float64(float32(refHalfValue(refHalf(float64(e[i]))) / float64(sum))))
	}
	return y
}

func halves(fs ...float32) []uint16 {
	h := make([]uint16, len(fs))
	for i, f := range fs {
		h[i] = float32ToHalf(f)
	}
	return h
}

func TestSoftmaxFloat16TFLiteVector(t *testing.T) {
	n := node(&SoftmaxOptions{Beta: 0.1}, []*ops.Tensor{tensorOf(ops.Float16, []int{1, 2, 1, 4}, halves(softmaxIn...))}, outTensor(ops.Float16))
	k := NewSoftmax()
	run(t, k, n)
	want := []float64{.23463, .12877, .28658, .35003, .22528, .13664, .45365, .18443}
	for i, h := range n.Outputs[0].Uint16s() {
		if d := math.Abs(float64(halfToFloat32(h)) - want[i]); d > 2e-4 {
			t.Errorf("element %d: %v, want %v (half precision)", i, halfToFloat32(h), want[i])
		}
	}
	noAllocs(t, k, n)
}

func TestSoftmaxFloat16AgainstReference(t *testing.T) {
	r := lcg(7)
	for c := 0; c < 300; c++ {
		rank := r.intn(1, 4)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = r.intn(1, 5)
		}
		shape[rank-1] = r.intn(1, 40)
		cnt := 1
		for _, d := range shape {
			cnt *= d
		}
		span := []float64{1, 10, 100, 60000}[c%4]
		x := make([]uint16, cnt)
		for i := range x {
			x[i] = float32ToHalf(r.float(-span, span))
		}
		beta := []float32{1, 0.1, 2.5, 1e-3}[r.intn(0, 3)]
		n := node(&SoftmaxOptions{Beta: beta}, []*ops.Tensor{tensorOf(ops.Float16, shape, x)}, outTensor(ops.Float16))
		run(t, NewSoftmax(), n)
		got := n.Outputs[0].Uint16s()
		d := shape[rank-1]
		for row := 0; row < cnt/d; row++ {
			want := refHalfSoftmax(x[row*d:row*d+d], beta)
			for i, w := range want {
				if g := got[row*d+i]; g != w {
					t.Fatalf("case %d shape %v beta %v row %d element %d: %#04x, want %#04x", c, shape, beta, row, i, g, w)
				}
			}
		}
	}
}

func TestSoftmaxFloat16Specials(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	// Row 0: all −Inf (the max stays −65504: 0/0). Row 1: +Inf present.
	// Row 2: a NaN after the max is skipped by std::max, but its exp is
	// NaN and so is the sum. Row 3: the lowest halves only.
	x := halves(-inf, -inf, inf, 1, 3, nan, -65504, -65504)
	n := node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{tensorOf(ops.Float16, []int{4, 2}, x)}, outTensor(ops.Float16))
	run(t, NewSoftmax(), n)
	got := n.Outputs[0].Uint16s()
	for i := 0; i < 6; i++ {
		if got[i]&0x7c00 != 0x7c00 || got[i]&0x3ff == 0 {
			t.Errorf("element %d: %#04x, want NaN", i, got[i])
		}
	}
	if got[6] != float32ToHalf(0.5) || got[7] != float32ToHalf(0.5) {
		t.Errorf("row of −65504: %#04x %#04x, want 0.5 0.5", got[6], got[7])
	}
	for row := 0; row < 4; row++ {
		want := refHalfSoftmax(x[2*row:2*row+2], 1)
		for i, w := range want {
			g := got[2*row+i]
			if g != w && !(g&0x7c00 == 0x7c00 && g&0x3ff != 0 && w&0x7c00 == 0x7c00 && w&0x3ff != 0) {
				t.Errorf("row %d element %d: %#04x, reference %#04x", row, i, g, w)
			}
		}
	}
}

func TestSoftmaxFloat16Errors(t *testing.T) {
	x := tensorOf(ops.Float16, []int{2}, halves(1, 2))
	wantPrepareError(t, NewSoftmax(), node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{x}, outTensor(ops.Float32)), "output 0", "float16")
	wantPrepareError(t, NewSoftmax(), node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{tensorOf(ops.Float16, nil, halves(1))}, outTensor(ops.Float16)), "rank 0")
	wantPrepareError(t, NewSoftmax(), node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{tensorOf(ops.Float32, []int{2}, []float32{1, 2})}, outTensor(ops.Float16)), "output 0")
	// Eval without data fails, it does not panic.
	n := node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{tensorOf(ops.Float16, []int{2}, halves(1, 2))}, outTensor(ops.Float16))
	k := NewSoftmax()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	n.Inputs[0].Data = n.Inputs[0].Data[:1]
	if err := k.Eval(n); err == nil {
		t.Fatal("Eval with a short input succeeded")
	}
}

func TestRefHalfAgreesWithFloat32ToHalf(t *testing.T) {
	r := lcg(3)
	for i := 0; i < 20000; i++ {
		f := math.Float32frombits(r.next())
		if math.IsNaN(float64(f)) {
			continue
		}
		if g, w := float32ToHalf(f), refHalf(float64(f)); g != w {
			t.Fatalf("float32ToHalf(%g) = %#04x, reference %#04x", f, g, w)
		}
	}
}
