package builtin

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Fuzz targets that run one operator node at every instruction-set level
// this process can use (arch.Levels: generic, then avx2, avx512, neon, …)
// on the same fuzzer-chosen node and inputs, and demand that every level's
// outputs equal the portable (generic) ones: the pattern of
// klauspost/compress, whose fuzzers compare the assembly with the pure Go
// path. Each target draws one family's shapes and type paths from the
// configuration bytes and its values from the seed.
//
//	go test ./ops/builtin -run='^$' -fuzz=FuzzConv2D -fuzztime=2m
//
// Float values lie on a grid of 1/32 in [-4, 4), so that every sum of
// products the kernels form is exact in float32 and any summation order
// (the assembly's, FMA or not) gives the same bits: a difference is a
// bug, not rounding. The one exception is float LOGISTIC, whose vector
// sigmoid approximations agree with the portable one to a few ulps
// (arch's own FuzzActivations bounds them); its outputs are compared
// within floatTol.

// floatTol bounds the difference between levels of outputs that go
// through arch's vector sigmoid or tanh (each within a couple of float32
// ulps of 1 of the truth, see arch's actTwinTol).
const floatTol = 1e-6

// fuzzCfg draws small numbers from the fuzzer's configuration bytes;
// past their end it yields zeros.
type fuzzCfg struct {
	b []byte
	i int
}

// intn returns a value in [0, n).
func (c *fuzzCfg) intn(n int) int {
	if c.i >= len(c.b) || n <= 1 {
		c.i++
		return 0
	}
	v := int(c.b[c.i]) % n
	c.i++
	return v
}

// between returns a value in [lo, hi].
func (c *fuzzCfg) between(lo, hi int) int { return lo + c.intn(hi-lo+1) }

func (c *fuzzCfg) flag() bool { return c.intn(2) == 1 }

// pick returns one of vs.
func pick[T any](c *fuzzCfg, vs ...T) T { return vs[c.intn(len(vs))] }

// gridFloats returns n values on the 1/32 grid in [-4, 4).
func gridFloats(r *lcg, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.intn(-128, 127)) / 32
	}
	return v
}

// randomTensor makes a tensor of type typ and shape holding random values
// (floats on the grid, integers over their whole range).
func randomTensor(r *lcg, typ ops.DataType, shape []int) *ops.Tensor {
	n := prod(shape)
	switch typ {
	case ops.Float32:
		return tensorOf(typ, shape, gridFloats(r, n))
	case ops.Int8:
		return tensorOf(typ, shape, toInt8(randInts(r, n, -128, 127)))
	case ops.Uint8:
		return tensorOf(typ, shape, toUint8(randInts(r, n, 0, 255)))
	case ops.Int16:
		return tensorOf(typ, shape, toInt16(randInts(r, n, -32768, 32767)))
	case ops.Int32:
		return tensorOf(typ, shape, randInts(r, n, -1<<20, 1<<20))
	}
	panic(fmt.Sprintf("randomTensor: type %s", typ))
}

// levelRun is what one level's run of a node produced.
type levelRun struct {
	err  error
	outs []*ops.Tensor
}

// atEveryLevel builds the node (build must make the same node, with fresh
// tensors, every time it is called), prepares and evaluates it at every
// level, and fails unless every level gives the generic level's error or
// outputs. tol > 0 compares float32 outputs within tol·(1 + |generic|)
// instead of bit for bit.
func atEveryLevel(t *testing.T, tol float64, build func() (ops.Kernel, *ops.Node)) {
	t.Helper()
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	var ref levelRun
	for i, l := range arch.Levels() {
		if err := arch.Use(l); err != nil {
			t.Fatal(err)
		}
		k, n := build()
		if n == nil {
			return // the configuration draws no node
		}
		run := levelRun{err: prepare(k, n)}
		if run.err == nil {
			run.err = k.Eval(n)
		}
		run.outs = append(run.outs, n.Outputs...)
		for _, in := range n.Inputs {
			if in != nil && in.Kind == ops.VariableTensor {
				run.outs = append(run.outs, in) // state written by Eval
			}
		}
		if i == 0 {
			ref = run
			continue
		}
		compareRuns(t, l, ref, run, tol)
	}
}

func compareRuns(t *testing.T, l arch.Level, ref, got levelRun, tol float64) {
	t.Helper()
	if (ref.err == nil) != (got.err == nil) || ref.err != nil && ref.err.Error() != got.err.Error() {
		t.Fatalf("level %s: error %v, generic: %v", l, got.err, ref.err)
	}
	if ref.err != nil {
		return
	}
	for j, w := range ref.outs {
		g := got.outs[j]
		if g.Type != w.Type || !ops.SameShape(g.Shape, w.Shape) {
			t.Fatalf("level %s: tensor %d is %s%v, generic %s%v", l, j, g.Type, g.Shape, w.Type, w.Shape)
		}
		nb := w.Bytes()
		if w.Type == ops.Float32 && tol > 0 {
			gv, wv := g.Float32s()[:nb/4], w.Float32s()[:nb/4]
			for i := range wv {
				a, b := float64(gv[i]), float64(wv[i])
				if a != b && !(a != a && b != b) && !(math.Abs(a-b) <= tol*(1+math.Abs(b))) {
					t.Fatalf("level %s: tensor %d [%d] = %v, generic %v", l, j, i, gv[i], wv[i])
				}
			}
			continue
		}
		if !bytes.Equal(g.Data[:nb], w.Data[:nb]) {
			for i := 0; i < nb; i++ {
				if g.Data[i] != w.Data[i] {
					t.Fatalf("level %s: tensor %d (%s%v) differs from generic at byte %d", l, j, w.Type, w.Shape, i)
				}
			}
		}
	}
}

// fuzzActs are the fused activations the CNN kernels take.
var fuzzActs = []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActReluN1To1, ops.ActRelu6}

// quantScale returns a quantisation scale drawn from a few magnitudes.
func quantScale(c *fuzzCfg) float32 {
	return pick(c, float32(0.003), 0.01, 0.05, 0.1, 0.37, 1.5)
}

// perChannelQuant gives t one symmetric scale per output channel (or one
// for all), as TFLite's int8 filters have.
func perChannelQuant(c *fuzzCfg, t *ops.Tensor, channels int, dim int) []float32 {
	n := 1
	if c.flag() {
		n = channels
	}
	s := make([]float32, n)
	for i := range s {
		s[i] = pick(c, float32(0.002), 0.005, 0.01, 0.03)
	}
	t.Quant = &ops.Quantization{Scale: s, ZeroPoint: make([]int64, n), QuantizedDimension: dim}
	return s
}

// convLike draws the tensors shared by CONV_2D and DEPTHWISE_CONV_2D: the
// type path (0 float32, 1 int8, 2 uint8, 3 hybrid) and an input of it.
func convInput(c *fuzzCfg, r *lcg, path int, shape []int) (*ops.Tensor, float32) {
	switch path {
	case 1:
		s := quantScale(c)
		return q(randomTensor(r, ops.Int8, shape), s, int64(c.between(-20, 20))), s
	case 2:
		s := quantScale(c)
		return q(randomTensor(r, ops.Uint8, shape), s, int64(c.between(100, 150))), s
	}
	return randomTensor(r, ops.Float32, shape), 0
}

// convFilterBiasOut draws the filter (shape fShape, output channels along
// dimension dim), the bias and the output for a convolution's path.
func convFilterBiasOut(c *fuzzCfg, r *lcg, path int, fShape []int, dim, outC int, inScale float32) (filter, bias, out *ops.Tensor) {
	switch path {
	case 1:
		filter = randomTensor(r, ops.Int8, fShape)
		for i, v := range filter.Int8s() {
			if v == -128 {
				filter.Int8s()[i] = -127 // symmetric int8 filters
			}
		}
		fs := perChannelQuant(c, filter, outC, dim)
		bias = tensorOf(ops.Int32, []int{outC}, randInts(r, outC, -5000, 5000))
		bs := make([]float32, outC)
		for i := range bs {
			bs[i] = inScale * fs[min(i, len(fs)-1)]
		}
		bias.Quant = &ops.Quantization{Scale: bs, ZeroPoint: make([]int64, outC)}
		out = q(outTensor(ops.Int8), quantScale(c), int64(c.between(-20, 20)))
	case 2:
		fs := pick(c, float32(0.004), 0.01, 0.03)
		filter = q(randomTensor(r, ops.Uint8, fShape), fs, int64(c.between(100, 150)))
		bias = q(tensorOf(ops.Int32, []int{outC}, randInts(r, outC, -5000, 5000)), inScale*fs, 0)
		out = q(outTensor(ops.Uint8), quantScale(c), int64(c.between(100, 150)))
	case 3:
		filter = randomTensor(r, ops.Int8, fShape)
		perChannelQuant(c, filter, outC, dim)
		bias = randomTensor(r, ops.Float32, []int{outC})
		out = outTensor(ops.Float32)
	default:
		filter = randomTensor(r, ops.Float32, fShape)
		bias = randomTensor(r, ops.Float32, []int{outC})
		out = outTensor(ops.Float32)
	}
	if c.intn(4) != 0 {
		constT(filter)
		constT(bias)
	}
	if c.intn(8) == 0 {
		bias = nil
	}
	return filter, bias, out
}

func convNodeOf(opts any, in, filter, bias, out *ops.Tensor) *ops.Node {
	ins := []*ops.Tensor{in, filter}
	if bias != nil {
		ins = append(ins, bias)
	}
	return node(opts, ins, out)
}

// FuzzConv2D runs CONV_2D on float32, int8 (per-tensor or per-channel
// filters), uint8 and hybrid paths, plain and grouped, over random
// geometry (strides, dilations, padding, 1×1 filters that skip im2col,
// batches that make the GEMM paths tile).
func FuzzConv2D(f *testing.F) {
	// path, batch, h, w, inC, outC, fh, fw, groups, pad, sw, sh, dw, dh, act, ...
	f.Add([]byte{0, 0, 5, 5, 2, 3, 2, 2, 0, 0, 0, 0, 0, 0, 1}, uint64(1))
	f.Add([]byte{1, 1, 7, 6, 7, 5, 2, 2, 0, 1, 1, 0, 1, 0, 3, 1, 1, 1, 1}, uint64(2))
	f.Add([]byte{2, 0, 9, 9, 3, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint64(3))    // 1×1
	f.Add([]byte{3, 1, 6, 4, 5, 6, 1, 2, 0, 1, 0, 1, 0, 0, 2, 1}, uint64(4)) // hybrid
	f.Add([]byte{0, 0, 6, 6, 4, 4, 2, 2, 1, 0, 0, 0, 0, 0, 0}, uint64(5))    // grouped
	f.Add([]byte{1, 1, 11, 11, 8, 7, 3, 3, 0, 0, 1, 1, 1, 1, 3}, uint64(6))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		atEveryLevel(t, 0, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, lcg(seed)
			path := c.intn(4)
			batch, h, w := c.between(1, 2), c.between(1, 12), c.between(1, 12)
			inC, outC := c.between(1, 8), c.between(1, 8)
			fh, fw := c.between(1, 4), c.between(1, 4)
			filterInC := inC
			if g := c.between(1, 4); path != 3 && g > 1 && inC%g == 0 && outC%g == 0 {
				filterInC = inC / g
			}
			opts := &Conv2DOptions{
				Padding: ops.Padding(c.intn(2)),
				StrideW: c.between(1, 3), StrideH: c.between(1, 3),
				DilationWFactor: c.between(1, 2), DilationHFactor: c.between(1, 2),
				Activation: pick(c, fuzzActs...),
			}
			in, inScale := convInput(c, &r, path, []int{batch, h, w, inC})
			filter, bias, out := convFilterBiasOut(c, &r, path, []int{outC, fh, fw, filterInC}, 0, outC, inScale)
			return NewConv2D(), convNodeOf(opts, in, filter, bias, out)
		})
	})
}

// FuzzDepthwiseConv2D runs DEPTHWISE_CONV_2D on float32, int8 and uint8
// paths with depth multipliers, strides, dilations and both paddings.
func FuzzDepthwiseConv2D(f *testing.F) {
	// path, batch, h, w, inC, mult, fh, fw, pad, sw, sh, dw, dh, act
	f.Add([]byte{0, 0, 5, 5, 2, 0, 2, 2, 0, 0, 0, 0, 0, 1}, uint64(1))
	f.Add([]byte{1, 1, 8, 7, 7, 1, 2, 2, 1, 1, 0, 1, 0, 3, 1, 1}, uint64(2))
	f.Add([]byte{2, 0, 9, 9, 15, 0, 2, 2, 0, 0, 0, 0, 0, 0}, uint64(3))
	f.Add([]byte{0, 1, 10, 3, 17, 2, 3, 1, 1, 1, 2, 0, 1, 2}, uint64(4))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		atEveryLevel(t, 0, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, lcg(seed)
			path := c.intn(3)
			batch, h, w := c.between(1, 2), c.between(1, 12), c.between(1, 12)
			inC, mult := c.between(1, 20), c.between(1, 3)
			fh, fw := c.between(1, 4), c.between(1, 4)
			opts := &DepthwiseConv2DOptions{
				Padding: ops.Padding(c.intn(2)),
				StrideW: c.between(1, 3), StrideH: c.between(1, 3),
				DepthMultiplier: mult,
				DilationWFactor: c.between(1, 2), DilationHFactor: c.between(1, 2),
				Activation: pick(c, fuzzActs...),
			}
			outC := inC * mult
			in, inScale := convInput(c, &r, path, []int{batch, h, w, inC})
			filter, bias, out := convFilterBiasOut(c, &r, path, []int{1, fh, fw, outC}, 3, outC, inScale)
			return NewDepthwiseConv2D(), convNodeOf(opts, in, filter, bias, out)
		})
	})
}

// FuzzFullyConnected runs FULLY_CONNECTED on float32, int8 (per-tensor or
// per-channel), uint8 (uint8 or int16 output), int16×int8 and hybrid
// (symmetric or asymmetric inputs) paths, with constant weights (packed
// at Prepare) or not, and KeepNumDims.
func FuzzFullyConnected(f *testing.F) {
	// path, batch, in, units, act, keep, ...
	f.Add([]byte{0, 0, 7, 3, 1}, uint64(1))
	f.Add([]byte{1, 3, 33, 17, 0, 0, 1}, uint64(2))
	f.Add([]byte{2, 1, 64, 9, 3}, uint64(3))
	f.Add([]byte{3, 2, 20, 5, 0}, uint64(4))
	f.Add([]byte{4, 3, 40, 31, 2, 1, 1}, uint64(5))
	f.Add([]byte{5, 0, 16, 16, 0}, uint64(6))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		atEveryLevel(t, 0, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, lcg(seed)
			path := c.intn(6) // float32, int8, uint8→uint8, int16×int8, hybrid, uint8→int16
			batch, nIn, units := c.between(1, 4), c.between(1, 70), c.between(1, 40)
			opts := &FullyConnectedOptions{Activation: pick(c, fuzzActs...), KeepNumDims: c.flag()}
			inShape := []int{batch, nIn}
			if opts.KeepNumDims && c.flag() {
				inShape = []int{1, batch, nIn}
			}
			var in, weights, bias, out *ops.Tensor
			wShape := []int{units, nIn}
			switch path {
			case 1, 3:
				inType, zp := ops.Int8, int64(c.between(-20, 20))
				if path == 3 {
					inType, zp = ops.Int16, 0
				}
				is := quantScale(c)
				in = q(randomTensor(&r, inType, inShape), is, zp)
				weights = randomTensor(&r, ops.Int8, wShape)
				ws := perChannelQuant(c, weights, units, 0)
				bs := make([]float32, units)
				for i := range bs {
					bs[i] = is * ws[min(i, len(ws)-1)]
				}
				bias = tensorOf(ops.Int32, []int{units}, randInts(&r, units, -5000, 5000))
				bias.Quant = &ops.Quantization{Scale: bs, ZeroPoint: make([]int64, units)}
				if path == 3 {
					out = q(outTensor(ops.Int16), quantScale(c), 0)
				} else {
					out = q(outTensor(ops.Int8), quantScale(c), int64(c.between(-20, 20)))
				}
			case 2, 5:
				is, ws := quantScale(c), pick(c, float32(0.004), 0.01, 0.03)
				in = q(randomTensor(&r, ops.Uint8, inShape), is, int64(c.between(100, 150)))
				weights = q(randomTensor(&r, ops.Uint8, wShape), ws, int64(c.between(100, 150)))
				bias = q(tensorOf(ops.Int32, []int{units}, randInts(&r, units, -5000, 5000)), is*ws, 0)
				if path == 5 {
					out = q(outTensor(ops.Int16), quantScale(c), 0)
				} else {
					out = q(outTensor(ops.Uint8), quantScale(c), int64(c.between(100, 150)))
				}
			case 4:
				opts.AsymmetricQuantizeInputs = c.flag()
				in = randomTensor(&r, ops.Float32, inShape)
				weights = randomTensor(&r, ops.Int8, wShape)
				perChannelQuant(c, weights, units, 0)
				bias = randomTensor(&r, ops.Float32, []int{units})
				out = outTensor(ops.Float32)
			default:
				in = randomTensor(&r, ops.Float32, inShape)
				weights = randomTensor(&r, ops.Float32, wShape)
				bias = randomTensor(&r, ops.Float32, []int{units})
				out = outTensor(ops.Float32)
			}
			if c.intn(4) != 0 {
				constT(weights)
				constT(bias)
			}
			ins := []*ops.Tensor{in, weights, bias}
			if c.intn(8) == 0 {
				ins = ins[:2]
			}
			return NewFullyConnected(), node(opts, ins, out)
		})
	})
}

// FuzzPool2D runs MAX_POOL_2D and AVERAGE_POOL_2D on float32, int8, uint8
// and int16 over random windows, strides and paddings.
func FuzzPool2D(f *testing.F) {
	// max, type, batch, h, w, c, fh, fw, sh, sw, pad, act
	f.Add([]byte{1, 0, 0, 6, 6, 3, 2, 2, 2, 2, 0, 0}, uint64(1))
	f.Add([]byte{0, 1, 1, 7, 5, 17, 3, 3, 1, 2, 1, 1}, uint64(2))
	f.Add([]byte{1, 2, 0, 12, 12, 33, 3, 2, 2, 1, 0, 3}, uint64(3))
	f.Add([]byte{0, 3, 0, 4, 9, 8, 4, 4, 3, 3, 0, 0}, uint64(4))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		atEveryLevel(t, 0, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, lcg(seed)
			isMax := c.flag()
			typ := pick(c, ops.Float32, ops.Int8, ops.Uint8, ops.Int16)
			batch, h, w, ch := c.between(1, 2), c.between(1, 12), c.between(1, 12), c.between(1, 40)
			opts := &Pool2DOptions{
				FilterHeight: c.between(1, 4), FilterWidth: c.between(1, 4),
				StrideH: c.between(1, 3), StrideW: c.between(1, 3),
				Padding: ops.Padding(c.intn(2)), Activation: pick(c, fuzzActs...),
			}
			in := randomTensor(&r, typ, []int{batch, h, w, ch})
			out := outTensor(typ)
			if typ != ops.Float32 {
				s, zp := quantScale(c), int64(0)
				switch typ {
				case ops.Int8:
					zp = int64(c.between(-20, 20))
				case ops.Uint8:
					zp = int64(c.between(100, 150))
				}
				q(in, s, zp)
				q(out, s, zp)
			}
			var k ops.Kernel = NewAveragePool2D()
			if isMax {
				k = NewMaxPool2D()
			}
			return k, node(opts, []*ops.Tensor{in}, out)
		})
	})
}

// fuzzBroadcastShapes draws two shapes of rank 0 to 4 that broadcast: every
// dimension shared, 1 on one side or absent from the shorter, some longer
// than the vector paths' short cutoff.
func fuzzBroadcastShapes(c *fuzzCfg) (sa, sb []int) {
	rank := c.intn(5)
	for i := 0; i < rank; i++ {
		d := c.between(1, 6)
		if c.intn(4) == 0 {
			d = c.between(15, 40)
		}
		da, db := d, d
		switch c.intn(4) {
		case 0:
			da = 1
		case 1:
			db = 1
		}
		sa, sb = append(sa, da), append(sb, db)
	}
	if rank > 0 && c.intn(3) == 0 {
		sb = sb[c.intn(rank+1):]
	}
	if c.flag() {
		sa, sb = sb, sa
	}
	return sa, sb
}

// FuzzBroadcastBinary runs the element-wise binary operators with
// broadcasting: ADD, SUB and MUL on float32 (the vector path), int8,
// uint8, int16 and int32; DIV, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM on
// float32 and int32.
func FuzzBroadcastBinary(f *testing.F) {
	// op, type, act, rank, dims…
	f.Add([]byte{0, 0, 0, 2, 3, 0, 2, 17, 2, 0}, uint64(1))
	f.Add([]byte{1, 1, 1, 4, 1, 3, 2, 0, 0, 20, 3, 1, 4, 1}, uint64(2))
	f.Add([]byte{2, 2, 3, 3, 5, 1, 1, 40, 0, 2, 1, 1}, uint64(3))
	f.Add([]byte{3, 0, 2, 1, 33, 3}, uint64(4))
	f.Add([]byte{6, 4, 0, 2, 2, 2, 3, 3}, uint64(5))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		atEveryLevel(t, 0, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, lcg(seed)
			opIdx := c.intn(7)
			typ := pick(c, ops.Float32, ops.Int8, ops.Uint8, ops.Int16, ops.Int32)
			act := pick(c, fuzzActs...)
			if opIdx >= 3 && typ != ops.Float32 {
				typ = ops.Int32
			}
			sa, sb := fuzzBroadcastShapes(c)
			a, b, out := randomTensor(&r, typ, sa), randomTensor(&r, typ, sb), outTensor(typ)
			switch typ {
			case ops.Int8, ops.Uint8:
				zp := func() int64 {
					if typ == ops.Uint8 {
						return int64(c.between(100, 150))
					}
					return int64(c.between(-20, 20))
				}
				q(a, quantScale(c), zp())
				q(b, quantScale(c), zp())
				q(out, quantScale(c), zp())
			case ops.Int16:
				q(a, quantScale(c), 0)
				q(b, quantScale(c), 0)
				q(out, quantScale(c), 0)
			}
			if opIdx == 3 && typ == ops.Int32 {
				// DIV: TFLite refuses a zero divisor at Eval; keep it valid.
				for i, v := range b.Int32s() {
					if v == 0 {
						b.Int32s()[i] = 1
					}
				}
			}
			var k ops.Kernel
			var opts any
			switch opIdx {
			case 0:
				k, opts = NewAdd(), &AddOptions{Activation: act, PotScaleInt16: c.flag()}
			case 1:
				k, opts = NewSub(), &SubOptions{Activation: act, PotScaleInt16: c.flag()}
			case 2:
				k, opts = NewMul(), &MulOptions{Activation: act}
			case 3:
				k, opts = NewDiv(), &DivOptions{Activation: act}
			case 4:
				k = NewSquaredDifference()
			case 5:
				k = NewMaximum()
			default:
				k = NewMinimum()
			}
			return k, node(opts, []*ops.Tensor{a, b}, out)
		})
	})
}

// FuzzActivations runs the activation kernels on float32 and quantised
// tensors of random shape: LOGISTIC and TANH (float32, int8, uint8,
// int16, with the output quantisation TFLite requires), the RELU family,
// SOFTMAX, LOG_SOFTMAX, HARD_SWISH, LEAKY_RELU, ELU and QUANTIZE
// (requantising int8/uint8).
func FuzzActivations(f *testing.F) {
	// op, type, rank, dims…
	f.Add([]byte{0, 0, 2, 3, 17}, uint64(1))
	f.Add([]byte{1, 1, 1, 40}, uint64(2))
	f.Add([]byte{0, 2, 3, 2, 3, 9}, uint64(3))
	f.Add([]byte{4, 1, 2, 5, 33}, uint64(4))
	f.Add([]byte{10, 1, 2, 2, 19}, uint64(5))
	f.Fuzz(func(t *testing.T, cfg []byte, seed uint64) {
		c := &fuzzCfg{b: cfg}
		opIdx := c.intn(11)
		tol := 0.0
		if opIdx == 0 {
			tol = floatTol // float LOGISTIC runs arch.Sigmoid's approximation
		}
		atEveryLevel(t, tol, func() (ops.Kernel, *ops.Node) {
			c, r := &fuzzCfg{b: cfg}, lcg(seed)
			_ = c.intn(11)
			typ := pick(c, ops.Float32, ops.Int8, ops.Uint8, ops.Int16)
			rank := c.between(1, 4)
			shape := make([]int, rank)
			for i := range shape {
				shape[i] = c.between(1, 6)
				if c.intn(4) == 0 {
					shape[i] = c.between(15, 70)
				}
			}
			in, out := randomTensor(&r, typ, shape), outTensor(typ)
			inZP := func() int64 {
				switch typ {
				case ops.Int8:
					return int64(c.between(-20, 20))
				case ops.Uint8:
					return int64(c.between(100, 150))
				}
				return 0
			}
			if typ != ops.Float32 {
				q(in, quantScale(c), inZP())
				q(out, quantScale(c), inZP())
			}
			// fixedOut sets the output quantisation TFLite requires.
			fixedOut := func(i8zp, u8zp int64, scale8, scale16 float32) {
				switch typ {
				case ops.Int8:
					q(out, scale8, i8zp)
				case ops.Uint8:
					q(out, scale8, u8zp)
				case ops.Int16:
					q(out, scale16, 0)
				}
			}
			var k ops.Kernel
			var opts any
			switch opIdx {
			case 0:
				k = NewLogistic()
				fixedOut(-128, 0, 1.0/256, 1.0/32768)
			case 1:
				k = NewTanh()
				fixedOut(0, 128, 1.0/128, 1.0/32768)
			case 2:
				k = pick(c, NewRelu, NewRelu6, NewReluN1To1, NewRelu0To1)()
			case 3:
				k = NewHardSwish()
			case 4:
				k, opts = NewSoftmax(), &SoftmaxOptions{Beta: pick(c, float32(1), 0.5, 2)}
				fixedOut(-128, 0, 1.0/256, 1.0/32768)
			case 5:
				k = NewLogSoftmax()
				fixedOut(127, 255, 16.0/256, 1.0/2048)
			case 6:
				k, opts = NewLeakyRelu(), &LeakyReluOptions{Alpha: pick(c, float32(0.2), 0.01, 1.5)}
			case 7:
				k = NewPRelu()
				alpha := randomTensor(&r, typ, shape[len(shape)-1:])
				if typ != ops.Float32 {
					q(alpha, quantScale(c), inZP())
				}
				return k, node(nil, []*ops.Tensor{in, alpha}, out)
			case 8:
				k = NewElu()
			case 9:
				k = NewQuantize()
				if typ == ops.Float32 {
					out = q(outTensor(ops.Int8), quantScale(c), int64(c.between(-20, 20)))
				}
			default:
				k = NewQuantize()
				if typ == ops.Int8 || typ == ops.Uint8 {
					out = q(outTensor(pick(c, ops.Int8, ops.Uint8)), quantScale(c), 0)
					if out.Type == ops.Uint8 {
						out.Quant.ZeroPoint[0] = int64(c.between(100, 150))
					}
				}
			}
			return k, node(opts, []*ops.Tensor{in}, out)
		})
	})
}
