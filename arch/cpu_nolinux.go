//go:build !linux

package arch

// sysfsCaches does nothing outside Linux: the cache sizes stay unknown
// unless cpuid (x86) found them.
func sysfsCaches(d *cpuDetails) {}
