package builtin

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// Tests of the custom NumericVerify operator: the cases of TFLite's
// numeric_verify_test.cc (passing uint8, int8, float16 and int16
// inputs, a failing int8 element, the debug mode's differences), random
// tensors against a float64 reference of the differences and statistics,
// per-channel and unquantised inputs, the constant-input caching, and the
// refusals.

func numericVerifyOptions(t *testing.T, tol float32, logFailed bool) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("tolerance")
	b.Float32(tol)
	b.Key("log_if_failed")
	b.Bool(logFailed)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

func nvNode(opts []byte, in, ref *ops.Tensor) *ops.Node {
	n := node(nil, []*ops.Tensor{in, ref}, outTensor(ops.Float32))
	n.CustomOptions = opts
	return n
}

// nvEval prepares and evaluates, returning Eval's error.
func nvEval(t *testing.T, k ops.Kernel, n *ops.Node) error {
	t.Helper()
	if err := prepare(k, n); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return k.Eval(n)
}

var nvRef = []float32{-63.5, -63, -62.5, -62, -61.5, 62, 62.5, 63, 63.5, 64}

func TestNumericVerifyTFLiteVectors(t *testing.T) {
	opts := numericVerifyOptions(t, 5, true)
	// Uint8, scale 0.5, zero point 127.
	u := q(tensorOf(ops.Uint8, []int{2, 5}, []uint8{0, 1, 2, 3, 4, 251, 252, 253, 254, 255}), 0.5, 127)
	n := nvNode(opts, u, tensorOf(ops.Float32, []int{2, 5}, nvRef))
	run(t, NewNumericVerify(), n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 5})
	// Int8, scale 0.5, zero point −1.
	i8 := func(v ...int8) *ops.Tensor { return q(tensorOf(ops.Int8, []int{2, 5}, v), 0.5, -1) }
	n = nvNode(opts, i8(-128, -127, -126, -125, -124, 123, 124, 125, 126, 127), tensorOf(ops.Float32, []int{2, 5}, nvRef))
	run(t, NewNumericVerify(), n)
	for i, v := range n.Outputs[0].Float32s() {
		if v != 0 {
			t.Fatalf("int8 element %d: difference %v, want 0", i, v)
		}
	}
	// Float16 with tolerance 0.1 (its scale, 1, as the test sets it).
	ref16 := []float32{-535.54, -100, -1, 0, 1, 100.32}
	h := q(tensorOf(ops.Float16, []int{2, 3}, halves(ref16...)), 1, 0)
	n = nvNode(numericVerifyOptions(t, 0.1, true), h, tensorOf(ops.Float32, []int{2, 3}, ref16))
	run(t, NewNumericVerify(), n)
	// Int16, scale 0.5, zero point −1.
	s16 := q(tensorOf(ops.Int16, []int{2, 5}, []int16{-130, -127, -126, -125, -124, 123, 124, 125, 126, 130}), 0.5, -1)
	n = nvNode(opts, s16, tensorOf(ops.Float32, []int{2, 5}, []float32{-64.5, -63, -62.5, -62, -61.5, 62, 62.5, 63, 63.5, 65.5}))
	run(t, NewNumericVerify(), n)
	// The failing element: 0 dequantises to 0.5, 61.5 away from 62.
	bad := i8(-128, -127, -126, -125, -124, 0, 124, 125, 126, 127)
	err := nvEval(t, NewNumericVerify(), nvNode(opts, bad, tensorOf(ops.Float32, []int{2, 5}, nvRef)))
	if err == nil || !strings.Contains(err.Error(), "Mismatch: 62.000000 is quantized to 0 with (0.500000, -1). abs(62.000000 - 0.500000) = 61.500000 > 2.500000 (tolerance)") {
		t.Fatalf("failing int8: %v", err)
	}
	// Debug mode: the differences, no error.
	k := NewNumericVerify().(*NumericVerify)
	n = nvNode(numericVerifyOptions(t, 5, false), bad, tensorOf(ops.Float32, []int{2, 5}, nvRef))
	run(t, k, n)
	if err := k.Eval(n); err != nil { // run ends with a fresh Prepare
		t.Fatal(err)
	}
	want := []float32{0, 0, 0, 0, 0, -61.5, 0, 0, 0, 0}
	for i, v := range n.Outputs[0].Float32s() {
		if v != want[i] {
			t.Fatalf("debug mode: %v, want %v", n.Outputs[0].Float32s(), want)
		}
	}
	if s := k.Stats; s.Mean != -6.15 || s.MaxDiff != 61.5 || math.Abs(s.Std-18.45) > 1e-12 || s.Scale != 0.5 || s.ZeroPoint != -1 {
		t.Fatalf("debug statistics %+v, want mean -6.15, max 61.5, std 18.45", s)
	}
	noAllocs(t, k, n)
}

func TestNumericVerifyAgainstReference(t *testing.T) {
	r := lcg(9)
	types := []ops.DataType{ops.Uint8, ops.Int8, ops.Int16, ops.Float16}
	for c := 0; c < 200; c++ {
		typ := types[c%4]
		cnt := r.intn(0, 50)
		scale := r.float(0.001, 2)
		zp := int64(r.intn(-20, 20))
		if typ == ops.Uint8 {
			zp += 128
		}
		raw := make([]byte, cnt*typ.Size())
		for i := range raw {
			raw[i] = byte(r.next())
		}
		if typ == ops.Float16 {
			for i := 0; i < cnt; i++ {
				h := float32ToHalf(r.float(-1000, 1000))
				raw[2*i], raw[2*i+1] = byte(h), byte(h>>8)
			}
		}
		in := q(tensorOf(typ, []int{cnt}, raw), scale, zp)
		in.Data = in.Data[:len(raw)]
		ref := make([]float32, cnt+r.intn(0, 3)) // a longer reference is read in part
		for i := range ref {
			ref[i] = r.float(-300, 300)
		}
		k := NewNumericVerify().(*NumericVerify)
		n := nvNode(numericVerifyOptions(t, r.float(0, 0.5), false), in, tensorOf(ops.Float32, []int{len(ref)}, ref))
		run(t, k, n)
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		got := n.Outputs[0].Float32s()
		sum := 0.0
		d := make([]float64, cnt)
		for i := 0; i < cnt; i++ {
			var deq float32
			switch typ {
			case ops.Float16:
				deq = float32(refHalfValue(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8))
			case ops.Uint8:
				deq = float32(float64(scale) * float64(int64(raw[i])-zp))
			case ops.Int8:
				deq = float32(float64(scale) * float64(int64(int8(raw[i]))-zp))
			default:
				deq = float32(float64(scale) * float64(int64(int16(uint16(raw[2*i])|uint16(raw[2*i+1])<<8))-zp))
			}
			w := deq - ref[i]
			if math.Float32bits(got[i]) != math.Float32bits(w) {
				t.Fatalf("case %d %s: element %d = %v, want %v", c, typ, i, got[i], w)
			}
			d[i] = float64(w)
			sum += d[i]
		}
		if cnt == 0 {
			if !math.IsNaN(k.Stats.Mean) {
				t.Fatalf("empty: mean %v, want NaN (0/0)", k.Stats.Mean)
			}
			continue
		}
		mean := sum / float64(cnt)
		mx, sq := 0.0, 0.0
		for _, v := range d {
			mx = math.Max(mx, math.Abs(v))
			sq += (v - mean) * (v - mean)
		}
		if k.Stats.Mean != mean || k.Stats.MaxDiff != mx || math.Abs(k.Stats.Std-math.Sqrt(sq/float64(cnt))) > 1e-9*(1+mx) {
			t.Fatalf("case %d: statistics %+v, want mean %v max %v std %v", c, k.Stats, mean, mx, math.Sqrt(sq/float64(cnt)))
		}
	}
}

func TestNumericVerifyQuantisationForms(t *testing.T) {
	// Per-channel int8 along dimension 1: scale_c·float(q − zp_c) in
	// float32, and the check's scale is 0 (TFLite's legacy parameters), so
	// any difference fails it.
	in := tensorOf(ops.Int8, []int{2, 2}, []int8{10, 10, -4, 7})
	in.Quant = &ops.Quantization{Scale: []float32{0.1, 0.3}, ZeroPoint: []int64{0, 1}, QuantizedDimension: 1}
	ref := tensorOf(ops.Float32, []int{4}, []float32{1, 2.7, -0.4, 1.8})
	n := nvNode(numericVerifyOptions(t, 1, false), in, ref)
	run(t, NewNumericVerify(), n)
	want := []float32{float32(0.1)*10 - 1, float32(0.3)*9 - 2.7, float32(0.1)*-4 - -0.4, float32(0.3)*6 - 1.8}
	for i, v := range n.Outputs[0].Float32s() {
		if v != want[i] {
			t.Fatalf("per-channel: %v, want %v", n.Outputs[0].Float32s(), want)
		}
	}
	err := nvEval(t, NewNumericVerify(), nvNode(numericVerifyOptions(t, 1, true), in, tensorOf(ops.Float32, []int{4}, []float32{1, 2.8, -0.4, 1.8})))
	if err == nil || !strings.Contains(err.Error(), "with (0.000000, 0)") {
		t.Fatalf("per-channel check: %v", err)
	}
	// One zero point for all channels.
	in.Quant.ZeroPoint = []int64{2}
	n = nvNode(numericVerifyOptions(t, 1, false), in, ref)
	run(t, NewNumericVerify(), n)
	if got := n.Outputs[0].Float32s()[1]; got != float32(0.3)*8-2.7 {
		t.Fatalf("broadcast zero point: %v", got)
	}
	// No quantisation: scale 0, so every value dequantises to 0.
	n = nvNode(numericVerifyOptions(t, 1, false), tensorOf(ops.Uint8, []int{2}, []uint8{5, 200}), tensorOf(ops.Float32, []int{2}, []float32{1, -2}))
	run(t, NewNumericVerify(), n)
	if got := n.Outputs[0].Float32s(); got[0] != -1 || got[1] != 2 {
		t.Fatalf("unquantised: %v, want [-1 2]", got)
	}
	// tolerance below 0.1 with log_if_failed only summarises.
	err = nvEval(t, NewNumericVerify(), nvNode(numericVerifyOptions(t, 0.09, true), q(tensorOf(ops.Int8, []int{1}, []int8{0}), 1, 0), tensorOf(ops.Float32, []int{1}, []float32{100})))
	if err != nil {
		t.Fatalf("tolerance 0.09: %v", err)
	}
	// A NaN difference never fails the check (NaN > x is false).
	err = nvEval(t, NewNumericVerify(), nvNode(numericVerifyOptions(t, 1, true), q(tensorOf(ops.Int8, []int{1}, []int8{0}), 1, 0), tensorOf(ops.Float32, []int{1}, []float32{float32(math.NaN())})))
	if err != nil {
		t.Fatalf("NaN reference: %v", err)
	}
}

func TestNumericVerifyConstantInput(t *testing.T) {
	in := constT(q(tensorOf(ops.Int8, []int{2}, []int8{4, 6}), 0.5, 0))
	ref := tensorOf(ops.Float32, []int{2}, []float32{1, 1})
	k := NewNumericVerify()
	n := nvNode(numericVerifyOptions(t, 1, false), in, ref)
	if err := nvEval(t, k, n); err != nil {
		t.Fatal(err)
	}
	// A later Eval returns at once: the output stays the first one's,
	// whatever the reference holds now (and even if the buffer was
	// overwritten, as an arena may).
	copy(ref.Float32s(), []float32{9, 9})
	n.Outputs[0].Float32s()[0] = 123
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	if got := n.Outputs[0].Float32s(); got[0] != 1 || got[1] != 2 {
		t.Fatalf("constant input, second Eval: %v, want [1 2]", got)
	}
	// A failing first Eval sets the flag too: the second succeeds.
	k = NewNumericVerify()
	n = nvNode(numericVerifyOptions(t, 1, true), in, tensorOf(ops.Float32, []int{2}, []float32{0, 3}))
	if err := nvEval(t, k, n); err == nil {
		t.Fatal("first Eval passed, want a mismatch")
	}
	if err := k.Eval(n); err != nil {
		t.Fatalf("second Eval of a constant input: %v", err)
	}
}

func TestNumericVerifyErrors(t *testing.T) {
	opts := numericVerifyOptions(t, 1, true)
	i8 := func() *ops.Tensor { return q(tensorOf(ops.Int8, []int{2}, []int8{1, 2}), 0.5, 0) }
	f := func(n int) *ops.Tensor { return tensorOf(ops.Float32, []int{n}, make([]float32, n)) }
	pc := i8()
	pc.Quant = &ops.Quantization{Scale: []float32{1, 2, 3}, ZeroPoint: []int64{0, 0, 0}}
	i16pc := tensorOf(ops.Int16, []int{2}, []int16{1, 2})
	i16pc.Quant = &ops.Quantization{Scale: []float32{1, 2}, ZeroPoint: []int64{0, 0}}
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"no options", nvNode(nil, i8(), f(2)), []string{"custom_options", "missing"}},
		{"garbage options", nvNode([]byte{0xff, 0, 9}, i8(), f(2)), []string{"custom_options"}},
		{"one input", func() *ops.Node { n := nvNode(opts, i8(), f(2)); n.Inputs = n.Inputs[:1]; return n }(), []string{"input"}},
		{"float32 input", nvNode(opts, f(2), f(2)), []string{"input 0", "float32"}},
		{"int8 reference", nvNode(opts, i8(), i8()), []string{"input 1", "int8"}},
		{"short reference", nvNode(opts, i8(), f(1)), []string{"input 1", "1 elements"}},
		{"output type", func() *ops.Node { n := nvNode(opts, i8(), f(2)); n.Outputs[0].Type = ops.Int8; return n }(), []string{"output 0", "int8"}},
		{"per-channel count", nvNode(opts, pc, f(2)), []string{"input 0", "3 scales"}},
		{"per-channel int16", nvNode(opts, i16pc, f(2)), []string{"input 0", "per-channel int16"}},
		{"overflowing shape", nvNode(opts, &ops.Tensor{Type: ops.Int8, Shape: []int{1 << 30, 1 << 30, 1 << 30}}, f(2)), []string{"input 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewNumericVerify(), c.n, c.wants...) })
	}
	n := nvNode(opts, i8(), f(2))
	k := NewNumericVerify()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	n.Inputs[1].Data = n.Inputs[1].Data[:4]
	if err := k.Eval(n); err == nil {
		t.Fatal("Eval with a short reference succeeded")
	}
}

func TestNumericVerifyCheckingMode(t *testing.T) {
	r := lcg(21)
	for c := 0; c < 200; c++ {
		cnt := r.intn(1, 30)
		scale := r.float(0.01, 1)
		x := make([]int8, cnt)
		ref := make([]float32, cnt)
		for i := range x {
			x[i] = int8(r.intn(-128, 127))
			ref[i] = float32(float64(scale)*float64(x[i])) + r.float(-0.02, 0.02)*float32(cnt/10)
		}
		tol := r.float(0.1, 3)
		n := nvNode(numericVerifyOptions(t, tol, true), q(tensorOf(ops.Int8, []int{cnt}, x), scale, 0), tensorOf(ops.Float32, []int{cnt}, ref))
		err := nvEval(t, NewNumericVerify(), n)
		first := -1
		for i := range x {
			d := float32(float64(scale)*float64(x[i])) - ref[i]
			if float32(math.Abs(float64(d))) > tol*scale {
				first = i
				break
			}
		}
		if (err != nil) != (first >= 0) {
			t.Fatalf("case %d: error %v, first mismatch %d", c, err, first)
		}
		if first >= 0 && !strings.Contains(err.Error(), "Mismatch") {
			t.Fatalf("case %d: %v", c, err)
		}
	}
}
