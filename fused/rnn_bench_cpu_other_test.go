//go:build !linux

package fused

// threadCPUNanos is unavailable off Linux (-1); the benchmarks then report
// wall time only.
func threadCPUNanos() int64 { return -1 }
