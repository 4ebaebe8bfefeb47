package builtin

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/sparse"
	"github.com/tflrun/tflrun/ops"
)

// Tests of FULLY_CONNECTED with sparse weights: the vectors of TFLite's
// fully_connected_test.cc (SparseFullyConnectedOpTest,
// SparseQuantizedFullyConnectedOpTest, SparseHybridFullyConnectedOpTest),
// random cases against a direct reference that sums the stored values in
// TFLite's order, and refused layouts.

// withSparsity marks a dense constant weights tensor [units, cols] as
// stored sparse with rows dense and columns compressed (block 1: random
// sparsity, else 1×block blocks), as the loader leaves it: dense data, the
// structure in Sparsity. All-zero blocks are not stored, as TFLite's
// FormatConverter does. (sparse.Compress builds the same metadata for
// any layout, but in time quadratic in the size; TestWithSparsity
// checks the two agree.)
func withSparsity(t testing.TB, w *ops.Tensor, block int) *ops.Tensor {
	t.Helper()
	units, cols, elem := w.Shape[0], w.Shape[1], w.Type.Size()
	segs := []int{0}
	var idx []int
	for r := 0; r < units; r++ {
		for c := 0; c < cols; c += block {
			row := w.Data[(r*cols+c)*elem : (r*cols+c+block)*elem]
			if slices.ContainsFunc(row, func(b byte) bool { return b != 0 }) {
				idx = append(idx, c/block)
			}
		}
		segs = append(segs, len(idx))
	}
	s := &ops.Sparsity{TraversalOrder: []int{0, 1}, Levels: []ops.SparsityLevel{
		{DenseSize: units}, {Compressed: true, Segments: segs, Indices: idx},
	}}
	if block > 1 {
		s.TraversalOrder, s.BlockMap = []int{0, 1, 2}, []int{1}
		s.Levels = append(s.Levels, ops.SparsityLevel{DenseSize: block})
	}
	w.Sparsity = s
	w.Kind = ops.ConstTensor
	return w
}

// TestWithSparsity checks withSparsity against sparse.Compress.
func TestWithSparsity(t *testing.T) {
	w := []float32{0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, -3, 0, 0, 0, 0, 0, 0}
	for _, block := range []int{1, 4} {
		traversal, blockMap, sizes := []int{0, 1}, []int(nil), []int(nil)
		formats := []sparse.Format{sparse.Dense, sparse.SparseCSR}
		if block > 1 {
			traversal, blockMap, sizes = []int{0, 1, 2}, []int{1}, []int{block}
			formats = append(formats, sparse.Dense)
		}
		wt := withSparsity(t, tensorOf(ops.Float32, []int{3, 8}, w), block)
		p, _, err := sparse.Compress(wt.Shape, traversal, blockMap, sizes, formats, wt.Data, 4)
		if err != nil {
			t.Fatal(err)
		}
		got := wt.Sparsity.Levels[1]
		if !slices.Equal(got.Segments, p.Levels[1].Segments) || !slices.Equal(got.Indices, p.Levels[1].Indices) ||
			p.Levels[0].DenseSize != 3 || (block > 1 && p.Levels[2].DenseSize != block) {
			t.Fatalf("block %d: segments %v indices %v, Compress %+v", block, got.Segments, got.Indices, p.Levels)
		}
	}
}

var fcSparseInput = []float32{
	1, 2, 3, 4, 5, 6, 7, 8, -9, -10,
	1, 2, 3, 4, 5, 6, 7, -8, 9, -10,
}

func TestFullyConnectedSparseFloatTFLite(t *testing.T) {
	relu := &FullyConnectedOptions{Activation: ops.ActRelu}
	w10 := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	w12 := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	x12 := []float32{1, 2, 3, 4, 5, 6, 7, 8, -9, -10, 11, 12, 1, 2, 3, 4, 5, 6, 7, -8, 9, -10, -11, 12}
	cases := []struct {
		name        string
		units, cols int
		block       int
		w, x, bias  []float32
		want        []float64
	}{
		{"SimpleTest", 3, 10, 1, w10, fcSparseInput, []float32{1, 2, 3}, []float64{24, 25, 26, 58, 59, 60}},
		{"SimpleTestNoBias", 3, 10, 1, w10, fcSparseInput, nil, []float64{23, 23, 23, 57, 57, 57}},
		{"SimpleTest2", 1, 2, 1, []float32{2, 4}, []float32{1, 2, 2, 1}, []float32{1}, []float64{11, 9}},
		{"Simple1x4Test", 3, 12, 4, w12, x12, []float32{1, 2, 3}, []float64{289, 290, 291, 81, 82, 83}},
		{"Simple1x4TestNoBias", 3, 12, 4, w12, x12, nil, []float64{288, 288, 288, 80, 80, 80}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins := []*ops.Tensor{
				tensorOf(ops.Float32, []int{2, c.cols}, c.x),
				withSparsity(t, tensorOf(ops.Float32, []int{c.units, c.cols}, c.w), c.block),
			}
			if c.bias != nil {
				ins = append(ins, constT(tensorOf(ops.Float32, []int{c.units}, c.bias)))
			}
			n := node(relu, ins, outTensor(ops.Float32))
			k := NewFullyConnected()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, []int{2, c.units})
			nearFloats(t, "output", n.Outputs[0].Float32s(), c.want, 0)
			noAllocs(t, k, n)
		})
	}
}

// sparseFloatRef is TFLite's sparse float FC written out directly: each
// row sums w·x over the stored runs in float32, then adds the bias.
func sparseFloatRef(x, w, bias []float32, sp *ops.Sparsity, batch, units, cols int, lo, hi float32) []float32 {
	block := 1
	if len(sp.Levels) == 3 {
		block = sp.Levels[2].DenseSize
	}
	seg, idx := sp.Levels[1].Segments, sp.Levels[1].Indices
	out := make([]float32, batch*units)
	for b := 0; b < batch; b++ {
		for u := 0; u < units; u++ {
			var acc float32
			for i := seg[u]; i < seg[u+1]; i++ {
				for j := 0; j < block; j++ {
					c := idx[i]*block + j
					p := float32(w[u*cols+c] * x[b*cols+c]) // rounded: no fused multiply-add on arm64
					acc = acc + p
				}
			}
			if bias != nil {
				acc += bias[u]
			}
			out[b*units+u] = min(max(acc, lo), hi)
		}
	}
	return out
}

func TestFullyConnectedSparseFloatRandom(t *testing.T) {
	r := lcg(11)
	for _, block := range []int{1, 4} {
		for _, sh := range [][3]int{{1, 5, 8}, {3, 17, 64}, {5, 33, 200}} {
			batch, units, cols := sh[0], sh[1], sh[2]
			x := make([]float32, batch*cols)
			w := make([]float32, units*cols)
			bias := make([]float32, units)
			for i := range x {
				x[i] = r.float(-2, 2)
			}
			for i := 0; i < len(w); i += block {
				if r.float(0, 1) < 0.6 {
					continue // a zero block
				}
				for j := 0; j < block; j++ {
					w[i+j] = r.float(-1, 1)
				}
			}
			for i := range bias {
				bias[i] = r.float(-1, 1)
			}
			wt := withSparsity(t, tensorOf(ops.Float32, []int{units, cols}, w), block)
			n := node(&FullyConnectedOptions{Activation: ops.ActRelu6}, []*ops.Tensor{
				tensorOf(ops.Float32, []int{batch, cols}, x), wt, constT(tensorOf(ops.Float32, []int{units}, bias)),
			}, outTensor(ops.Float32))
			run(t, NewFullyConnected(), n)
			want := sparseFloatRef(x, w, bias, wt.Sparsity, batch, units, cols, 0, 6)
			got := n.Outputs[0].Float32s()
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("block %d shape %v: output[%d] = %g, want %g (bit for bit)", block, sh, i, got[i], want[i])
				}
			}
			// And within 1e-5 of a float64 dense product.
			nearFloats(t, "output", got, fcRefFloat(x, w, bias, batch, units, cols, 0, 6), 1e-5)
		}
	}
}

// An Inf input facing a column that is not stored does not enter the sum
// (TFLite's sparse kernel never reads it); a dense product would give
// 0·Inf = NaN.
func TestFullyConnectedSparseFloatSkipsUnstored(t *testing.T) {
	inf := float32(math.Inf(1))
	w := []float32{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}
	for _, block := range []int{1, 4} {
		n := node(&FullyConnectedOptions{}, []*ops.Tensor{
			tensorOf(ops.Float32, []int{1, 8}, []float32{3, 1, 1, 1, inf, inf, inf, inf}),
			withSparsity(t, tensorOf(ops.Float32, []int{2, 8}, w), block),
		}, outTensor(ops.Float32))
		run(t, NewFullyConnected(), n)
		nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{3, 6}, 0)
	}
}

// sparseInt8Node is SparseQuantizedFullyConnectedOpModel: int8 input and
// output, int8 1×16-block weights, int32 bias of scale input·weights[0].
func sparseInt8Node(t *testing.T, units, batch int, in, w, bias []float32, inScale float32, inZP int64, wScales []float32, outScale float32, outZP int64) *ops.Node {
	cols := len(w) / units
	wq := make([]int8, len(w))
	for u := 0; u < units; u++ {
		s := wScales[0]
		if len(wScales) > 1 {
			s = wScales[u]
		}
		for c := 0; c < cols; c++ {
			wq[u*cols+c] = int8(max(-127, min(127, math.Round(float64(w[u*cols+c]/s)))))
		}
	}
	wt := tensorOf(ops.Int8, []int{units, cols}, wq)
	wt.Quant = &ops.Quantization{Scale: wScales, ZeroPoint: make([]int64, len(wScales))}
	withSparsity(t, wt, 16)
	xq := make([]int8, len(in))
	for i, v := range in {
		xq[i] = int8(max(-128, min(127, math.Round(float64(v/inScale))+float64(inZP))))
	}
	ins := []*ops.Tensor{q(tensorOf(ops.Int8, []int{batch, cols}, xq), inScale, inZP), wt}
	if bias != nil {
		bs := inScale * wScales[0]
		bq := make([]int32, units)
		for i, v := range bias {
			bq[i] = int32(math.Round(float64(v / bs)))
		}
		ins = append(ins, q(constT(tensorOf(ops.Int32, []int{units}, bq)), bs, 0))
	}
	return node(&FullyConnectedOptions{Activation: ops.ActRelu}, ins, q(outTensor(ops.Int8), outScale, outZP))
}

var (
	fcSparseW16 = []float32{
		1, 2, 3, 4, -1, -2, -3, -4, 1, 2, 3, 4, -4, -3, -2, -1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		-1, -2, -3, -4, 4, 3, 2, 1, -1, -2, -3, 4, 1, 2, 3, 4,
	}
	fcSparseX16 = []float32{
		1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4,
		4, 3, 2, 1, 4, 3, 2, 1, 4, 3, 2, 1, 4, 3, 2, 1,
	}
)

func TestFullyConnectedSparseInt8TFLite(t *testing.T) {
	one := []float32{1}
	pc := []float32{4.0 / 127.0, 1.0 / 127.0, 4.0 / 127.0}
	w48 := []float32{
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0.28, 0.27, 0.40, 0.38, -0.16, -0.14, -0.12, 0.03, 0.11, 0.22, 0.02, 0.27, 0.22, -0.39, 0.09, -0.27, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0.06, 0.43, -0.03, -0.30, -0.09, 0.49, 0.11, 0.24, -0.21, 0.14, -0.18, 0.84, 0.10, -0.20, -0.51, -0.12, 0.11, 0.02, -0.09, -0.01, -0.31, 0.28, -0.08, 0.32, 0.77, 0.69, 0.45, -0.20, 0.21, -0.07, -0.46, -0.20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	}
	x48 := []float32{
		0.15919347, 0.7385435, 0.01092399, 2.1284404, 0.39123753, 0.01069902, 0.6752592, 0.15486322, 0., 0., 0.16048427, 0.33702788,
		0., 1.1263783, 0., 0., 0., 0., 0.5067856, 0., 0., 0., 0.01031927, 0.,
		0., 0.07268289, 0.02804407, 0.710703, 0.35505712, 0.15339729, 0., 0., 0.5485122, 0.10860074, 0.01710763, 0.08116849,
		0.05225316, 0.03152719, 0.8149394, 0.6554623, 0.0311714, 0.02122466, 0.995122, 0.06201557, 0.16699032, 0., 0., 0.06638951,
	}
	cases := []struct {
		name string
		n    *ops.Node
		want []int
	}{
		{"Simple1x16Test", sparseInt8Node(t, 3, 2, fcSparseX16, fcSparseW16, []float32{1, 2, 3}, 1, 0, one, 1, 0), []int{11, 2, 25, 0, 2, 21}},
		{"Simple1x16TestNoBias", sparseInt8Node(t, 3, 2, fcSparseX16, fcSparseW16, nil, 1, 0, one, 1, 0), []int{10, 0, 22, 0, 0, 18}},
		{"Simple1x16TestScaledInputOutput", sparseInt8Node(t, 3, 1, x48, w48, []float32{-0.21742193, -0.38303897, -0.2735016},
			0.01739450730383396, -128, []float32{0.014362592250108719}, 0.08671142160892487, -52), []int{-52, -50, -52}},
		{"Simple1x16PerChannelQuantizationTest", sparseInt8Node(t, 3, 2, fcSparseX16, fcSparseW16, []float32{1, 2, 3}, 1, 0, pc, 1, 0), []int{11, 1, 25, 0, 1, 21}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := NewFullyConnected()
			run(t, k, c.n)
			equalInts(t, "output", c.n.Outputs[0].Int8s(), c.want)
			noAllocs(t, k, c.n)
		})
	}
}

// TestFullyConnectedSparseInt8Random: the sparse int8 kernel rescales
// with TFLite's MultiplyByQuantizedMultiplier (ties away from zero), not
// the ruy rounding of the dense path; random cases against a direct
// reference, with per-tensor and per-channel scales.
func TestFullyConnectedSparseInt8Random(t *testing.T) {
	r := lcg(5)
	ties := 0
	for trial := 0; trial < 40; trial++ {
		batch, units, cols := 1+trial%3, 1+trial%7, 16*(1+trial%4)
		w := make([]int8, units*cols)
		for i := 0; i < len(w); i += 16 {
			if r.float(0, 1) < 0.5 {
				continue
			}
			for j := 0; j < 16; j++ {
				w[i+j] = int8(r.float(-127, 127))
			}
		}
		x := make([]int8, batch*cols)
		for i := range x {
			x[i] = int8(r.float(-128, 127))
		}
		bias := make([]int32, units)
		for i := range bias {
			bias[i] = int32(r.float(-5000, 5000))
		}
		inZP, outZP := int64(r.float(-20, 20)), int64(r.float(-20, 20))
		wScales := []float32{0.5}
		if trial%2 == 1 {
			wScales = make([]float32, units)
			for i := range wScales {
				wScales[i] = r.float(0.1, 1)
			}
		}
		wt := tensorOf(ops.Int8, []int{units, cols}, w)
		wt.Quant = &ops.Quantization{Scale: wScales, ZeroPoint: make([]int64, len(wScales))}
		withSparsity(t, wt, 16)
		// Output scale 2^k·input·weights: exact halves are common.
		const inScale, outScale = 0.25, 8
		n := node(&FullyConnectedOptions{}, []*ops.Tensor{
			q(tensorOf(ops.Int8, []int{batch, cols}, x), inScale, inZP), wt,
			q(constT(tensorOf(ops.Int32, []int{units}, bias)), inScale*wScales[0], 0),
		}, q(outTensor(ops.Int8), outScale, outZP))
		run(t, NewFullyConnected(), n)
		got := n.Outputs[0].Int8s()
		for b := 0; b < batch; b++ {
			for u := 0; u < units; u++ {
				acc := bias[u]
				for c := 0; c < cols; c++ {
					acc += int32(w[u*cols+c]) * (int32(x[b*cols+c]) - int32(inZP))
				}
				s := wScales[0]
				if len(wScales) > 1 {
					s = wScales[u]
				}
				mult, shift := ops.QuantizeMultiplier(float64(inScale) * float64(s) / outScale)
				v := refMultiplyByQuantizedMultiplier(acc, mult, shift) + int32(outZP)
				if refMultiplyByQuantizedMultiplier(acc, mult, shift) != ops.MultiplyByQuantizedMultiplierUp(acc, mult, shift) {
					ties++
				}
				want := int8(max(-128, min(127, v)))
				if got[b*units+u] != want {
					t.Fatalf("trial %d: output[%d, %d] = %d, want %d", trial, b, u, got[b*units+u], want)
				}
			}
		}
	}
	if ties == 0 {
		t.Fatal("no case distinguishes the two roundings")
	}
}

// refMultiplyByQuantizedMultiplier is gemmlowp's
// SaturatingRoundingDoublingHighMul then RoundingDivideByPOT (ties away
// from zero), written out.
func refMultiplyByQuantizedMultiplier(x, m int32, shift int) int32 {
	left, right := max(shift, 0), max(-shift, 0)
	a := int64(x) << left
	if a > math.MaxInt32 || a < math.MinInt32 {
		a = int64(int32(a)) // wraps as the C++ int32 shift
	}
	var hi int32
	if int32(a) == math.MinInt32 && m == math.MinInt32 {
		hi = math.MaxInt32
	} else {
		p := a * int64(m)
		nudge := int64(1 << 30)
		if p < 0 {
			nudge = 1 - 1<<30
		}
		hi = int32((p + nudge) / (1 << 31))
	}
	if right == 0 {
		return hi
	}
	mask := int32(1)<<right - 1
	rem := hi & mask
	th := mask >> 1
	if hi < 0 {
		th++
	}
	res := hi >> right
	if rem > th {
		res++
	}
	return res
}

func TestFullyConnectedSparseHybridTFLite(t *testing.T) {
	wf := []float32{
		1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 10.1, 11.11, 12.12, 13.13, 14.14, 15.15, 16.16,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 10.1, 11.11, 12.12, 13.13, 14.14, 15.15, 16.16,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		-1.1, -2.2, -3.3, -4.4, -5.5, -6.6, -7.7, -8.8, -9.9, -10.1, -11.11, -12.12, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1.1, -2.2, 3.3, -4.4, 5.5, -6.6, 7.7, -8.8, 9.9, -10.1, 11.11, -12.12, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		-1.1, 2.2, -3.3, 4.4, -5.5, 6.6, -7.7, 8.8, -9.9, 10.1, -11.11, 12.12, -13.13, 14.14, -15.15, 16.16,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		-1.1, 2.2, -3.3, 4.4, -5.5, 6.6, -7.7, 8.8, -9.9, 10.1, -11.11, 12.12, 0, 0, 0, 0,
	}
	x := []float32{
		1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1,
		1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1,
		2.5, 0, -2.1, 0, 3.0, 0, -1.3, 0, 1.3, 0, -1.1, 0, 2.0, 0, -1.7, 0, 1.9, 0, -1.5, 0,
		0.5, 0, -0.7, 0, 0.8, 0, -0.3, 0, 2.8, 0, -2.8, 0, 1.1, -2.3, 1.9, -1.9, 2.1, -0.5, 2.4, -0.1,
		1.0, -2.5, 0.7, -1.9, 0.2, 0.1, 0.2, 0.3,
	}
	// The test model quantises the float weights symmetrically, one scale.
	wq := make([]int8, len(wf))
	ws := ops.SymmetricQuantizeFloats(wf, wq)
	for _, asym := range []bool{false, true} {
		wt := withSparsity(t, tensorOf(ops.Int8, []int{4, 48}, wq), 16)
		wt.Quant = &ops.Quantization{Scale: []float32{ws}, ZeroPoint: []int64{0}}
		n := node(&FullyConnectedOptions{Activation: ops.ActRelu, AsymmetricQuantizeInputs: asym}, []*ops.Tensor{
			tensorOf(ops.Float32, []int{2, 48}, x), wt, constT(tensorOf(ops.Float32, []int{4}, []float32{1, 2, 3, 4})),
		}, outTensor(ops.Float32))
		k := NewFullyConnected()
		run(t, k, n)
		want := []float64{0, 7.4715, 85.8359, 0, 5.9655, 3.0520, 1.9480, 0}
		if asym {
			want = []float64{0, 7.4500, 85.5111, 0, 5.9750, 2.8856, 2.1144, 0}
		}
		nearFloats(t, "output", n.Outputs[0].Float32s(), want, 1e-3)
		noAllocs(t, k, n)
	}

	// SparseHybrid1x16PerChannelTest.
	pc := []float32{4.0 / 127.0, 1.0 / 127.0, 4.0 / 127.0}
	wq3 := make([]int8, 48)
	for u := 0; u < 3; u++ {
		for c := 0; c < 16; c++ {
			wq3[u*16+c] = int8(math.Round(float64(fcSparseW16[u*16+c] / pc[u])))
		}
	}
	wt := withSparsity(t, tensorOf(ops.Int8, []int{3, 16}, wq3), 16)
	wt.Quant = &ops.Quantization{Scale: pc, ZeroPoint: make([]int64, 3)}
	n := node(&FullyConnectedOptions{Activation: ops.ActRelu}, []*ops.Tensor{
		tensorOf(ops.Float32, []int{2, 16}, fcSparseX16), wt, constT(tensorOf(ops.Float32, []int{3}, []float32{1, 2, 3})),
	}, outTensor(ops.Float32))
	run(t, NewFullyConnected(), n)
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{10.9061, 2, 25.0938, 0, 2, 20.9691}, 1e-3)
}

// The hybrid sparse path against the dense hybrid path on the same
// weights: the integer dot products agree exactly, the float arithmetic
// after them differs only in rounding (asymmetric: the zero-point term
// is subtracted before the product is added).
func TestFullyConnectedSparseHybridRandom(t *testing.T) {
	r := lcg(9)
	for trial := 0; trial < 12; trial++ {
		batch, units, cols := 1+trial%4, 2+trial%5, 16*(1+trial%3)
		w := make([]int8, units*cols)
		for i := 0; i < len(w); i += 16 {
			if r.float(0, 1) < 0.4 {
				continue
			}
			for j := 0; j < 16; j++ {
				w[i+j] = int8(r.float(-127, 127))
			}
		}
		x := make([]float32, batch*cols)
		for i := range x {
			x[i] = r.float(-3, 3)
		}
		for _, asym := range []bool{false, true} {
			var outs [2][]float32
			for s := 0; s < 2; s++ {
				wt := tensorOf(ops.Int8, []int{units, cols}, w)
				wt.Kind = ops.ConstTensor
				if s == 1 {
					withSparsity(t, wt, 16)
				}
				wt.Quant = &ops.Quantization{Scale: []float32{0.02}, ZeroPoint: []int64{0}}
				n := node(&FullyConnectedOptions{AsymmetricQuantizeInputs: asym}, []*ops.Tensor{
					tensorOf(ops.Float32, []int{batch, cols}, x), wt,
				}, outTensor(ops.Float32))
				run(t, NewFullyConnected(), n)
				outs[s] = n.Outputs[0].Float32s()
			}
			want := make([]float64, len(outs[0]))
			for i, v := range outs[0] {
				want[i] = float64(v)
			}
			nearFloats(t, "sparse vs dense hybrid", outs[1], want, 1e-5)
		}
	}
}

func TestFullyConnectedSparseRefused(t *testing.T) {
	f32 := func(units, cols int) *ops.Tensor {
		w := make([]float32, units*cols)
		for i := range w {
			w[i] = float32(i%5) - 2
		}
		return tensorOf(ops.Float32, []int{units, cols}, w)
	}
	i8 := func(units, cols int, zp int64) *ops.Tensor {
		w := make([]int8, units*cols)
		for i := range w {
			w[i] = int8(i%5) - 2
		}
		t := tensorOf(ops.Int8, []int{units, cols}, w)
		t.Quant = &ops.Quantization{Scale: []float32{0.5}, ZeroPoint: []int64{zp}}
		return t
	}
	fin := func(cols int) *ops.Tensor { return tensorOf(ops.Float32, []int{1, cols}, make([]float32, cols)) }
	qin := func(cols int) *ops.Tensor { return q(tensorOf(ops.Int8, []int{1, cols}, make([]int8, cols)), 0.5, 0) }
	cases := []struct {
		name string
		in   *ops.Tensor
		w    func() *ops.Tensor
		out  *ops.Tensor
		want string
	}{
		{"float 1x16", fin(32), func() *ops.Tensor { return withSparsity(t, f32(2, 32), 16) }, outTensor(ops.Float32), "1x4 blocks"},
		{"int8 random", qin(32), func() *ops.Tensor { return withSparsity(t, i8(2, 32, 0), 1) }, q(outTensor(ops.Int8), 1, 0), "1x16 blocks"},
		{"int8 1x4", qin(32), func() *ops.Tensor { return withSparsity(t, i8(2, 32, 0), 4) }, q(outTensor(ops.Int8), 1, 0), "1x16 blocks"},
		{"int8 asymmetric", qin(32), func() *ops.Tensor { return withSparsity(t, i8(2, 32, 3), 16) }, q(outTensor(ops.Int8), 1, 0), "symmetric"},
		{"hybrid 1x4", fin(32), func() *ops.Tensor { return withSparsity(t, i8(2, 32, 0), 4) }, outTensor(ops.Float32), "1x16 blocks"},
		{"first level compressed", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(2, 8), 1)
			w.Sparsity.Levels[0].Compressed = true
			return w
		}, outTensor(ops.Float32), "first level must be dense"},
		{"second level dense", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(2, 8), 1)
			w.Sparsity.Levels[1].Compressed = false
			return w
		}, outTensor(ops.Float32), "second CSR"},
		{"column-major traversal", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(2, 8), 1)
			w.Sparsity.TraversalOrder = []int{1, 0}
			return w
		}, outTensor(ops.Float32), "traversal"},
		{"block over rows", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(8, 8), 4)
			w.Sparsity.BlockMap = []int{0}
			return w
		}, outTensor(ops.Float32), "block map"},
		{"four levels", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(2, 8), 4)
			w.Sparsity.Levels = append(w.Sparsity.Levels, ops.SparsityLevel{DenseSize: 1})
			return w
		}, outTensor(ops.Float32), "4 levels"},
		{"rows mismatch", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(2, 8), 1)
			w.Sparsity.Levels[0].DenseSize = 3
			return w
		}, outTensor(ops.Float32), "does not describe"},
		{"index out of range", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(2, 8), 1)
			w.Sparsity.Levels[1].Indices[0] = 8
			return w
		}, outTensor(ops.Float32), "out of range"},
		{"segments out of range", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(2, 8), 1)
			w.Sparsity.Levels[1].Segments[2] = 99
			return w
		}, outTensor(ops.Float32), "out of range"},
		{"decreasing segments", fin(8), func() *ops.Tensor {
			w := withSparsity(t, f32(2, 8), 1)
			w.Sparsity.Levels[1].Segments[1] = -1
			return w
		}, outTensor(ops.Float32), "out of range"},
		{"uint8 weights", q(tensorOf(ops.Uint8, []int{1, 16}, make([]uint8, 16)), 1, 0), func() *ops.Tensor {
			w := tensorOf(ops.Uint8, []int{2, 16}, make([]uint8, 32))
			w.Quant = &ops.Quantization{Scale: []float32{1}, ZeroPoint: []int64{0}}
			return withSparsity(t, w, 16)
		}, q(outTensor(ops.Uint8), 1, 0), "not supported"},
	}
	for _, c := range cases {
		n := node(&FullyConnectedOptions{}, []*ops.Tensor{c.in, c.w()}, c.out)
		err := prepare(NewFullyConnected(), n)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Prepare error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// The hybrid kernel's byte-wide ledger: a block column of 256 or more.
	cols := 16 * 257
	w := make([]int8, cols)
	w[cols-1] = 1
	wt := withSparsity(t, tensorOf(ops.Int8, []int{1, cols}, w), 16)
	wt.Quant = &ops.Quantization{Scale: []float32{1}, ZeroPoint: []int64{0}}
	n := node(&FullyConnectedOptions{}, []*ops.Tensor{fin(cols), wt}, outTensor(ops.Float32))
	if err := prepare(NewFullyConnected(), n); err == nil || !strings.Contains(err.Error(), "byte") {
		t.Errorf("hybrid block column 256: Prepare error %v", err)
	}
}

// BenchmarkFullyConnectedSparse compares the sparse kernels with the
// dense ones on the same weights (512×1024, 80% of the blocks zero,
// batch 1, one thread).
func BenchmarkFullyConnectedSparse(b *testing.B) {
	const units, cols = 512, 1024
	r := lcg(1)
	for _, c := range []struct {
		name  string
		typ   ops.DataType
		block int
	}{{"float1x4", ops.Float32, 4}, {"int8_1x16", ops.Int8, 16}} {
		wf := make([]float32, units*cols)
		w8 := make([]int8, units*cols)
		for i := 0; i < len(wf); i += c.block {
			if r.float(0, 1) < 0.8 {
				continue
			}
			for j := 0; j < c.block; j++ {
				wf[i+j] = r.float(-1, 1)
				w8[i+j] = int8(r.float(-127, 127))
			}
		}
		for _, sparseW := range []bool{true, false} {
			var n *ops.Node
			if c.typ == ops.Float32 {
				wt := constT(tensorOf(ops.Float32, []int{units, cols}, wf))
				if sparseW {
					withSparsity(b, wt, c.block)
				}
				n = node(&FullyConnectedOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, cols}, make([]float32, cols)), wt}, outTensor(ops.Float32))
			} else {
				wt := q(constT(tensorOf(ops.Int8, []int{units, cols}, w8)), 0.01, 0)
				if sparseW {
					withSparsity(b, wt, c.block)
				}
				n = node(&FullyConnectedOptions{}, []*ops.Tensor{q(tensorOf(ops.Int8, []int{1, cols}, make([]int8, cols)), 0.1, 0), wt}, q(outTensor(ops.Int8), 1, 0))
			}
			k := NewFullyConnected()
			if err := prepare(k, n); err != nil {
				b.Fatal(err)
			}
			name := c.name + "/dense"
			if sparseW {
				name = c.name + "/sparse"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					if err := k.Eval(n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
