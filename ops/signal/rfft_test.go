package signal_test

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestRfftImpulse: the transform of an impulse is flat. For int16 and
// int32 kissfft scales by 1/fft_length (16384/64 = 256 in every bin, as
// TFLite Micro's RfftTestLength64 goldens say); for float32 it does not.
func TestRfftImpulse(t *testing.T) {
	for _, c := range []struct {
		typ  ops.DataType
		code int
	}{{ops.Int16, 7}, {ops.Int32, 2}, {ops.Float32, 0}} {
		t.Run(c.typ.String(), func(t *testing.T) {
			var in *ops.Tensor
			switch c.typ {
			case ops.Int16:
				in = tensorOf(c.typ, []int{1, 64}, append([]int16{16384}, make([]int16, 63)...))
			case ops.Int32:
				in = tensorOf(c.typ, []int{1, 64}, append([]int32{16384}, make([]int32, 63)...))
			default:
				in = tensorOf(c.typ, []int{1, 64}, append([]float32{16384}, make([]float32, 63)...))
			}
			n := node(signal.RfftName, opts(t, "T", c.code, "fft_length", 64), []*ops.Tensor{in}, c.typ)
			mustRun(t, signal.NewRfft(), n)
			out := n.Outputs[0]
			if s := out.Shape; len(s) != 2 || s[1] != 66 {
				t.Fatalf("output shape %v, want [1 66]", s)
			}
			want := 256.0
			if c.typ == ops.Float32 {
				want = 16384
			}
			for i := 0; i < 66; i++ {
				var got float64
				switch c.typ {
				case ops.Int16:
					got = float64(out.Int16s()[i])
				case ops.Int32:
					got = float64(out.Int32s()[i])
				default:
					got = float64(out.Float32s()[i])
				}
				w := want
				if i%2 == 1 {
					w = 0
				}
				if got != w {
					t.Fatalf("value %d = %g, want %g", i, got, w)
				}
			}
		})
	}
}

// TestRfftSine: a cosine of amplitude A at bin 5 of a 256-point int16
// FFT puts A/2 in bin 5 (the DFT's A·N/2 scaled by 1/N) and about nothing
// elsewhere, within 8 (the fixed point's rounding).
func TestRfftSine(t *testing.T) {
	x := make([]int16, 256)
	for i := range x {
		x[i] = int16(math.Round(20000 * math.Cos(2*math.Pi*5*float64(i)/256)))
	}
	n := node(signal.RfftName, opts(t, "T", 7, "fft_length", 256), []*ops.Tensor{tensorOf(ops.Int16, []int{256}, x)}, ops.Int16)
	mustRun(t, signal.NewRfft(), n)
	y := n.Outputs[0].Int16s()
	for b := 0; b <= 128; b++ {
		re, im := float64(y[2*b]), float64(y[2*b+1])
		want := 0.0
		if b == 5 {
			want = 10000
		}
		if math.Abs(re-want) > 8 || math.Abs(im) > 8 {
			t.Fatalf("bin %d = (%g, %g), want (%g, 0) within 8", b, re, im, want)
		}
	}
}

var tflmToleranceRE = regexp.MustCompile(`output,\s*([^()]+?)\)\);`)

// TestFFTTFLM replays TFLite Micro's fft_test.cc: RFFT and IRFFT of the
// three types, lengths 64 and 512 (the 512-point data from
// signal/testdata/fft_test_data.cc), and FftAutoScale, with the tolerances
// the tests allow (absolute, for float32; exact for int32; TFLite Micro
// allows 3 for the int16 RFFT of length 512, which tflrun meets exactly,
// checked too).
func TestFFTTFLM(t *testing.T) {
	c := loadTFLMCase(t, "fft_test.cc", "fft_flexbuffers_generated_data.cc")
	shared := cArrays(string(tflmFile(t, "signal/testdata/fft_test_data.cc")))
	for _, ct := range c.tests {
		t.Run(ct.name, func(t *testing.T) {
			arr := func(name string, ref int) []string {
				if a, ok := ct.arrays[name]; ok {
					return a
				}
				if ref >= len(ct.refs) {
					t.Fatalf("no array %s", name)
				}
				a, ok := shared[ct.refs[ref]]
				if !ok {
					t.Fatalf("no shared array %s", ct.refs[ref])
				}
				return a
			}
			if strings.Contains(ct.body, "FFT_AUTO_SCALE") {
				in := arr("input", 0)
				golden := values[int16](t, arr("golden", 1))
				shape := shapeOf(t, ct.array(t, "shape"))
				n := node(signal.FftAutoScaleName, nil, []*ops.Tensor{tensorOf(ops.Int16, shape, values[int16](t, in)[:shape[0]])}, ops.Int16, ops.Int32)
				mustRun(t, signal.NewFftAutoScale(), n)
				expectEqual(t, "output", n.Outputs[0].Int16s(), golden[:shape[0]])
				expectEqual(t, "scale_bits", n.Outputs[1].Int32s(), values[int32](t, ct.array(t, "scale_bit_golden")))
				return
			}
			var typ ops.DataType
			switch {
			case strings.HasSuffix(ct.flex, "_int16"):
				typ = ops.Int16
			case strings.HasSuffix(ct.flex, "_int32"):
				typ = ops.Int32
			default:
				typ = ops.Float32
			}
			name, newK := signal.RfftName, signal.NewRfft
			if strings.Contains(ct.body, "IRFFT") {
				name, newK = signal.IrfftName, signal.NewIrfft
			}
			shape := shapeOf(t, ct.array(t, "input_shape"))
			count := 1
			for _, d := range shape {
				count *= d
			}
			in, golden := arr("input", 0), arr("golden", 1)
			tol := 0.0
			if m := tflmToleranceRE.FindStringSubmatch(ct.body); m != nil {
				tok := strings.TrimSpace(m[1])
				if v, ok := ct.arrays[tok]; ok {
					tok = v[0]
				}
				tol = parseFloat(t, tok)
			}
			var tensor *ops.Tensor
			switch typ {
			case ops.Int16:
				tensor = tensorOf(typ, shape, values[int16](t, in)[:count])
			case ops.Int32:
				tensor = tensorOf(typ, shape, values[int32](t, in)[:count])
			default:
				tensor = tensorOf(typ, shape, values[float32](t, in)[:count])
			}
			n := node(name, c.options(t, ct), []*ops.Tensor{tensor}, typ)
			mustRun(t, newK(), n)
			out := n.Outputs[0]
			var worst float64
			switch typ {
			case ops.Int16:
				worst = expectNear(t, "output", out.Int16s(), values[int16](t, golden)[:out.NumElements()], tol)
			case ops.Int32:
				worst = expectNear(t, "output", out.Int32s(), values[int32](t, golden)[:out.NumElements()], tol)
			default:
				g := values[float32](t, golden)[:out.NumElements()]
				worst = expectNear(t, "output", out.Float32s(), g, tol)
				t.Logf("float32: largest difference %g (TFLite Micro's tolerance %g)", worst, tol)
			}
			if typ != ops.Float32 && worst != 0 {
				t.Errorf("off by up to %g (within TFLite Micro's tolerance %g, but not exact)", worst, tol)
			}
		})
	}
}

// BenchmarkRfft measures one 512-point RFFT of 480 samples, the
// micro_speech front end's, per type.
func BenchmarkRfft(b *testing.B) {
	for _, c := range []struct {
		typ  ops.DataType
		code int
	}{{ops.Int16, 7}, {ops.Int32, 2}, {ops.Float32, 0}} {
		b.Run(c.typ.String(), func(b *testing.B) {
			var in *ops.Tensor
			switch c.typ {
			case ops.Int16:
				x := make([]int16, 480)
				for i := range x {
					x[i] = int16(i*7919%4001 - 2000)
				}
				in = tensorOf(c.typ, []int{480}, x)
			case ops.Int32:
				in = tensorOf(c.typ, []int{480}, make([]int32, 480))
			default:
				in = tensorOf(c.typ, []int{480}, make([]float32, 480))
			}
			n := node(signal.RfftName, opts(b, "T", c.code, "fft_length", 512), []*ops.Tensor{in}, c.typ)
			k := signal.NewRfft()
			if err := prepare(k, n); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := k.Eval(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
