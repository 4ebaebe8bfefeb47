package quantize

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func TestQuantizeInt8PerTensorAndPerChannel(t *testing.T) {
	// Per tensor: max |w| = 2.54 → scale 0.02, values round half away
	// from zero and saturate at ±127.
	w := ir.FromFloat32s(ir.Shape{2, 3}, []float32{2.54, -2.54, 0.01, -0.01, 1.27, 0.03})
	q, quant, err := quantizeInt8(w, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(quant.Scale) != 1 || math.Abs(float64(quant.Scale[0])-0.02) > 1e-7 || quant.ZeroPoint[0] != 0 {
		t.Fatalf("quantization %+v, want scale 0.02 zero point 0", quant)
	}
	want := []int64{127, -127, 1, -1, 64, 2}
	for i, v := range q.Int64s() {
		if v != want[i] {
			t.Fatalf("q = %v, want %v", q.Int64s(), want)
		}
	}
	// Per channel along dimension 1 of [2, 3]: channel c holds elements
	// c and 3+c. A zero channel takes scale 1.
	w = ir.FromFloat32s(ir.Shape{2, 3}, []float32{1, 0, 4, -0.5, 0, 2})
	q, quant, err = quantizeInt8(w, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantScale := []float32{1.0 / 127, 1, 4.0 / 127}
	for c, s := range quant.Scale {
		if math.Abs(float64(s-wantScale[c])) > 1e-9 || quant.ZeroPoint[c] != 0 {
			t.Fatalf("scales %v zero points %v, want %v and zeros", quant.Scale, quant.ZeroPoint, wantScale)
		}
	}
	if quant.Dim != 1 {
		t.Fatalf("dimension %d, want 1", quant.Dim)
	}
	want = []int64{127, 0, 127, -64, 0, 64}
	for i, v := range q.Int64s() {
		if v != want[i] {
			t.Fatalf("q = %v, want %v", q.Int64s(), want)
		}
	}
	if _, _, err := quantizeInt8(ir.FromFloat32s(ir.Shape{2}, []float32{1, float32(math.NaN())}), -1); err == nil {
		t.Fatal("NaN weight quantised")
	}
}

func TestParseMode(t *testing.T) {
	for s, want := range map[string]Mode{"": None, "none": None, "dynamic": Dynamic, "dynamic_range": Dynamic, "float16": Float16, "fp16": Float16} {
		if m, err := ParseMode(s); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", s, m, err, want)
		}
	}
	if _, err := ParseMode("int4"); err == nil || !strings.Contains(err.Error(), "int4") {
		t.Errorf("ParseMode(int4) error %v", err)
	}
	// "int8" reads as full-integer quantisation, which is not what
	// dynamic does: refused with the difference explained.
	if _, err := ParseMode("int8"); err == nil || !strings.Contains(err.Error(), "full-integer") || !strings.Contains(err.Error(), "dynamic") {
		t.Errorf("ParseMode(int8) error %v", err)
	}
}

// fn builds a function around one TFLite operator whose inputs are x (a
// float32 parameter of shape xs) followed by the given constants.
func fn(op schema.BuiltinOperator, opts any, xs ir.Shape, out ir.Shape, consts ...*ir.Tensor) (*ir.Function, *ir.Node) {
	f := ir.NewFunction("f", nil)
	ins := []*ir.Value{f.AddParam("x", ir.Float32, xs)}
	for i, c := range consts {
		if c == nil {
			ins = append(ins, nil)
			continue
		}
		ins = append(ins, f.NewConst("w"+string(rune('0'+i)), c))
	}
	var o *schema.BuiltinOptionsT
	switch v := opts.(type) {
	case *schema.FullyConnectedOptionsT:
		o = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: v}
	case *schema.UnidirectionalSequenceLSTMOptionsT:
		o = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions, Value: v}
	case *schema.DepthwiseConv2DOptionsT:
		o = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions, Value: v}
	}
	n := f.NewTFL("op", &ir.TFLOp{Builtin: op, Version: 1, Options: o}, ins, ir.TypeShape{DType: ir.Float32, Shape: out})
	f.Results = []*ir.Value{n.Outputs[0]}
	f.ResultNames = []string{"y"}
	return f, n
}

func ones(s ir.Shape) *ir.Tensor {
	k, _ := s.NumElements()
	v := make([]float32, k)
	for i := range v {
		v[i] = float32(i%7) - 3
	}
	return ir.FromFloat32s(s, v)
}

func TestDynamicVersionsAndOptions(t *testing.T) {
	cases := []struct {
		name    string
		legacy  bool
		keep    bool
		want    int32
		scales  int
		asymOpt bool
	}{
		{"per-channel asymmetric", false, false, 12, 32, true},
		{"legacy per-tensor symmetric", true, false, 3, 1, false},
		{"legacy keep_num_dims", true, true, 5, 1, false},
	}
	for _, c := range cases {
		o := &schema.FullyConnectedOptionsT{KeepNumDims: c.keep}
		f, n := fn(schema.BuiltinOperatorFULLY_CONNECTED, o, ir.Shape{1, 64}, ir.Shape{1, 32}, ones(ir.Shape{32, 64}), ones(ir.Shape{32}))
		sum, err := Apply(f, Options{Mode: Dynamic, Legacy: c.legacy})
		if err != nil {
			t.Fatal(err)
		}
		w := n.Inputs[1]
		if w.DType != ir.Int8 || w.Quant == nil || len(w.Quant.Scale) != c.scales {
			t.Fatalf("%s: weights %v quant %+v", c.name, w, w.Quant)
		}
		if n.Inputs[2].DType != ir.Float32 {
			t.Errorf("%s: bias became %s", c.name, n.Inputs[2].DType)
		}
		if n.TFL.Version != c.want || o.AsymmetricQuantizeInputs != c.asymOpt {
			t.Errorf("%s: version %d asymmetric %v, want %d %v", c.name, n.TFL.Version, o.AsymmetricQuantizeInputs, c.want, c.asymOpt)
		}
		if len(sum.Weights) != 1 || sum.BytesBefore != 4*32*64 || sum.BytesAfter != 32*64 {
			t.Errorf("%s: summary %+v", c.name, sum)
		}
	}
}

func TestDepthwiseThroughDequantize(t *testing.T) {
	o := &schema.DepthwiseConv2DOptionsT{DepthMultiplier: 1, StrideW: 1, StrideH: 1}
	f, n := fn(schema.BuiltinOperatorDEPTHWISE_CONV_2D, o, ir.Shape{1, 4, 4, 128}, ir.Shape{1, 2, 2, 128}, ones(ir.Shape{1, 3, 3, 128}), ones(ir.Shape{128}))
	if _, err := Apply(f, Options{Mode: Dynamic}); err != nil {
		t.Fatal(err)
	}
	dq := n.Inputs[1].Producer
	if dq == nil || dq.TFL == nil || dq.TFL.Builtin != schema.BuiltinOperatorDEQUANTIZE || dq.TFL.Version != 5 {
		t.Fatalf("filter comes from %v, want a per-channel DEQUANTIZE v5", dq)
	}
	q := dq.Inputs[0]
	if q.DType != ir.Int8 || len(q.Quant.Scale) != 128 || q.Quant.Dim != 3 {
		t.Fatalf("dequantized tensor %v %+v, want int8 per channel along 3", q, q.Quant)
	}
	if n.TFL.Version != 1 {
		t.Errorf("the depthwise convolution stays float (version %d)", n.TFL.Version)
	}
}

// lstm builds a UNIDIRECTIONAL_SEQUENCE_LSTM with nCell cells over nIn
// inputs (weights as constants, no peepholes or projection).
func lstm(nIn, nCell int) (*ir.Function, *ir.Node) {
	c := make([]*ir.Tensor, 23)
	for g := 0; g < 4; g++ {
		c[g] = ones(ir.Shape{nCell, nIn})
		c[4+g] = ones(ir.Shape{nCell, nCell})
		c[11+g] = ones(ir.Shape{nCell})
	}
	o := &schema.UnidirectionalSequenceLSTMOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeTANH}
	return fn(schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, o, ir.Shape{1, 3, nIn}, ir.Shape{1, 3, nCell}, c...)
}

func TestLSTMAllOrNothing(t *testing.T) {
	// 40×40 recurrent weights (1600) and 40×30 input weights (1200): all
	// qualify.
	f, n := lstm(30, 40)
	sum, err := Apply(f, Options{Mode: Dynamic})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 8; i++ {
		if w := n.Inputs[i]; w.DType != ir.Int8 || len(w.Quant.Scale) != 1 {
			t.Fatalf("weight %d is %v, want int8 per tensor", i, w)
		}
	}
	if n.TFL.Version != 3 || len(sum.Weights) != 8 {
		t.Fatalf("version %d, %d weights; want the asymmetric hybrid LSTM (3) with 8 int8 weights", n.TFL.Version, len(sum.Weights))
	}
	// 20×20 recurrent weights (400) fall below the threshold: nothing is
	// quantised, and the summary says why.
	f, n = lstm(64, 20)
	sum, err = Apply(f, Options{Mode: Dynamic})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 8; i++ {
		if n.Inputs[i].DType != ir.Float32 {
			t.Fatalf("weight %d quantised although the recurrent weights are too small", i)
		}
	}
	if len(sum.Skipped) != 1 || !strings.Contains(sum.Skipped[0], "400 elements") || n.TFL.Version != 1 {
		t.Fatalf("skipped %v version %d", sum.Skipped, n.TFL.Version)
	}
}

func TestFloat16(t *testing.T) {
	o := &schema.FullyConnectedOptionsT{}
	big := ones(ir.Shape{4, 8})
	vals := big.Float32s()
	vals[0] = 1e6 // beyond float16: clamped to 65504
	f, n := fn(schema.BuiltinOperatorFULLY_CONNECTED, o, ir.Shape{1, 8}, ir.Shape{1, 4}, ir.FromFloat32s(big.Shape, vals), ones(ir.Shape{4}))
	sum, err := Apply(f, Options{Mode: Float16})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 2} {
		dq := n.Inputs[i].Producer
		if dq == nil || dq.TFL == nil || dq.TFL.Builtin != schema.BuiltinOperatorDEQUANTIZE || dq.TFL.Version != 3 || dq.Inputs[0].DType != ir.Float16 {
			t.Fatalf("input %d comes from %v, want a float16 DEQUANTIZE v3", i, dq)
		}
	}
	if got := n.Inputs[1].Producer.Inputs[0].Const.Float32s()[0]; got != 65504 {
		t.Errorf("1e6 stored as %v, want 65504", got)
	}
	if n.TFL.Version != 1 || len(sum.Weights) != 2 {
		t.Errorf("version %d, %d tensors", n.TFL.Version, len(sum.Weights))
	}
	// The LSTM's weights go through float16 too, as in TFLite's float16
	// quantisation (the interpreter dequantizes them before the LSTM's
	// Prepare packs them).
	f, n = lstm(30, 40)
	if _, err := Apply(f, Options{Mode: Float16}); err != nil {
		t.Fatal(err)
	}
	if dq := n.Inputs[1].Producer; dq == nil || dq.TFL == nil || dq.TFL.Builtin != schema.BuiltinOperatorDEQUANTIZE || dq.Inputs[0].DType != ir.Float16 {
		t.Errorf("LSTM weight %v comes from %v, want a float16 DEQUANTIZE", n.Inputs[1], dq)
	}
}

func TestNonFiniteWeightNamed(t *testing.T) {
	w := ones(ir.Shape{32, 64})
	v := w.Float32s()
	v[5] = float32(math.Inf(1))
	f, _ := fn(schema.BuiltinOperatorFULLY_CONNECTED, &schema.FullyConnectedOptionsT{}, ir.Shape{1, 64}, ir.Shape{1, 32}, ir.FromFloat32s(w.Shape, v))
	_, err := Apply(f, Options{Mode: Dynamic})
	if err == nil || !strings.Contains(err.Error(), `"op"`) || !strings.Contains(err.Error(), "operand 1") || !strings.Contains(err.Error(), "element 5") {
		t.Fatalf("err = %v, want the operator, operand and element named", err)
	}
}

// TestDynamicSaysWhatStaysFloat checks that the summary names each
// weight dynamic-range quantisation leaves float32 and why: a dense
// weight below the element threshold, and a GRU whose candidate weight
// is below it (a large one is quantised per row).
func TestDynamicSaysWhatStaysFloat(t *testing.T) {
	f, n := fn(schema.BuiltinOperatorFULLY_CONNECTED, &schema.FullyConnectedOptionsT{}, ir.Shape{1, 8}, ir.Shape{1, 4}, ones(ir.Shape{4, 8}), ones(ir.Shape{4}))
	sum, err := Apply(f, Options{Mode: Dynamic})
	if err != nil {
		t.Fatal(err)
	}
	if n.Inputs[1].DType != ir.Float32 || len(sum.Weights) != 0 {
		t.Fatalf("a 32-element weight was quantised: %v", sum.Weights)
	}
	if len(sum.Skipped) != 1 || !strings.Contains(sum.Skipped[0], `"op"`) || !strings.Contains(sum.Skipped[0], "operand 1") || !strings.Contains(sum.Skipped[0], "32 elements, fewer than 1024") {
		t.Fatalf("skipped %q, want the small dense weight named with its size", sum.Skipped)
	}
	if d := sum.Describe(); !strings.Contains(d, "1 left float32:\n  ") {
		t.Errorf("Describe() = %q, want the weight left float listed", d)
	}

	// tflrun's GRU: gate and candidate weights int8 per row when both
	// reach the threshold, both float32 (and said) when one does not.
	gru := func(units, nIn int) (*ir.Function, *ir.Node) {
		f := ir.NewFunction("f", nil)
		x := f.AddParam("x", ir.Float32, ir.Shape{5, 1, nIn})
		st := f.NewConst("state", ones(ir.Shape{1, units}))
		st.IsVariableTensor = true
		W := nIn + units
		in := []*ir.Value{x, st, f.NewConst("gate_kernel", ones(ir.Shape{2 * units, W})), f.NewConst("gate_bias", ones(ir.Shape{2 * units})),
			f.NewConst("cand_kernel", ones(ir.Shape{units, W})), f.NewConst("cand_bias", ones(ir.Shape{units}))}
		g := f.NewTFL("gru", &ir.TFLOp{Builtin: schema.BuiltinOperatorCUSTOM, Custom: "UNIDIRECTIONAL_SEQUENCE_GRU", Version: 1}, in,
			ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{5, 1, units}}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{1, units}})
		f.Results = []*ir.Value{g.Outputs[0]}
		f.ResultNames = []string{"y"}
		return f, g
	}
	f, g := gru(32, 16) // 3072 and 1536 elements
	sum, err = Apply(f, Options{Mode: Dynamic})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{2, 4} {
		if v := g.Inputs[i]; v.DType != ir.Int8 || v.Quant == nil || len(v.Quant.Scale) != v.Shape[0] {
			t.Fatalf("GRU operand %d is %s with %v, want int8 per row", i, v.DType, v.Quant)
		}
	}
	if g.Inputs[3].DType != ir.Float32 || g.Inputs[1].DType != ir.Float32 || len(sum.Skipped) != 0 {
		t.Fatalf("biases or state quantised, or skipped %q", sum.Skipped)
	}
	f, g = gru(16, 16) // 1024 and 512 elements
	sum, err = Apply(f, Options{Mode: Dynamic})
	if err != nil {
		t.Fatal(err)
	}
	if g.Inputs[2].DType != ir.Float32 || g.Inputs[4].DType != ir.Float32 {
		t.Fatalf("a GRU with a 512-element weight was quantised")
	}
	if len(sum.Skipped) != 1 || !strings.Contains(sum.Skipped[0], `operand 4 ("cand_kernel") has 512 elements, fewer than 1024, and the operator's weights must all be quantised or none`) {
		t.Fatalf("skipped %q, want the small candidate weight named", sum.Skipped)
	}
}
