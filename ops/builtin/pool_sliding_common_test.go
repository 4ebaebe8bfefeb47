package builtin

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// poolPaths runs one pooling node twice, on the direct path and on the
// sliding one, and returns both outputs' bytes (nil on a Prepare or Eval
// error, whose text is returned; both paths must agree on it).
func poolPaths(t *testing.T, mk func() ops.Kernel, opts *Pool2DOptions, in *ops.Tensor) (direct, sliding []byte, err string) {
	t.Helper()
	defer func(v float64) { poolTapsPerValue = v }(poolTapsPerValue)
	var outs [2][]byte
	var errs [2]string
	for i, budget := range []float64{math.Inf(1), -1} {
		poolTapsPerValue = budget
		out := outTensor(in.Type)
		if in.Quant != nil {
			out = q(out, in.Quant.Scale[0], in.Quant.ZeroPoint[0])
		}
		n := node(opts, []*ops.Tensor{in}, out)
		k := mk()
		if e := prepare(k, n); e != nil {
			errs[i] = "Prepare: " + e.Error()
			continue
		}
		if want := i == 1 && prod(out.Shape) > 0; k.(interface{ pool() *pool2D }).pool().sliding != want {
			t.Fatalf("sliding = %v with budget %v", !want, budget)
		}
		if e := k.Eval(n); e != nil {
			errs[i] = "Eval: " + e.Error()
			continue
		}
		outs[i] = append([]byte(nil), out.Data...)
		if i == 1 && len(outs[i]) > 0 && len(outs[i]) < 64 {
			noAllocs(t, k, n) // the sliding paths keep Eval allocation-free
		}
	}
	if errs[0] != errs[1] {
		t.Fatalf("direct path: %q, sliding path: %q", errs[0], errs[1])
	}
	return outs[0], outs[1], errs[0]
}

func (k *AveragePool2D) pool() *pool2D { return &k.p }
func (k *MaxPool2D) pool() *pool2D     { return &k.p }
func (k *L2Pool2D) pool() *pool2D      { return &k.p }

// TestPoolSlidingMatchesDirect compares the linear-time paths with the
// direct window loops on random geometries (filters from 1 to past the
// image, every stride, both paddings): bit for bit for integer averages
// and for every maximum (float maxima with NaN, ±0 and -Inf in the data),
// within 1e-5 relative for float averages and L2 pools.
func TestPoolSlidingMatchesDirect(t *testing.T) {
	r := lcg(2026)
	kernels := []struct {
		name  string
		mk    func() ops.Kernel
		types []ops.DataType
	}{
		{"AVERAGE_POOL_2D", NewAveragePool2D, []ops.DataType{ops.Float32, ops.Int8, ops.Uint8, ops.Int16}},
		{"MAX_POOL_2D", NewMaxPool2D, []ops.DataType{ops.Float32, ops.Int8, ops.Uint8, ops.Int16}},
		{"L2_POOL_2D", NewL2Pool2D, []ops.DataType{ops.Float32}},
	}
	specials := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(-1)), -math.MaxFloat32, float32(math.Inf(1))}
	for trial := 0; trial < 300; trial++ {
		shape := []int{r.intn(1, 2), r.intn(1, 9), r.intn(1, 9), r.intn(1, 3)}
		filt := func(side int) int {
			switch r.intn(0, 3) {
			case 0:
				return math.MaxInt32
			case 1:
				return r.intn(side, 2*side+1)
			}
			return r.intn(1, side)
		}
		opts := &Pool2DOptions{Padding: ops.PaddingSame, StrideH: r.intn(1, 4), StrideW: r.intn(1, 4),
			FilterHeight: filt(shape[1]), FilterWidth: filt(shape[2])}
		if r.intn(0, 2) == 0 {
			opts.Padding = ops.PaddingValid
		}
		if r.intn(0, 3) == 0 {
			opts.Activation = ops.ActRelu
		}
		for _, kc := range kernels {
			for _, typ := range kc.types {
				name := fmt.Sprintf("%s %s %v %+v", kc.name, typ, shape, *opts)
				var in *ops.Tensor
				if typ == ops.Float32 {
					v := make([]float32, prod(shape))
					for i := range v {
						v[i] = r.float(-4, 4)
						switch {
						case kc.name != "MAX_POOL_2D":
						case trial%2 == 0: // zeros of both signs the maxima
							v[i] = specials[r.intn(0, len(specials)-2)]
						case r.intn(0, 4) == 0:
							v[i] = specials[r.intn(0, len(specials)-1)]
						}
					}
					in = tensorOf(ops.Float32, shape, v)
				} else {
					lo, hi, _ := ops.TypeRange(typ)
					v := randInts(&r, prod(shape), int(lo), int(hi))
					switch typ {
					case ops.Int8:
						in = q(tensorOf(typ, shape, toInt8(v)), 0.1, 0)
					case ops.Uint8:
						in = q(tensorOf(typ, shape, toUint8(v)), 0.1, 0)
					default:
						w := make([]int16, len(v))
						for i, x := range v {
							w[i] = int16(x)
						}
						in = q(tensorOf(typ, shape, w), 0.1, 0)
					}
				}
				direct, sliding, _ := poolPaths(t, kc.mk, opts, in)
				exact := typ != ops.Float32 || kc.name == "MAX_POOL_2D"
				if exact {
					if string(direct) != string(sliding) {
						t.Fatalf("%s: sliding % x, direct % x", name, sliding, direct)
					}
					continue
				}
				d, s := ops.View[float32](direct), ops.View[float32](sliding)
				for i := range d {
					if diff := math.Abs(float64(d[i] - s[i])); !(diff <= 1e-5*max(1, math.Abs(float64(d[i])))) && !(d[i] != d[i] && s[i] != s[i]) {
						t.Fatalf("%s: value %d: sliding %v, direct %v", name, i, s[i], d[i])
					}
				}
			}
		}
	}
}

// TestPoolSlidingWork: the hostile pool of issue 10 (a [1, 4, 32768, 2]
// image under a SAME window 2^31-1 wide, stride 1: 17 s of direct loop
// for the int8 average) takes the sliding path for every pool and type,
// whose work, counted in values visited, is a small multiple of the
// input and output sizes; the direct loop would visit 2^33 taps.
func TestPoolSlidingWork(t *testing.T) {
	shape := []int{1, 4, 32768, 2}
	elems := prod(shape)
	opts := &Pool2DOptions{Padding: ops.PaddingSame, StrideH: 1, StrideW: 1, FilterHeight: 1, FilterWidth: math.MaxInt32}
	for _, tc := range []struct {
		name string
		mk   func() ops.Kernel
		typ  ops.DataType
	}{
		{"AVERAGE_POOL_2D", NewAveragePool2D, ops.Int8}, {"AVERAGE_POOL_2D", NewAveragePool2D, ops.Uint8},
		{"AVERAGE_POOL_2D", NewAveragePool2D, ops.Int16}, {"AVERAGE_POOL_2D", NewAveragePool2D, ops.Float32},
		{"MAX_POOL_2D", NewMaxPool2D, ops.Int8}, {"MAX_POOL_2D", NewMaxPool2D, ops.Uint8},
		{"MAX_POOL_2D", NewMaxPool2D, ops.Int16}, {"MAX_POOL_2D", NewMaxPool2D, ops.Float32},
		{"L2_POOL_2D", NewL2Pool2D, ops.Float32},
	} {
		in := &ops.Tensor{Type: tc.typ, Shape: shape, Data: alignedBytes(elems * tc.typ.Size())}
		for i := range in.Data {
			in.Data[i] = byte(i * 7)
		}
		out := outTensor(tc.typ)
		if tc.typ != ops.Float32 {
			in, out = q(in, 0.5, 0), q(out, 0.5, 0)
		}
		n := node(opts, []*ops.Tensor{in}, out)
		k := tc.mk()
		if err := prepare(k, n); err != nil {
			t.Fatalf("%s %s: Prepare: %v", tc.name, tc.typ, err)
		}
		var work int64
		poolWork = &work
		err := k.Eval(n)
		poolWork = nil
		if err != nil {
			t.Fatalf("%s %s: Eval: %v", tc.name, tc.typ, err)
		}
		if limit := int64(8 * (elems + prod(out.Shape))); work == 0 || work > limit {
			t.Errorf("%s %s: visited %d values, want (0, %d]", tc.name, tc.typ, work, limit)
		}
		// Every column is under every window: each output is its row's
		// pool, so all the outputs of a row and channel are equal.
		o := out.Data
		size := tc.typ.Size()
		for y := 0; y < shape[1]; y++ {
			for c := 0; c < shape[3]; c++ {
				first := string(o[(y*shape[2]*shape[3]+c)*size:][:size])
				for x := 1; x < shape[2]; x += 4099 {
					if got := string(o[((y*shape[2]+x)*shape[3]+c)*size:][:size]); got != first {
						t.Fatalf("%s %s: row %d channel %d differs at column %d", tc.name, tc.typ, y, c, x)
					}
				}
			}
		}
	}
}
