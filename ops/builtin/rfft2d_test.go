package builtin

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of RFFT2D, REAL, IMAG and COMPLEX_ABS against their definitions
// (a direct O(n²) DFT in float64), TFLite's kernel test vector
// (rfft2d_test.cc), the FFT on its own, and the nodes TFLite refuses.

func rfftNode(in *ops.Tensor, h, w int32) *ops.Node {
	return node(nil, []*ops.Tensor{in, c32(h, w)}, outTensor(ops.Complex64))
}

// directDFT2 is the definition: out[k1][k2] for k2 ≤ w/2 of the input
// cropped or zero-padded to h × w.
func directDFT2(x []float32, inH, inW, h, w int) []complex128 {
	ow := w/2 + 1
	out := make([]complex128, h*ow)
	for k1 := 0; k1 < h; k1++ {
		for k2 := 0; k2 < ow; k2++ {
			var s complex128
			for j1 := 0; j1 < min(h, inH); j1++ {
				for j2 := 0; j2 < min(w, inW); j2++ {
					ang := -2 * math.Pi * (float64(j1*k1)/float64(h) + float64(j2*k2)/float64(w))
					s += complex(float64(x[j1*inW+j2]), 0) * cmplx.Exp(complex(0, ang))
				}
			}
			out[k1*ow+k2] = s
		}
	}
	return out
}

func TestRfft2dTFLiteVector(t *testing.T) {
	// rfft2d_test.cc FftLengthMatchesInputSize: a 4×4 input.
	in := tensorOf(ops.Float32, []int{4, 4}, []float32{1, 2, 3, 4, 3, 8, 6, 3, 5, 2, 7, 6, 9, 5, 8, 3})
	n := rfftNode(in, 4, 4)
	run(t, NewRfft2d(), n)
	wantShape(t, n.Outputs[0].Shape, []int{4, 3})
	want := []complex64{75, complex(-6, -1), 9, complex(-10, 5), complex(-3, 2), complex(-6, 11),
		-15, complex(-2, 13), -5, complex(-10, -5), complex(3, -6), complex(-6, -11)}
	got := ops.View[complex64](n.Outputs[0].Data)
	for i := range want {
		if cmplx.Abs(complex128(got[i]-want[i])) > 1e-5 {
			t.Fatalf("element %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestRfft2dAgainstDefinition(t *testing.T) {
	r := lcg(5)
	for trial := 0; trial < 60; trial++ {
		h, w := 1<<r.intn(0, 4), 1<<r.intn(1, 5) // width ≥ 2
		inH, inW := r.intn(1, 2*h), r.intn(1, 2*w)
		batch := r.intn(1, 3)
		x := make([]float32, batch*inH*inW)
		for i := range x {
			x[i] = r.float(-2, 2)
		}
		n := rfftNode(tensorOf(ops.Float32, []int{batch, inH, inW}, x), int32(h), int32(w))
		k := NewRfft2d()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, []int{batch, h, w/2 + 1})
		got := ops.View[complex64](n.Outputs[0].Data)
		for b := 0; b < batch; b++ {
			want := directDFT2(x[b*inH*inW:], inH, inW, h, w)
			for i, v := range want {
				if d := cmplx.Abs(complex128(got[b*len(want)+i]) - v); d > 1e-4 {
					t.Fatalf("%d×%d from %d×%d: slice %d element %d: %v, want %v", h, w, inH, inW, b, i, got[b*len(want)+i], v)
				}
			}
		}
		noAllocs(t, k, n)
	}
}

// TestFFT checks the transform alone against the definition in float64,
// at lengths 1 to 1024.
func TestFFT(t *testing.T) {
	r := lcg(9)
	for n := 1; n <= 1024; n *= 2 {
		f, err := newFFT(n)
		if err != nil {
			t.Fatal(err)
		}
		re, im := make([]float64, n), make([]float64, n)
		x := make([]complex128, n)
		for i := range x {
			x[i] = complex(float64(r.float(-1, 1)), float64(r.float(-1, 1)))
			re[i], im[i] = real(x[i]), imag(x[i])
		}
		f.transform(re, im)
		for k := 0; k < n; k += max(1, n/16) {
			var s complex128
			for j := range x {
				s += x[j] * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k%n)/float64(n)))
			}
			if d := cmplx.Abs(complex(re[k], im[k]) - s); d > 1e-12*float64(n) {
				t.Fatalf("n=%d bin %d: %v, want %v (|diff| %g)", n, k, complex(re[k], im[k]), s, d)
			}
		}
	}
	for _, bad := range []int{0, 3, -4, maxFFTLength * 2} {
		if _, err := newFFT(bad); err == nil {
			t.Errorf("newFFT(%d) succeeded", bad)
		}
	}
}

func TestComplexParts(t *testing.T) {
	vals := []complex64{complex(3, -4), complex(-1.5, 2), 0, complex(float32(math.Inf(1)), 1), complex(1e-30, 1e-30)}
	in := tensorOf(ops.Complex64, []int{5}, vals)
	for _, c := range []struct {
		k    ops.Kernel
		want func(complex64) float32
	}{
		{NewReal(), func(v complex64) float32 { return real(v) }},
		{NewImag(), func(v complex64) float32 { return imag(v) }},
		{NewComplexAbs(), func(v complex64) float32 {
			return float32(math.Sqrt(float64(real(v))*float64(real(v)) + float64(imag(v))*float64(imag(v))))
		}},
	} {
		n := node(nil, []*ops.Tensor{in}, outTensor(ops.Float32))
		run(t, c.k, n)
		wantShape(t, n.Outputs[0].Shape, []int{5})
		for i, v := range vals {
			if got, want := n.Outputs[0].Float32s()[i], c.want(v); got != want {
				t.Errorf("%T element %d of %v: %v, want %v", c.k, i, v, got, want)
			}
		}
		noAllocs(t, c.k, n)
	}
	wide := []complex128{complex(3, -4), complex(1e300, 1e300), complex(-2, 0)}
	in128 := tensorOf(ops.Complex128, []int{3, 1}, wide)
	for _, c := range []struct {
		k    ops.Kernel
		want func(complex128) float64
	}{
		{NewReal(), func(v complex128) float64 { return real(v) }},
		{NewImag(), func(v complex128) float64 { return imag(v) }},
		{NewComplexAbs(), cmplx.Abs},
	} {
		n := node(nil, []*ops.Tensor{in128}, outTensor(ops.Float64))
		run(t, c.k, n)
		wantShape(t, n.Outputs[0].Shape, []int{3, 1})
		for i, v := range wide {
			if got, want := n.Outputs[0].Float64s()[i], c.want(v); got != want {
				t.Errorf("%T element %d of %v: %v, want %v", c.k, i, v, got, want)
			}
		}
	}
}

func TestRfft2dErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	dyn := tensorOf(ops.Int32, []int{2}, []int32{4, 4}) // not constant
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"rank 1", rfftNode(f32(8), 1, 8), []string{"rank 1"}},
		{"int32 input", rfftNode(tensorOf(ops.Int32, []int{4, 4}, make([]int32, 16)), 4, 4), []string{"input 0", "int32"}},
		{"length not pow2", rfftNode(f32(4, 4), 4, 6), []string{"fft_width 6", "power of two"}},
		{"height 0", rfftNode(f32(4, 4), 0, 4), []string{"fft_height", "power of two"}},
		{"width 1", rfftNode(f32(4, 4), 4, 1), []string{"fft_width 1", "at least 2"}},
		{"negative", rfftNode(f32(4, 4), 4, -8), []string{"fft_width"}},
		{"huge", rfftNode(f32(4, 4), 1<<30, 1<<30), []string{"fft_height", "not a power of two in"}},
		{"huge product", rfftNode(f32(4, 4), 1<<20, 1<<20), []string{"output 0", "elements"}},
		{"length shape", node(nil, []*ops.Tensor{f32(4, 4), c32(4, 4, 4)}, outTensor(ops.Complex64)), []string{"fft_length", "[2]"}},
		{"length type", node(nil, []*ops.Tensor{f32(4, 4), constT(tensorOf(ops.Int64, []int{2}, []int64{4, 4}))}, outTensor(ops.Complex64)), []string{"fft_length", "int64"}},
		{"dynamic length", node(nil, []*ops.Tensor{f32(4, 4), dyn}, outTensor(ops.Complex64)), []string{"input 1 (fft_length)", "must be a constant tensor"}},
		{"output type", node(nil, []*ops.Tensor{f32(4, 4), c32(4, 4)}, outTensor(ops.Float32)), []string{"output 0", "complex64"}},
		{"one input", node(nil, []*ops.Tensor{f32(4, 4)}, outTensor(ops.Complex64)), []string{"1 inputs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewRfft2d(), c.n, c.wants...) })
	}
	if err := NewRfft2d().Eval(rfftNode(f32(4, 4), 4, 4)); err == nil {
		t.Error("Eval without Prepare succeeded")
	}
	parts := []struct {
		name  string
		in    *ops.Tensor
		out   ops.DataType
		wants []string
	}{
		{"float input", f32(3), ops.Float32, []string{"input 0", "complex64 or complex128"}},
		{"c64 to f64", tensorOf(ops.Complex64, []int{2}, make([]complex64, 2)), ops.Float64, []string{"output 0", "float32"}},
		{"c128 to f32", tensorOf(ops.Complex128, []int{2}, make([]complex128, 2)), ops.Float32, []string{"output 0", "float64"}},
	}
	for _, c := range parts {
		for _, k := range []ops.Kernel{NewReal(), NewImag(), NewComplexAbs()} {
			wantPrepareError(t, k, node(nil, []*ops.Tensor{c.in}, outTensor(c.out)), c.wants...)
		}
	}
	wantPrepareError(t, NewReal(), node(nil, []*ops.Tensor{f32(1), f32(1)}, outTensor(ops.Float32)), "2 inputs")
}

// TestRealFFT checks the real transform against the complex one (zero
// imaginary parts) at lengths 2 to 2048.
func TestRealFFT(t *testing.T) {
	r := lcg(11)
	for n := 2; n <= 2048; n *= 2 {
		rf, err := newRealFFT(n)
		if err != nil {
			t.Fatal(err)
		}
		cf, _ := newFFT(n)
		x, re, im := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(r.float(-1, 1))
			re[i] = x[i]
		}
		cf.transform(re, im)
		zr, zi, out := make([]float64, n/2), make([]float64, n/2), make([]float64, n+2)
		rf.transform(x, zr, zi, out)
		for k := 0; k <= n/2; k++ {
			if d := math.Hypot(out[2*k]-re[k], out[2*k+1]-im[k]); d > 1e-13*float64(n) {
				t.Fatalf("n=%d bin %d: (%g, %g), want (%g, %g)", n, k, out[2*k], out[2*k+1], re[k], im[k])
			}
		}
	}
	for _, bad := range []int{0, 1, 3, maxFFTLength * 2} {
		if _, err := newRealFFT(bad); err == nil {
			t.Errorf("newRealFFT(%d) succeeded", bad)
		}
	}
}

// TestComplexAbsSplitOverThreads: COMPLEX_ABS of many elements (run's
// thread sweep splits them) gives each element its magnitude.
func TestComplexAbsSplitOverThreads(t *testing.T) {
	const cnt = 7*splitBlock + 5
	v64 := make([]complex64, cnt)
	v128 := make([]complex128, cnt)
	for i := range v64 {
		v64[i] = complex(float32(i)*0.5-100, float32(i%17)-8)
		v128[i] = complex(float64(i)*0.25-50, float64(i%13)*1e3)
	}
	n := node(nil, []*ops.Tensor{tensorOf(ops.Complex64, []int{cnt}, v64)}, outTensor(ops.Float32))
	run(t, NewComplexAbs(), n)
	for i, v := range v64 {
		re, im := float64(real(v)), float64(imag(v))
		if got, want := n.Outputs[0].Float32s()[i], float32(math.Sqrt(re*re+im*im)); got != want {
			t.Fatalf("complex64 element %d: %v, want %v", i, got, want)
		}
	}
	n = node(nil, []*ops.Tensor{tensorOf(ops.Complex128, []int{cnt}, v128)}, outTensor(ops.Float64))
	run(t, NewComplexAbs(), n)
	for i, v := range v128 {
		if got, want := n.Outputs[0].Float64s()[i], cmplx.Abs(v); got != want {
			t.Fatalf("complex128 element %d: %v, want %v", i, got, want)
		}
	}
}
