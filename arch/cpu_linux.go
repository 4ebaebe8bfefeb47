//go:build linux

package arch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sysfsCaches fills the cache sizes from Linux's description of CPU 0
// (/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}), for
// CPUs whose caches cpuid cannot describe (arm64). Missing files leave
// the sizes at 0.
func sysfsCaches(d *cpuDetails) {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	read := func(dir, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	found := false
	for _, dir := range dirs {
		size := parseCacheSize(read(dir, "size"))
		if size <= 0 {
			continue
		}
		typ := read(dir, "type")
		switch read(dir, "level") {
		case "1":
			if typ == "Data" || typ == "Unified" {
				d.l1d, found = size, true
			}
		case "2":
			d.l2, found = size, true
		case "3":
			d.l3, found = size, true
		}
		if n, err := strconv.Atoi(read(dir, "coherency_line_size")); err == nil && n > 0 && d.cacheLine == 0 {
			d.cacheLine = n
		}
	}
	if found {
		d.cacheSource = "sysfs"
	}
}

// parseCacheSize reads sysfs's "32K" / "1024K" / "8M" sizes; 0 if it
// cannot.
func parseCacheSize(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<20 {
		return 0
	}
	return n * mult
}
