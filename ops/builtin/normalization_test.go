package builtin

import (
	"math"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Tests of L2_NORMALIZATION, L2_POOL_2D, LOCAL_RESPONSE_NORMALIZATION and
// GELU: TFLite's kernel test vectors (l2norm_test.cc, pooling_test.cc,
// local_response_norm_test.cc, activations_test.cc), the kernels against
// their definitions on random data, the options decoders and the nodes
// TFLite refuses. The recorded TensorFlow Lite outputs are checked in
// normalization_golden_test.go.

// tfliteTestQuant is SingleOpModel's quantisation from a [min, max]
// range: scale (max−min)/(qmax−qmin), zero point rounded half away from
// zero.
func tfliteTestQuant(lo, hi float64, qmin, qmax int) (float32, int64) {
	scale := (hi - lo) / float64(qmax-qmin)
	zp := math.Round(float64(qmin) - lo/scale)
	return float32(scale), int64(min(max(zp, float64(qmin)), float64(qmax)))
}

func TestL2NormalizationTFLiteVectors(t *testing.T) {
	in := []float32{-1.1, 0.6, 0.7, 1.2, -0.7, 0.1}
	n := node(&L2NormOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 1, 1, 6}, in)}, outTensor(ops.Float32))
	run(t, NewL2Normalization(), n)
	nearFloats(t, "float", n.Outputs[0].Float32s(), []float64{-0.55, 0.3, 0.35, 0.6, -0.35, 0.05}, 1e-5)
	for _, typ := range []ops.DataType{ops.Uint8, ops.Int8} {
		qmin, qmax, outZP := 0, 255, int64(128)
		if typ == ops.Int8 {
			qmin, qmax, outZP = -128, 127, 0
		}
		scale, zp := tfliteTestQuant(-2, 2, qmin, qmax)
		// SingleOpModel quantises in float32: round(x/scale) + zp.
		qv := make([]int32, len(in))
		for i, x := range in {
			qv[i] = min(max(int32(roundf(x/scale))+int32(zp), int32(qmin)), int32(qmax))
		}
		var x *ops.Tensor
		if typ == ops.Int8 {
			x = tensorOf(typ, []int{1, 1, 1, 6}, toInt8(qv))
		} else {
			x = tensorOf(typ, []int{1, 1, 1, 6}, toUint8(qv))
		}
		n := node(&L2NormOptions{}, []*ops.Tensor{q(x, scale, zp)}, q(outTensor(typ), 1.0/128, outZP))
		k := NewL2Normalization()
		run(t, k, n)
		if typ == ops.Int8 {
			equalInts(t, "int8", n.Outputs[0].Int8s(), []int{-70, 38, 45, 77, -45, 6})
		} else {
			equalInts(t, "uint8", n.Outputs[0].Uint8s(), []int{58, 166, 173, 205, 83, 134})
		}
		noAllocs(t, k, n)
	}
	// A zero vector stays zero.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{6}, make([]float32, 6))}, outTensor(ops.Float32))
	run(t, NewL2Normalization(), n)
	nearFloats(t, "zeros", n.Outputs[0].Float32s(), make([]float64, 6), 0)
}

// TestInvSqrtQuantizedMultiplierExp checks the fixed-point 1/sqrt against
// float64 across the int32 range: multiplier·2^shift/2^31 ≈ 1/sqrt(x).
func TestInvSqrtQuantizedMultiplierExp(t *testing.T) {
	if m, s := invSqrtQuantizedMultiplierExp(1, -1); m != math.MaxInt32 || s != 0 {
		t.Fatalf("input 1: (%d, %d)", m, s)
	}
	r := lcg(5)
	for i := 0; i < 2000; i++ {
		x := int32(r.next()) >> uint(r.intn(0, 30))
		if x < 2 {
			continue
		}
		m, s := invSqrtQuantizedMultiplierExp(x, -1)
		got := float64(m) * math.Pow(2, float64(s)) / (1 << 31)
		want := 1 / math.Sqrt(float64(x))
		if math.Abs(got-want) > 2e-6*want {
			t.Fatalf("1/sqrt(%d): %g (m %d, shift %d), want %g", x, got, m, s, want)
		}
	}
}

func TestL2NormalizationFloatExact(t *testing.T) {
	r := lcg(9)
	x := make([]float32, 5*37)
	for i := range x {
		x[i] = r.float(-3, 3)
	}
	n := node(&L2NormOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{5, 37}, x)}, outTensor(ops.Float32))
	k := NewL2Normalization()
	run(t, k, n)
	got := n.Outputs[0].Float32s()
	for r := 0; r < 5; r++ {
		var sq float32
		for _, v := range x[r*37 : (r+1)*37] {
			sq += v * v
		}
		norm := float32(math.Sqrt(float64(sq)))
		for c := 0; c < 37; c++ {
			if want := x[r*37+c] / norm; got[r*37+c] != want {
				t.Fatalf("row %d col %d: %v, want %v", r, c, got[r*37+c], want)
			}
		}
	}
	noAllocs(t, k, n)
}

func TestL2NormalizationErrors(t *testing.T) {
	f := tensorOf(ops.Float32, []int{2, 3}, make([]float32, 6))
	u8 := q(tensorOf(ops.Uint8, []int{2, 3}, make([]uint8, 6)), 0.1, 128)
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"activation", node(&L2NormOptions{Activation: ops.ActRelu}, []*ops.Tensor{f}, outTensor(ops.Float32)), []string{"RELU"}},
		{"scalar", node(nil, []*ops.Tensor{tensorOf(ops.Float32, nil, []float32{1})}, outTensor(ops.Float32)), []string{"scalar"}},
		{"int16", node(nil, []*ops.Tensor{tensorOf(ops.Int16, []int{3}, make([]int16, 3))}, outTensor(ops.Int16)), []string{"int16"}},
		{"output scale", node(nil, []*ops.Tensor{u8}, q(outTensor(ops.Uint8), 0.01, 128)), []string{"scale 0.01", "1/128"}},
		{"output zero point", node(nil, []*ops.Tensor{u8}, q(outTensor(ops.Uint8), 1.0/128, 0)), []string{"zero point 0", "128"}},
		{"output type", node(nil, []*ops.Tensor{f}, outTensor(ops.Int8)), []string{"output 0"}},
		{"wrong options", node(&GeluOptions{}, []*ops.Tensor{f}, outTensor(ops.Float32)), []string{"need *L2NormOptions"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewL2Normalization(), c.n, c.wants...) })
	}
}

func TestL2Pool2DTFLiteVectors(t *testing.T) {
	in := []float32{0, 6, 2, 4, 3, 2, 10, 7}
	cases := []struct {
		name string
		opts Pool2DOptions
		want []float64
	}{
		{"L2Pool", Pool2DOptions{Padding: ops.PaddingValid, StrideW: 2, StrideH: 2, FilterWidth: 2, FilterHeight: 2}, []float64{3.5, 6.5}},
		{"Relu1", Pool2DOptions{Padding: ops.PaddingValid, StrideW: 2, StrideH: 2, FilterWidth: 2, FilterHeight: 2, Activation: ops.ActReluN1To1}, []float64{1, 1}},
		{"PaddingSameSlide1", Pool2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, FilterWidth: 2, FilterHeight: 2},
			[]float64{3.5, 6.0, 6.5, 5.70088, 2.54951, 7.2111, 8.63134, 7.0}},
		{"PaddingValidSlide1", Pool2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 1, FilterWidth: 2, FilterHeight: 2}, []float64{3.5, 6.0, 6.5}},
	}
	for _, c := range cases {
		o := c.opts
		n := node(&o, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, in)}, outTensor(ops.Float32))
		k := NewL2Pool2D()
		run(t, k, n)
		nearFloats(t, c.name, n.Outputs[0].Float32s(), c.want, 1e-4)
		noAllocs(t, k, n)
	}
	// Only float32: TFLite has no quantised L2_POOL_2D.
	x := q(tensorOf(ops.Uint8, []int{1, 2, 2, 1}, make([]uint8, 4)), 1, 0)
	wantPrepareError(t, NewL2Pool2D(), node(&Pool2DOptions{StrideW: 1, StrideH: 1, FilterWidth: 1, FilterHeight: 1}, []*ops.Tensor{x}, q(outTensor(ops.Uint8), 1, 0)), "uint8")
	wantPrepareError(t, NewL2Pool2D(), node(&Pool2DOptions{StrideW: 0, StrideH: 1, FilterWidth: 1, FilterHeight: 1}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 2, 1}, make([]float32, 4))}, outTensor(ops.Float32)), "stride 0")
}

func TestLocalResponseNormalizationTFLiteVectors(t *testing.T) {
	in := []float32{-1.1, 0.6, 0.7, 1.2, -0.7, 0.1}
	cases := []struct {
		name string
		opts LocalResponseNormalizationOptions
		want []float64
	}{
		{"SameAsL2Norm", LocalResponseNormalizationOptions{Radius: 20, Bias: 0, Alpha: 1, Beta: 0.5}, []float64{-0.55, 0.3, 0.35, 0.6, -0.35, 0.05}},
		{"WithBias", LocalResponseNormalizationOptions{Radius: 20, Bias: 9, Alpha: 4, Beta: 0.5}, []float64{-0.22, 0.12, 0.14, 0.24, -0.14, 0.02}},
		{"SmallRadius", LocalResponseNormalizationOptions{Radius: 2, Bias: 9, Alpha: 4, Beta: 0.5}, []float64{-0.264926, 0.125109, 0.140112, 0.267261, -0.161788, 0.0244266}},
	}
	for _, c := range cases {
		o := c.opts
		n := node(&o, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 1, 1, 6}, in)}, outTensor(ops.Float32))
		k := NewLocalResponseNormalization()
		run(t, k, n)
		nearFloats(t, c.name, n.Outputs[0].Float32s(), c.want, 1e-5)
		noAllocs(t, k, n)
	}
}

// TestLocalResponseNormalizationAgainstDefinition checks the running sum
// against the direct window sum for random radii, betas and depths.
func TestLocalResponseNormalizationAgainstDefinition(t *testing.T) {
	r := lcg(13)
	for trial := 0; trial < 50; trial++ {
		depth := r.intn(1, 40)
		o := LocalResponseNormalizationOptions{Radius: r.intn(0, 50), Bias: r.float(0.5, 2), Alpha: r.float(0.01, 1), Beta: []float32{1, 0.5, 0.75, 0.3}[r.intn(0, 3)]}
		x := make([]float32, 3*depth)
		for i := range x {
			x[i] = r.float(-2, 2)
		}
		n := node(&o, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 3, 1, depth}, x)}, outTensor(ops.Float32))
		run(t, NewLocalResponseNormalization(), n)
		want := make([]float64, len(x))
		for p := 0; p < 3; p++ {
			for c := 0; c < depth; c++ {
				var s float64
				for d := max(0, c-o.Radius); d <= min(depth-1, c+o.Radius); d++ {
					v := float64(x[p*depth+d])
					s += v * v
				}
				want[p*depth+c] = float64(x[p*depth+c]) * math.Pow(float64(o.Bias)+float64(o.Alpha)*s, -float64(o.Beta))
			}
		}
		nearFloats(t, "lrn", n.Outputs[0].Float32s(), want, 1e-5)
	}
	wantPrepareError(t, NewLocalResponseNormalization(), node(&LocalResponseNormalizationOptions{Radius: -1}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 1, 1, 2}, make([]float32, 2))}, outTensor(ops.Float32)), "radius -1")
	wantPrepareError(t, NewLocalResponseNormalization(), node(&LocalResponseNormalizationOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2}, make([]float32, 2))}, outTensor(ops.Float32)), "rank 2")
	wantPrepareError(t, NewLocalResponseNormalization(), node(&LocalResponseNormalizationOptions{}, []*ops.Tensor{q(tensorOf(ops.Int8, []int{1, 1, 1, 2}, make([]int8, 2)), 1, 0)}, q(outTensor(ops.Int8), 1, 0)), "int8")
}

func TestGeluTFLiteVectors(t *testing.T) {
	in := []float32{0, 1, 3, 1, -1, -2}
	for _, c := range []struct {
		approx bool
		want   []float64
		tol    float64
	}{
		{false, []float64{0, 0.841345, 2.99595, 0.841345, -0.158655, -0.0455003}, 1e-5},
		{true, []float64{0, 0.841192, 2.99636, 0.841192, -0.158808, -0.0454023}, 1e-5},
	} {
		n := node(&GeluOptions{Approximate: c.approx}, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 3}, in)}, outTensor(ops.Float32))
		k := NewGelu()
		run(t, k, n)
		nearFloats(t, "gelu", n.Outputs[0].Float32s(), c.want, c.tol)
		noAllocs(t, k, n)
	}
}

// TestGeluQuantized checks the int8, uint8 and int16 tables against the
// float function: every int8/uint8 input within one output step, int16
// within TFLite's test tolerance.
func TestGeluQuantized(t *testing.T) {
	for _, approx := range []bool{false, true} {
		f := geluExact
		if approx {
			f = geluApprox
		}
		for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
			lo, hi := -128, 127
			if typ == ops.Uint8 {
				lo, hi = 0, 255
			}
			inScale, inZP := tfliteTestQuant(-3, 3, lo, hi)
			outScale, outZP := tfliteTestQuant(-3, 3, lo, hi)
			vals := make([]int32, hi-lo+1)
			for i := range vals {
				vals[i] = int32(lo + i)
			}
			var x *ops.Tensor
			if typ == ops.Int8 {
				x = tensorOf(typ, []int{len(vals)}, toInt8(vals))
			} else {
				x = tensorOf(typ, []int{len(vals)}, toUint8(vals))
			}
			n := node(&GeluOptions{Approximate: approx}, []*ops.Tensor{q(x, inScale, inZP)}, q(outTensor(typ), outScale, outZP))
			k := NewGelu()
			run(t, k, n)
			for i, v := range vals {
				got := float64(loadInt(n.Outputs[0], i)-int32(outZP)) * float64(outScale)
				want := float64(f(inScale * float32(v-int32(inZP))))
				if math.Abs(got-want) > float64(outScale)*0.5001 {
					t.Fatalf("%s approx=%v: input %d gives %g, want %g", typ, approx, v, got, want)
				}
			}
			noAllocs(t, k, n)
		}
		// int16: symmetric scales as TFLite's GeluInt16Test.
		const scale = float32(8.0 / 32768)
		r := lcg(3)
		vals := make([]int16, 2000)
		for i := range vals {
			vals[i] = int16(r.next())
		}
		vals[0], vals[1] = -32768, 32767
		n := node(&GeluOptions{Approximate: approx}, []*ops.Tensor{q(tensorOf(ops.Int16, []int{len(vals)}, vals), scale, 0)}, q(outTensor(ops.Int16), scale, 0))
		k := NewGelu()
		run(t, k, n)
		for i, v := range vals {
			got := float64(n.Outputs[0].Int16s()[i]) * float64(scale)
			want := float64(f(scale * float32(v)))
			if math.Abs(got-want) > 2e-3 {
				t.Fatalf("int16 approx=%v: input %d gives %g, want %g", approx, v, got, want)
			}
		}
		noAllocs(t, k, n)
	}
	wantPrepareError(t, NewGelu(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{1, 2})}, outTensor(ops.Int32)), "int32")
	wantPrepareError(t, NewGelu(), node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{2}, []int8{1, 2})}, outTensor(ops.Int8)), "quantization")
}

func TestNormalizationOptionsDecoders(t *testing.T) {
	b := flatbuffers.NewBuilder(64)
	b.Finish((&schema.LocalResponseNormalizationOptionsT{Radius: 3, Bias: 1.5, Alpha: 0.25, Beta: 0.75}).Pack(b))
	buf := b.FinishedBytes()
	got, err := decodeLocalResponseNormalizationOptions(ops.OptionsTable{Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
	if o, ok := got.(*LocalResponseNormalizationOptions); err != nil || !ok || *o != (LocalResponseNormalizationOptions{3, 1.5, 0.25, 0.75}) {
		t.Fatalf("LRN options %#v, %v", got, err)
	}
	b = flatbuffers.NewBuilder(64)
	b.Finish((&schema.GeluOptionsT{Approximate: true}).Pack(b))
	buf = b.FinishedBytes()
	got, err = decodeGeluOptions(ops.OptionsTable{Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
	if o, ok := got.(*GeluOptions); err != nil || !ok || !o.Approximate {
		t.Fatalf("GELU options %#v, %v", got, err)
	}
	b = flatbuffers.NewBuilder(64)
	b.Finish((&schema.L2NormOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeRELU}).Pack(b))
	buf = b.FinishedBytes()
	got, err = decodeL2NormOptions(ops.OptionsTable{Bytes: buf, Pos: uint32(flatbuffers.GetUOffsetT(buf))})
	if o, ok := got.(*L2NormOptions); err != nil || !ok || o.Activation != ops.ActRelu {
		t.Fatalf("L2Norm options %#v, %v", got, err)
	}
	r := ops.NewResolver()
	RegisterBuiltins(r)
	for _, c := range []struct {
		op  ops.BuiltinOperator
		max int
	}{{ops.OpL2Normalization, 2}, {ops.OpL2Pool2D, 1}, {ops.OpLocalResponseNormalization, 1}, {ops.OpGelu, 3}} {
		for v := 1; v <= c.max+1; v++ {
			if _, err := r.FindBuiltin(c.op, v); (err == nil) != (v <= c.max) {
				t.Errorf("operator %d version %d: %v", c.op, v, err)
			}
		}
	}
}

// TestL2Pool2DErrors is L2_POOL_2D's hostile-node table: each node is
// refused at Prepare with an error naming the input or option.
func TestL2Pool2DErrors(t *testing.T) {
	f := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	opts := func(edit func(o *Pool2DOptions)) *Pool2DOptions {
		o := &Pool2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 1, FilterWidth: 2, FilterHeight: 2}
		if edit != nil {
			edit(o)
		}
		return o
	}
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"no options", node(nil, []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"need *Pool2DOptions"}},
		{"wrong options", node(&GeluOptions{}, []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"need *Pool2DOptions"}},
		{"two inputs", node(opts(nil), []*ops.Tensor{f(1, 2, 2, 1), f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"input"}},
		{"missing input", node(opts(nil), []*ops.Tensor{nil}, outTensor(ops.Float32)), []string{"input 0"}},
		{"no output", node(opts(nil), []*ops.Tensor{f(1, 2, 2, 1)}), []string{"output"}},
		{"rank 3", node(opts(nil), []*ops.Tensor{f(2, 2, 1)}, outTensor(ops.Float32)), []string{"input 0", "rank 3"}},
		{"int8", node(opts(nil), []*ops.Tensor{q(tensorOf(ops.Int8, []int{1, 2, 2, 1}, make([]int8, 4)), 1, 0)}, q(outTensor(ops.Int8), 1, 0)), []string{"input 0", "int8"}},
		{"output type", node(opts(nil), []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Int32)), []string{"output 0", "int32"}},
		{"stride 0", node(opts(func(o *Pool2DOptions) { o.StrideH = 0 }), []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"height stride 0"}},
		{"negative stride", node(opts(func(o *Pool2DOptions) { o.StrideW = -2 }), []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"width stride -2"}},
		{"filter 0", node(opts(func(o *Pool2DOptions) { o.FilterWidth = 0 }), []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"width filter size 0"}},
		{"filter too big", node(opts(func(o *Pool2DOptions) { o.FilterHeight = 5 }), []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"height", "exceeds"}},
		{"bad padding", node(opts(func(o *Pool2DOptions) { o.Padding = ops.Padding(7) }), []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"padding"}},
		{"activation 9", node(opts(func(o *Pool2DOptions) { o.Activation = ops.Activation(9) }), []*ops.Tensor{f(1, 2, 2, 1)}, outTensor(ops.Float32)), []string{"fused activation"}},
		{"overflowing shape", node(opts(nil), []*ops.Tensor{{Type: ops.Float32, Shape: []int{1 << 20, 1 << 20, 1 << 20, 1 << 20}}}, outTensor(ops.Float32)), []string{"input 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewL2Pool2D(), c.n, c.wants...) })
	}
}

// TestLocalResponseNormalizationErrors is LOCAL_RESPONSE_NORMALIZATION's
// hostile-node table.
func TestLocalResponseNormalizationErrors(t *testing.T) {
	f := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	o := &LocalResponseNormalizationOptions{Radius: 2, Bias: 1, Alpha: 1, Beta: 0.5}
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"wrong options", node(&GeluOptions{}, []*ops.Tensor{f(1, 1, 1, 2)}, outTensor(ops.Float32)), []string{"need *LocalResponseNormalizationOptions"}},
		{"negative radius", node(&LocalResponseNormalizationOptions{Radius: -1}, []*ops.Tensor{f(1, 1, 1, 2)}, outTensor(ops.Float32)), []string{"radius -1"}},
		{"two inputs", node(o, []*ops.Tensor{f(1, 1, 1, 2), f(1, 1, 1, 2)}, outTensor(ops.Float32)), []string{"input"}},
		{"missing input", node(o, []*ops.Tensor{nil}, outTensor(ops.Float32)), []string{"input 0"}},
		{"no output", node(o, []*ops.Tensor{f(1, 1, 1, 2)}), []string{"output"}},
		{"rank 2", node(o, []*ops.Tensor{f(1, 2)}, outTensor(ops.Float32)), []string{"input 0", "rank 2"}},
		{"rank 5", node(o, []*ops.Tensor{f(1, 1, 1, 1, 2)}, outTensor(ops.Float32)), []string{"input 0", "rank 5"}},
		{"int8", node(o, []*ops.Tensor{q(tensorOf(ops.Int8, []int{1, 1, 1, 2}, make([]int8, 2)), 1, 0)}, q(outTensor(ops.Int8), 1, 0)), []string{"input 0", "int8"}},
		{"uint8", node(o, []*ops.Tensor{q(tensorOf(ops.Uint8, []int{1, 1, 1, 2}, make([]uint8, 2)), 1, 0)}, q(outTensor(ops.Uint8), 1, 0)), []string{"input 0", "uint8"}},
		{"output type", node(o, []*ops.Tensor{f(1, 1, 1, 2)}, outTensor(ops.Int16)), []string{"output 0", "int16"}},
		{"overflowing shape", node(o, []*ops.Tensor{{Type: ops.Float32, Shape: []int{1 << 20, 1 << 20, 1 << 20, 1 << 20}}}, outTensor(ops.Float32)), []string{"input 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewLocalResponseNormalization(), c.n, c.wants...) })
	}
}

// TestGeluErrors is GELU's hostile-node table.
func TestGeluErrors(t *testing.T) {
	f := tensorOf(ops.Float32, []int{2}, []float32{1, 2})
	i8 := func() *ops.Tensor { return q(tensorOf(ops.Int8, []int{2}, []int8{1, 2}), 0.1, 0) }
	cases := []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"wrong options", node(&L2NormOptions{}, []*ops.Tensor{f}, outTensor(ops.Float32)), []string{"need *GeluOptions"}},
		{"two inputs", node(nil, []*ops.Tensor{f, f}, outTensor(ops.Float32)), []string{"input"}},
		{"missing input", node(nil, []*ops.Tensor{nil}, outTensor(ops.Float32)), []string{"input 0"}},
		{"no output", node(nil, []*ops.Tensor{f}), []string{"output"}},
		{"int32", node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{1, 2})}, outTensor(ops.Int32)), []string{"input 0", "int32"}},
		{"bfloat16", node(nil, []*ops.Tensor{tensorOf(ops.BFloat16, []int{2}, []uint16{0, 0})}, outTensor(ops.BFloat16)), []string{"input 0", "bfloat16"}},
		{"output type", node(nil, []*ops.Tensor{i8()}, q(outTensor(ops.Uint8), 0.1, 0)), []string{"output 0", "uint8"}},
		{"input not quantised", node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{2}, []int8{1, 2})}, q(outTensor(ops.Int8), 0.1, 0)), []string{"input 0", "quantization"}},
		{"output not quantised", node(nil, []*ops.Tensor{i8()}, outTensor(ops.Int8)), []string{"output 0", "quantization"}},
		{"int16 not quantised", node(nil, []*ops.Tensor{tensorOf(ops.Int16, []int{2}, []int16{1, 2})}, q(outTensor(ops.Int16), 0.1, 0)), []string{"input 0", "quantization"}},
		{"overflowing shape", node(nil, []*ops.Tensor{{Type: ops.Float32, Shape: []int{1 << 20, 1 << 20, 1 << 20, 1 << 20}}}, outTensor(ops.Float32)), []string{"input 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewGelu(), c.n, c.wants...) })
	}
}
