package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the float16 GELU path (op version 3): TFLite's GeluHalf
// vector (activations_test.cc, tolerance 10 half epsilons), every half
// input bit for bit against refGeluHalf (the same operation order in
// float64 with an independent half rounding), Eigen's erfc within a few
// float32 ulps of the true erfc, and the errors.

// refGeluHalf redoes TFLite's float16 GELU expression: each half
// operation is exact in float64 and then rounded to half with refHalf.
// erfc is eigenErfcf (checked separately), tanh float64's rounded to
// float32.
func refGeluHalf(h uint16, approx bool) uint16 {
	rh := func(f float64) float64 { return refHalfValue(refHalf(f)) }
	x := refHalfValue(h)
	if approx {
		c := rh(float64(float32(math.Sqrt(2 / math.Pi))))
		k := rh(float64(float32(0.044715)))
		cube := rh(rh(x*x) * x)
		in := rh(c * rh(x+rh(k*cube)))
		t := rh(float64(float32(math.Tanh(in))))
		return refHalf(rh(0.5*x) * rh(1+t))
	}
	a := rh(x * rh(float64(float32(-math.Sqrt2/2))))
	e := rh(float64(eigenErfcf(float32(a))))
	return refHalf(rh(0.5*x) * e)
}

func isHalfNaN(h uint16) bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }

func TestGeluFloat16TFLiteVector(t *testing.T) {
	x := halves(0, 1, 3, 1, -1, -2)
	n := node(&GeluOptions{}, []*ops.Tensor{tensorOf(ops.Float16, []int{2, 3}, x)}, outTensor(ops.Float16))
	k := NewGelu()
	run(t, k, n)
	want := []float64{0, 0.841345, 2.99595, 0.841345, -0.158655, -0.0455003}
	for i, h := range n.Outputs[0].Uint16s() {
		if d := math.Abs(float64(halfToFloat32(h)) - want[i]); d > 10*0.0009765625 {
			t.Errorf("element %d: %v, want %v", i, halfToFloat32(h), want[i])
		}
	}
	noAllocs(t, k, n)
	// The approximate form, with the float32 test's values and tolerance.
	n = node(&GeluOptions{Approximate: true}, []*ops.Tensor{tensorOf(ops.Float16, []int{2, 3}, x)}, outTensor(ops.Float16))
	run(t, NewGelu(), n)
	want = []float64{0, 0.841192, 2.99636, 0.841192, -0.158808, -0.0454023}
	for i, h := range n.Outputs[0].Uint16s() {
		if d := math.Abs(float64(halfToFloat32(h)) - want[i]); d > 10*0.0009765625 {
			t.Errorf("approximate element %d: %v, want %v", i, halfToFloat32(h), want[i])
		}
	}
}

func TestGeluFloat16EveryHalf(t *testing.T) {
	all := make([]uint16, 1<<16)
	for i := range all {
		all[i] = uint16(i)
	}
	for _, approx := range []bool{false, true} {
		n := node(&GeluOptions{Approximate: approx}, []*ops.Tensor{tensorOf(ops.Float16, []int{256, 256}, all)}, outTensor(ops.Float16))
		run(t, NewGelu(), n)
		bad := 0
		for i, g := range n.Outputs[0].Uint16s() {
			w := refGeluHalf(uint16(i), approx)
			if g != w && !(isHalfNaN(g) && isHalfNaN(w)) {
				if bad++; bad < 5 {
					t.Errorf("approximate %v: gelu(%#04x = %v) = %#04x, reference %#04x", approx, i, halfToFloat32(uint16(i)), g, w)
				}
			}
		}
		if bad > 0 {
			t.Errorf("approximate %v: %d of 65536 differ", approx, bad)
		}
	}
}

func TestGeluFloat16Specials(t *testing.T) {
	inf := float32(math.Inf(1))
	x := halves(inf, -inf, float32(math.NaN()), -0.0, 65504, -65504)
	for _, approx := range []bool{false, true} {
		n := node(&GeluOptions{Approximate: approx}, []*ops.Tensor{tensorOf(ops.Float16, []int{6}, x)}, outTensor(ops.Float16))
		run(t, NewGelu(), n)
		got := n.Outputs[0].Uint16s()
		if got[0] != 0x7c00 {
			t.Errorf("approximate %v: gelu(+Inf) = %#04x, want +Inf", approx, got[0])
		}
		if !isHalfNaN(got[1]) || !isHalfNaN(got[2]) {
			t.Errorf("approximate %v: gelu(-Inf), gelu(NaN) = %#04x %#04x, want NaN (−Inf·0)", approx, got[1], got[2])
		}
		if got[4] != 0x7bff {
			t.Errorf("approximate %v: gelu(65504) = %#04x, want 65504", approx, got[4])
		}
	}
}

// Eigen's float erfc is within a few ulps of the true one: a slip in a
// coefficient or a step of eigenErfcf would be far outside.
func TestEigenErfcf(t *testing.T) {
	r := lcg(11)
	worst, at := 0.0, float32(0)
	for i := 0; i < 200000; i++ {
		x := r.float(-9, 9)
		got, want := float64(eigenErfcf(x)), math.Erfc(float64(x))
		if want < 1e-30 {
			continue
		}
		ulp := float64(math.Nextafter32(float32(want), float32(math.Inf(1))) - float32(want))
		if e := math.Abs(got-want) / ulp; e > worst {
			worst, at = e, x
		}
	}
	if worst > 8 {
		t.Fatalf("eigenErfcf(%v) is %.1f ulps from erfc", at, worst)
	}
	if eigenErfcf(20) != 0 || eigenErfcf(-20) != 2 || eigenErfcf(0) != 1 {
		t.Fatalf("erfc(20), erfc(-20), erfc(0) = %v %v %v", eigenErfcf(20), eigenErfcf(-20), eigenErfcf(0))
	}
}

func TestGeluFloat16Errors(t *testing.T) {
	x := tensorOf(ops.Float16, []int{2}, halves(1, 2))
	wantPrepareError(t, NewGelu(), node(&GeluOptions{}, []*ops.Tensor{x}, outTensor(ops.Float32)), "output 0", "differs")
	n := node(&GeluOptions{}, []*ops.Tensor{tensorOf(ops.Float16, []int{2}, halves(1, 2))}, outTensor(ops.Float16))
	k := NewGelu()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	n.Outputs[0].Data = nil
	if err := k.Eval(n); err == nil {
		t.Fatal("Eval without output data succeeded")
	}
}
