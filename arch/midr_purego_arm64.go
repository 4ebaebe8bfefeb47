//go:build purego

package arch

// midrEL1 is 0 in purego builds, which have no assembly: the core is
// named from /proc/cpuinfo and sysfs only (cpuname.go).
func midrEL1() uint64 { return 0 }
