package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// Benchmarks of the GEMM family on the layer shapes of MobileNet v1 0.25
// at 96×96 (vww_96): m pixels, n output channels, k reduction length.

var gemmBenchShapes = []struct{ m, n, k int }{
	{2304, 8, 27},  // 3×3 stride-2 input layer (im2col)
	{2304, 16, 8},  // pointwise 48×48 8→16
	{576, 32, 32},  // pointwise 24×24 32→32
	{144, 64, 64},  // pointwise 12×12 64→64
	{36, 128, 128}, // pointwise 6×6 128→128
	{9, 256, 256},  // pointwise 3×3 256→256
}

func gemmF32Case(m, n, k int) benchCase {
	r := rand.New(rand.NewPCG(21, uint64(m*n*k)))
	a, w, bias, dst := make([]float32, m*k), make([]float32, n*k), make([]float32, n), make([]float32, m*n)
	genF32(r, a, kindUniform)
	genF32(r, w, kindUniform)
	packed := make([]float32, PackedGemmF32Len(n, k))
	PackGemmF32(packed, w, n, k)
	list := implsOf(gemmF32Impls)
	c := benchCase{name: fmt.Sprintf("GemmF32/%dx%dx%d", m, n, k)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, n, a, k, packed, bias, m, n, k, k, 0, math.MaxFloat32, gemmFinal)
			}
			b.ReportMetric(float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		}
	}
	return c
}

func gemmInt8Case(m, n, k int) benchCase {
	r := rand.New(rand.NewPCG(22, uint64(m*n*k)))
	a, w, seed, dst := make([]int8, m*k), make([]int8, n*k), make([]int32, n), make([]int32, m*n)
	genI8(r, a, 0)
	genI8(r, w, 0)
	packed := make([]int8, PackedGemmInt8Len(n, k))
	PackGemmInt8(packed, w, n, k)
	list := implsOf(gemmInt8Impls)
	c := benchCase{name: fmt.Sprintf("GemmInt8/%dx%dx%d", m, n, k)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, n, a, k, packed, seed, m, n, k)
			}
			b.ReportMetric(float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		}
	}
	return c
}

func requantChannelsCase(pixels, n int) benchCase {
	r := rand.New(rand.NewPCG(23, uint64(pixels*n)))
	q, _, _ := randomChannelRequant(nil, r, n)
	acc, dst := make([]int32, pixels*n), make([]byte, pixels*n)
	for i := range acc {
		acc[i] = int32(r.IntN(1<<20) - 1<<19)
	}
	list := implsOf(requantChannelsImpls)
	c := benchCase{name: fmt.Sprintf("RequantizeChannels/%dx%d", pixels, n)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, acc, q, -128, -128, 127)
			}
		}
	}
	return c
}

func gemmInt8RqCase(m, n, k int) benchCase {
	r := rand.New(rand.NewPCG(24, uint64(m*n*k)))
	a, w, seed, dst := make([]int8, m*k), make([]int8, n*k), make([]int32, n), make([]byte, m*n)
	genI8(r, a, 0)
	genI8(r, w, 0)
	packed := make([]int8, PackedGemmInt8Len(n, k))
	PackGemmInt8(packed, w, n, k)
	q, _, _ := randomChannelRequant(nil, r, n)
	list := implsOf(gemmInt8RqImpls)
	c := benchCase{name: fmt.Sprintf("GemmInt8Requantize/%dx%dx%d", m, n, k)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, n, a, k, packed, seed, 0, q, m, n, k, -128, -128, 127)
			}
			b.ReportMetric(float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		}
	}
	return c
}

// dwCase is the interior of a 3×3 stride-1 depthwise layer of h×w×c in
// mode 0 (float) or 2 (requantised int8).
func dwCase(h, w, c, mode int) benchCase {
	r := rand.New(rand.NewPCG(25, uint64(h*w*c)))
	inRow := w * c
	x, wt, dst := make([]float32, h*inRow), make([]float32, 9*c), make([]byte, 4*h*w*c)
	bias := make([]uint32, c)
	for i := range x {
		x[i] = float32(r.IntN(255) - 127)
	}
	for i := range wt {
		wt[i] = float32(r.IntN(255) - 127)
	}
	g := DepthwiseGeom{Rows: h - 2, Cols: w - 2, C: c, TapRows: 3, TapCols: 3, XRowStep: inRow, XColStep: c,
		XTapRow: inRow, XTapCol: c, DstRowStep: (w - 2) * c, WTapRow: 3 * c}
	a := g.args(mode)
	name := "DepthwiseConvF32"
	if mode == 2 {
		name = "DepthwiseConvRequantizeInt8"
		q, _, _ := randomChannelRequant(nil, r, c)
		a.qp, a.qStride, a.zp, a.lo, a.hi = &q.p[0], 4*q.stride, -128, -128, 127
		a.rqFlags = q.rqFlags(-128, 127)
	}
	list := implsOf(dwConvImpls)
	cs := benchCase{name: fmt.Sprintf("%s/%dx%dx%d", name, h-2, w-2, c)}
	for _, im := range list {
		cs.impls = append(cs.impls, im.name)
	}
	cs.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, x, wt, bias, a, 0, 6)
			}
		}
	}
	return cs
}

func int8ToF32Case(n int) benchCase {
	src, dst := make([]byte, n), make([]float32, n)
	list := implsOf(int8ToF32Impls)
	c := benchCase{name: fmt.Sprintf("Int8ToF32/%d", n)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, src, -3, false)
			}
		}
	}
	return c
}

func gemmBenchCases() []benchCase {
	var cs []benchCase
	for _, s := range gemmBenchShapes {
		cs = append(cs, gemmF32Case(s.m, s.n, s.k))
	}
	for _, s := range gemmBenchShapes {
		cs = append(cs, gemmInt8Case(s.m, s.n, s.k))
	}
	for _, s := range gemmBenchShapes {
		cs = append(cs, gemmInt8RqCase(s.m, s.n, s.k))
	}
	cs = append(cs, requantChannelsCase(2304, 8), requantChannelsCase(2304, 16), requantChannelsCase(36, 128),
		dwCase(48, 48, 16, 0), dwCase(24, 24, 32, 0), dwCase(6, 6, 128, 0),
		dwCase(48, 48, 16, 2), dwCase(24, 24, 32, 2), dwCase(6, 6, 128, 2),
		int8ToF32Case(18432))
	return cs
}

// BenchmarkGemm benchmarks the GEMM, depthwise, requantisation and
// conversion primitives at every level:
//
//	go test ./arch -run='^$' -bench=Gemm -benchtime=200ms
func BenchmarkGemm(b *testing.B) {
	for _, c := range gemmBenchCases() {
		for i, name := range c.impls {
			b.Run(c.name+"/"+name, c.run(i))
		}
	}
}

// TestCNNKernelRatios (TFLRUN_BENCH_RATIOS=1) measures, in one run at the
// level in use, the convolution kernels before this package had GEMM and
// depthwise primitives (as ops ran them: one matrix-vector product per
// output pixel plus Go loops for bias, clamp and requantisation; the
// depthwise layer one VecMulAcc per filter tap over a row with the tap's
// weights repeated) against the new ones, on vww_96 layer shapes, and
// logs the times and speed-ups.
func TestCNNKernelRatios(t *testing.T) {
	if os.Getenv("TFLRUN_BENCH_RATIOS") == "" {
		t.Skip("set TFLRUN_BENCH_RATIOS=1 to measure")
	}
	r := rand.New(rand.NewPCG(5, 6))
	type pair struct {
		name     string
		old, new func()
	}
	var cases []pair
	for _, s := range gemmBenchShapes {
		m, n, k := s.m, s.n, s.k
		a, w, bias, dst := make([]float32, m*k), make([]float32, n*k), make([]float32, n), make([]float32, m*n)
		genF32(r, a, kindUniform)
		genF32(r, w, kindUniform)
		packed := make([]float32, PackedGemmF32Len(n, k))
		PackGemmF32(packed, w, n, k)
		cases = append(cases, pair{fmt.Sprintf("float conv %dx%dx%d", m, n, k),
			func() {
				fillRows(dst, bias)
				MatBatchVecMulAcc(dst, w, n, k, a, m)
				for i, v := range dst {
					dst[i] = min(max(v, 0), 6)
				}
			},
			func() { GemmF32(dst, n, a, k, packed, bias, m, n, k, 0, 6) }})
		a8, w8, seed, acc, out := make([]int8, m*k), make([]int8, n*k), make([]int32, n), make([]int32, m*n), make([]int8, m*n)
		genI8(r, a8, 0)
		genI8(r, w8, 0)
		packed8 := make([]int8, PackedGemmInt8Len(n, k))
		PackGemmInt8(packed8, w8, n, k)
		q, _, _ := randomChannelRequant(t, r, n)
		cases = append(cases, pair{fmt.Sprintf("int8 conv %dx%dx%d", m, n, k),
			func() {
				for p := 0; p < m; p++ {
					copy(acc[p*n:(p+1)*n], seed)
					MatVecMulAccInt8(acc[p*n:(p+1)*n], w8, n, k, a8[p*k:(p+1)*k])
				}
				requantChannelsGeneric(viewBytes(out), acc, q, -128, -128, 127)
			},
			func() { GemmInt8RequantizeInt8(out, n, a8, k, packed8, seed, 0, q, m, n, k, -128, -128, 127) }})
	}
	for _, l := range []struct{ h, w, c int }{{48, 48, 8}, {24, 24, 32}, {6, 6, 128}} {
		// The interior of a 3×3 stride-1 depthwise layer: rows × cols
		// outputs over an (rows+2) × (cols+2) input.
		rows, cols, c := l.h-2, l.w-2, l.c
		inRow := l.w * c
		x, w, b := make([]float32, l.h*inRow), make([]float32, 9*c), make([]float32, c)
		genF32(r, x, kindUniform)
		genF32(r, w, kindUniform)
		dst := make([]float32, rows*cols*c)
		wRep := make([]float32, 9*cols*c) // the old row mode's repeated weights
		for tp := 0; tp < 9; tp++ {
			for i := 0; i < cols*c; i++ {
				wRep[tp*cols*c+i] = w[tp*c+i%c]
			}
		}
		g := DepthwiseGeom{Rows: rows, Cols: cols, C: c, TapRows: 3, TapCols: 3, XRowStep: inRow, XColStep: c,
			XTapRow: inRow, XTapCol: c, DstRowStep: cols * c, WTapRow: 3 * c}
		cases = append(cases, pair{fmt.Sprintf("float depthwise %dx%dx%d", rows, cols, c),
			func() {
				for y := 0; y < rows; y++ {
					d := dst[y*cols*c : (y+1)*cols*c]
					fillRows(d, b)
					for tp := 0; tp < 9; tp++ {
						src := x[(y+tp/3)*inRow+(tp%3)*c:]
						VecMulAcc(d, src[:cols*c], wRep[tp*cols*c:(tp+1)*cols*c])
					}
					for i, v := range d {
						d[i] = min(max(v, 0), 6)
					}
				}
			},
			func() { DepthwiseConvF32(dst, x, w, b, g, 0, 6) }})
	}
	cases = append(cases, func() pair {
		n, pixels := 16, 2304
		acc, out := make([]int32, n*pixels), make([]int8, n*pixels)
		for i := range acc {
			acc[i] = int32(r.IntN(1<<20) - 1<<19)
		}
		q, _, _ := randomChannelRequant(t, r, n)
		return pair{"requantise 2304x16", func() { requantChannelsGeneric(viewBytes(out), acc, q, -3, -128, 127) },
			func() { RequantizeChannelsInt8(out, acc, q, -3, -128, 127) }}
	}())
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nlevel %s\n%-32s %12s %12s %8s", Current(), "case", "old ns", "new ns", "speed-up")
	for _, c := range cases {
		time := func(f func()) float64 {
			best := math.Inf(1)
			for range 2 {
				res := testing.Benchmark(func(b *testing.B) {
					for b.Loop() {
						f()
					}
				})
				best = min(best, float64(res.T.Nanoseconds())/float64(res.N))
			}
			return best
		}
		o, n := time(c.old), time(c.new)
		fmt.Fprintf(&sb, "\n%-32s %12.0f %12.0f %7.1fx", c.name, o, n, o/n)
	}
	t.Log(sb.String())
}

// fillRows sets every row of len(b) values of dst to b with doubling
// copies (as ops filled bias rows).
func fillRows(dst, b []float32) {
	copy(dst, b)
	for filled := len(b); filled < len(dst); filled *= 2 {
		copy(dst[filled:], dst[:filled])
	}
}

// TestCNNSpeedRatios (TFLRUN_BENCH_RATIOS=1) logs the speed-up of every
// implementation of the convolution primitives over the portable one,
// measured in one run (as TestSpeedRatios does for the others).
func TestCNNSpeedRatios(t *testing.T) {
	if os.Getenv("TFLRUN_BENCH_RATIOS") == "" {
		t.Skip("set TFLRUN_BENCH_RATIOS=1 to measure")
	}
	var sb strings.Builder
	for _, c := range gemmBenchCases() {
		var gen float64
		fmt.Fprintf(&sb, "\n%-44s", c.name)
		for i, name := range c.impls {
			res := testing.Benchmark(c.run(i))
			ns := float64(res.T.Nanoseconds()) / float64(res.N)
			if i == 0 {
				gen = ns
				fmt.Fprintf(&sb, " %s %9.0f ns", name, ns)
				continue
			}
			fmt.Fprintf(&sb, " | %s %8.0f ns %6.1fx", name, ns, gen/ns)
		}
	}
	t.Log(sb.String())
}
