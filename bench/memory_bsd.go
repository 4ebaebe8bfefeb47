//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package bench

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// footprintKB is getrusage's ru_maxrss in kilobytes (macOS reports bytes,
// the BSDs kilobytes); -1 when unavailable. TFLite uses the task's
// physical footprint on macOS instead, which Go cannot read without cgo.
func footprintKB() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}

// peakRSS returns getrusage's maximum resident set size in bytes.
func peakRSS() (int64, string) {
	if kb := footprintKB(); kb >= 0 {
		return kb * 1024, "getrusage"
	}
	return 0, ""
}
