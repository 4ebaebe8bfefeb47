//go:build linux

package arch

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Pointwise (1×1) and im2col shapes m×n×k of the int8 CONV_2D layers of
// MobileNet v2 1.0 224, YOLO11n and ResNet: the requantising GEMM at each.
var gemmInt8ModelShapes = []struct{ m, n, k int }{
	{12544, 32, 27},  // mnv2 3×3 s2 input (im2col)
	{12544, 16, 32},  // mnv2 project 112²
	{12544, 96, 16},  // mnv2 expand 112²
	{3136, 24, 96},   // mnv2 project 56²
	{3136, 144, 24},  // mnv2 expand 56²
	{3136, 24, 144},  // mnv2 project 56²
	{784, 32, 144},   // mnv2 project 28²
	{784, 192, 32},   // mnv2 expand 28²
	{196, 64, 192},   // mnv2 project 14²
	{196, 384, 64},   // mnv2 expand 14²
	{196, 96, 384},   // mnv2 project 14²
	{49, 960, 160},   // mnv2 expand 7²
	{49, 320, 960},   // mnv2 project 7²
	{49, 1280, 320},  // mnv2 head
	{6400, 64, 288},  // 3×3 conv 80²×32→64 (im2col)
	{1600, 128, 576}, // 3×3 conv 40²×64→128 (im2col)
}

// BenchmarkGemmInt8Model benchmarks GemmInt8Requantize at every level on
// model layer shapes:
//
//	go test ./arch -run='^$' -bench=GemmInt8Model -benchtime=200ms
func BenchmarkGemmInt8Model(b *testing.B) {
	for _, s := range gemmInt8ModelShapes {
		c := gemmInt8RqCase(s.m, s.n, s.k)
		for i, name := range c.impls {
			b.Run(c.name+"/"+name, c.run(i))
		}
	}
}

// TestGemmInt8ModelCPU (TFLRUN_BENCH_CPU=1) prints the thread CPU time
// per call of GemmInt8Requantize at the level in use on the model shapes:
// the minimum over rounds of (CPU time of a round)/(calls), less sensitive
// than wall time to other processes on a loaded machine. With
// TFLRUN_BENCH_RELU6=1 the clamp is a sub-range, as a fused ReLU6 makes.
func TestGemmInt8ModelCPU(t *testing.T) {
	if os.Getenv("TFLRUN_BENCH_CPU") == "" {
		t.Skip("set TFLRUN_BENCH_CPU=1 to measure")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := func() time.Duration {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ts.Nano())
	}
	for _, s := range gemmInt8ModelShapes {
		m, n, k := s.m, s.n, s.k
		r := rand.New(rand.NewPCG(24, uint64(m*n*k)))
		a, w, seed, dst := make([]int8, m*k), make([]int8, n*k), make([]int32, n), make([]int8, m*n)
		genI8(r, a, 0)
		genI8(r, w, 0)
		packed := make([]int8, PackedGemmInt8Len(n, k))
		PackGemmInt8(packed, w, n, k)
		_, mult, shift := randomChannelRequant(nil, r, n)
		q, err := NewChannelRequantUp(mult, shift) // the int8 CONV_2D's rounding
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := int32(-128), int32(127)
		if os.Getenv("TFLRUN_BENCH_RELU6") != "" {
			lo, hi = -128, -10 // a ReLU6-style clamp inside int8's range
		}
		calls := max(1, int(2e8/float64(m*n*k)))
		best := time.Duration(1 << 62)
		for round := 0; round < 7; round++ {
			t0 := cpu()
			for range calls {
				GemmInt8RequantizeInt8(dst, n, a, k, packed, seed, 0, q, m, n, k, -128, lo, hi)
			}
			best = min(best, (cpu()-t0)/time.Duration(calls))
		}
		fmt.Printf("cpu %dx%dx%d %d ns %.1f GMAC/s\n", m, n, k, best.Nanoseconds(), float64(m*n*k)/float64(best.Nanoseconds()))
	}
}
