//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package bench

// footprintKB is unavailable on this system: -1.
func footprintKB() int64 { return -1 }

// peakRSS is unavailable on this system.
func peakRSS() (int64, string) { return 0, "" }
