//go:build linux

package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// footprintKB is TFLite's memory footprint on Linux: getrusage's
// ru_maxrss, in kilobytes; -1 when unavailable.
func footprintKB() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Maxrss)
}

// peakRSS returns the process's peak resident set size in bytes from the
// VmHWM ("high water mark") line of /proc/self/status, falling back to
// getrusage when /proc is not mounted.
func peakRSS() (int64, string) {
	f, err := os.Open("/proc/self/status")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "VmHWM:") {
				continue
			}
			fields := strings.Fields(strings.TrimPrefix(line, "VmHWM:"))
			if len(fields) == 2 && fields[1] == "kB" {
				if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
					return kb * 1024, "VmHWM"
				}
			}
		}
	}
	if kb := footprintKB(); kb >= 0 {
		return kb * 1024, "getrusage"
	}
	return 0, ""
}
