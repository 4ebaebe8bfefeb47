package fused

import "golang.org/x/sys/unix"

// threadCPUNanos is the CPU time the calling OS thread has used, in ns
// (CLOCK_THREAD_CPUTIME_ID), or -1 when unavailable. The benchmarks
// report it beside wall time because the machines they run on are often
// shared: CPU time is far less disturbed by other processes.
func threadCPUNanos() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return -1
	}
	return ts.Nano()
}
