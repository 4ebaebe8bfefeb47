package arch

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// Benchmarks of every primitive at every implementation this CPU can run:
//
//	go test ./arch -run='^$' -bench=. -benchtime=200ms
//
// TestSpeedRatios (TFLRUN_BENCH_RATIOS=1) measures the same cases in one
// run and logs each implementation's time as a speed-up over the portable
// one.

// benchCase is one primitive on one shape: run(f) returns a function
// timing b.N calls of implementation index i.
type benchCase struct {
	name  string
	impls []string
	run   func(i int) func(b *testing.B)
}

func matVecCase(rows, cols int) benchCase {
	r := rand.New(rand.NewPCG(1, uint64(cols)))
	m, x, dst := make([]float32, rows*cols), make([]float32, cols), make([]float32, rows)
	genF32(r, m, kindUniform)
	genF32(r, x, kindUniform)
	list := implsOf(matVecMulAccImpls)
	c := benchCase{name: fmt.Sprintf("MatVecMulAcc/%dx%d", rows, cols)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			b.SetBytes(int64(4 * rows * cols))
			for b.Loop() {
				f(dst, m, rows, cols, x)
			}
		}
	}
	return c
}

func matVecInt8Case(rows, cols int) benchCase {
	r := rand.New(rand.NewPCG(2, uint64(cols)))
	m, x, dst := make([]int8, rows*cols), make([]int8, cols), make([]int32, rows)
	genI8(r, m, 0)
	genI8(r, x, 0)
	list := implsOf(matVecMulAccInt8Impls)
	c := benchCase{name: fmt.Sprintf("MatVecMulAccInt8/%dx%d", rows, cols)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			b.SetBytes(int64(rows * cols))
			for b.Loop() {
				f(dst, m, rows, cols, x)
			}
		}
	}
	return c
}

func rowSumsCase(rows, cols int) benchCase {
	r := rand.New(rand.NewPCG(3, uint64(cols)))
	m, dst := make([]int8, rows*cols), make([]int32, rows)
	genI8(r, m, 0)
	list := implsOf(rowSumsInt8Impls)
	c := benchCase{name: fmt.Sprintf("RowSumsInt8/%dx%d", rows, cols)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, m, rows, cols)
			}
		}
	}
	return c
}

func dotCase(n int) benchCase {
	r := rand.New(rand.NewPCG(4, uint64(n)))
	a, x := make([]float32, n), make([]float32, n)
	genF32(r, a, kindUniform)
	genF32(r, x, kindUniform)
	list := implsOf(dotImpls)
	c := benchCase{name: fmt.Sprintf("Dot/%d", n)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	var sink float32
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				sink += f(a, x)
			}
		}
	}
	return c
}

func dotInt8Case(n int) benchCase {
	r := rand.New(rand.NewPCG(5, uint64(n)))
	a, x := make([]int8, n), make([]int8, n)
	genI8(r, a, 0)
	genI8(r, x, 0)
	list := implsOf(dotInt8Impls)
	c := benchCase{name: fmt.Sprintf("DotInt8/%d", n)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	var sink int32
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				sink += f(a, x)
			}
		}
	}
	return c
}

func elementwiseCase(p *impls[func(dst, a, b []float32)], n int) benchCase {
	r := rand.New(rand.NewPCG(6, uint64(n)))
	a, x, dst := make([]float32, n), make([]float32, n), make([]float32, n)
	genF32(r, a, kindUniform)
	genF32(r, x, kindUniform)
	list := implsOf(p)
	c := benchCase{name: fmt.Sprintf("%s/%d", p.name, n)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, a, x)
			}
		}
	}
	return c
}

func activationCase(p *impls[actFunc], n int) benchCase {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	x, dst := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64() * 4)
	}
	list := implsOf(p)
	c := benchCase{name: fmt.Sprintf("%s/%d", p.name, n)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, x)
			}
		}
	}
	return c
}

func requantCase(n int) benchCase {
	r := rand.New(rand.NewPCG(8, uint64(n)))
	acc, dst := make([]int32, n), make([]int16, n)
	for i := range acc {
		acc[i] = int32(r.IntN(1<<20) - 1<<19)
	}
	list := implsOf(requantAccInt16Impls)
	c := benchCase{name: fmt.Sprintf("RequantizeAccInt16/%d", n)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				clear(dst)
				f(dst, acc, 1<<30+12345, -7)
			}
		}
	}
	return c
}

func requantInt8Case(n int) benchCase {
	r := rand.New(rand.NewPCG(9, uint64(n)))
	acc, dst := make([]int32, n), make([]int8, n)
	for i := range acc {
		acc[i] = int32(r.IntN(1<<20) - 1<<19)
	}
	list := implsOf(requantInt8Impls)
	c := benchCase{name: fmt.Sprintf("RequantizeInt8/%d", n)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, acc, 1<<30+12345, -9, -3, -128, 127, tieAway)
			}
		}
	}
	return c
}

// maxBlocksCase times MaxBlocksF32 on n blocks of width values, the src
// blocks stride·width apart (n = 1: VecMaxF32 of width values; n = 32,
// stride 2: one tap of an output row of a 2×2, stride-2 max pool).
func maxBlocksCase(n, width, stride int) benchCase {
	r := rand.New(rand.NewPCG(10, uint64(n*width)))
	src, dst := make([]float32, ((n-1)*stride+1)*width), make([]float32, n*width)
	genF32(r, src, kindUniform)
	genF32(r, dst, kindUniform)
	list := implsOf(maxBlocksF32Impls)
	c := benchCase{name: fmt.Sprintf("MaxBlocksF32/%dx%d", n, width)}
	for _, im := range list {
		c.impls = append(c.impls, im.name)
	}
	c.run = func(i int) func(b *testing.B) {
		f := list[i].fn
		return func(b *testing.B) {
			for b.Loop() {
				f(dst, src, n, width, width, stride*width)
			}
		}
	}
	return c
}

func benchCases() []benchCase {
	return []benchCase{
		matVecCase(512, 256), matVecCase(512, 1024), matVecCase(20, 28), matVecCase(128, 257),
		dotCase(256),
		elementwiseCase(vecAddImpls, 1024), elementwiseCase(vecMulImpls, 1024), elementwiseCase(vecMulAccImpls, 1024),
		elementwiseCase(vecMulAccImpls, 20), elementwiseCase(vecMulAccImpls, 128),
		activationCase(sigmoidImpls, 1024), activationCase(tanhImpls, 1024), activationCase(sigmoidImpls, 20),
		matVecInt8Case(512, 256), matVecInt8Case(512, 1024), matVecInt8Case(128, 257), matVecInt8Case(20, 28), matVecInt8Case(80, 20), matVecInt8Case(80, 48),
		dotInt8Case(256), rowSumsCase(512, 257),
		requantCase(20), requantCase(128), requantCase(1024), requantInt8Case(257),
		maxBlocksCase(1, 4, 1), maxBlocksCase(1, 16, 1), maxBlocksCase(1, 1024, 1),
		maxBlocksCase(32, 4, 2), maxBlocksCase(32, 16, 2), maxBlocksCase(16, 32, 2),
	}
}

func BenchmarkPrimitives(b *testing.B) {
	for _, c := range benchCases() {
		for i, name := range c.impls {
			b.Run(c.name+"/"+name, c.run(i))
		}
	}
}

// TestSpeedRatios logs ns/op of every implementation and its speed-up
// over the portable one, all measured in this one run. It is skipped
// unless TFLRUN_BENCH_RATIOS is set (it takes tens of seconds).
func TestSpeedRatios(t *testing.T) {
	if os.Getenv("TFLRUN_BENCH_RATIOS") == "" {
		t.Skip("set TFLRUN_BENCH_RATIOS=1 to measure")
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-28s", "case")
	for _, c := range benchCases() {
		var gen float64
		fmt.Fprintf(&sb, "\n%-28s", c.name)
		for i, name := range c.impls {
			res := testing.Benchmark(c.run(i))
			ns := float64(res.T.Nanoseconds()) / float64(res.N)
			if i == 0 {
				gen = ns
				fmt.Fprintf(&sb, " %s %9.1f ns", name, ns)
				continue
			}
			fmt.Fprintf(&sb, " | %s %9.1f ns %5.1fx", name, ns, gen/ns)
		}
	}
	t.Log(sb.String())
}
