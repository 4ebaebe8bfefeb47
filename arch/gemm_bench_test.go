package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
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
				f(dst, n, a, k, packed, bias, m, n, k, 0, math.MaxFloat32)
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

func gemmBenchCases() []benchCase {
	var cs []benchCase
	for _, s := range gemmBenchShapes {
		cs = append(cs, gemmF32Case(s.m, s.n, s.k))
	}
	for _, s := range gemmBenchShapes {
		cs = append(cs, gemmInt8Case(s.m, s.n, s.k))
	}
	cs = append(cs, requantChannelsCase(2304, 8), requantChannelsCase(2304, 16), requantChannelsCase(36, 128))
	return cs
}

func BenchmarkGemm(b *testing.B) {
	for _, c := range gemmBenchCases() {
		for i, name := range c.impls {
			b.Run(c.name+"/"+name, c.run(i))
		}
	}
}
