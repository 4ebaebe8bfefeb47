//go:build !linux

package parallel

// osYield does nothing where sched_yield(2) is not reached through
// package syscall: runtime.Gosched alone yields the worker's processor.
func osYield() {}
